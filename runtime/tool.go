package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
)

// Generated is the constraint on the pointer to a type that mcpfilegen
// generated code for: T describes itself with the object schema that carries
// the x-mcp-file entries.
//
// A type with file fields also has a generated UnmarshalJSON, which decodes
// every member like encoding/json and decodes and validates the file members
// through this package; its errors are meant to be read by the model that
// sent the arguments. A type selected with mcpfilegen -type that has no file
// fields gets MCPSchema only, and is decoded by encoding/json.
type Generated[T any] interface {
	*T
	MCPSchema() json.RawMessage
}

// AddTool adds a tool whose arguments In carry files to the server, or
// replaces the tool of the same name. It is [mcp.AddTool] for a type that
// mcpfilegen generated code for, and a call site reads the same:
//
//	runtime.AddTool(server, &mcp.Tool{Name: "describe_image"}, describeImage)
//
// The tool's input schema is In's generated MCPSchema, with its x-mcp-file
// entries as the client sees them in tools/list; t.InputSchema must be nil.
// (The SDK's own inference would describe a [File] as an object and reject
// every call.)
//
// A call's arguments are checked against that schema the way [mcp.AddTool]
// checks them, with the same texts for wrong types, missing required
// members and unknown members, but without decoding the file payloads into
// maps: the schema sees each file member's string as a short placeholder.
// Then In's generated UnmarshalJSON decodes the arguments once, straight from
// the request, and validates the files (scheme, URI form, size, media type,
// content). Every violation reaches the client as a tool result with isError
// set and a text naming the argument and the rule (or, on a server set to
// [RefuseWithError], as a JSON-RPC error -32602 with that text and
// data.reason), never with file bytes in it.
//
// Outputs behave as with [mcp.AddTool]: unless Out is any, the output schema
// is inferred from Out when t.OutputSchema is nil (or, when mcpfilegen
// generated Out's MCPSchema, as it does for a type with a
// transfer.FileValue field, is that schema), the output becomes
// structuredContent and, when the handler left Content unset, a JSON text
// content block; an error returned by the handler becomes an isError result
// (a *jsonrpc.Error stays a protocol error). A result carrying InputRequests
// (see [Elicit]) is passed through.
//
// AddTool panics, like [mcp.AddTool], if the schemas cannot be used.
//
// Replace a tool that AddTool added through AddTool again, or remove it
// with [RemoveTools] before adding one of the go-sdk's own (Server.AddTool,
// mcp.AddTool) under its name. AddTool records which arguments of the tool
// take files, so that runtime/serve decodes their large data: URIs from
// the message and hands the SDK a reference ("mcpfile-inline:" and a
// token) in place of each, which only AddTool's handler resolves; the
// go-sdk has no way to tell whose handler a name maps to. A handler that
// replaced AddTool's behind its back sees that reference string, not the
// data: URI, in the first call it answers without an error; the fast
// path then notices it (the server lists another tool under the name),
// logs a warning and leaves the tool to the SDK, and later calls reach
// the handler as sent.
func AddTool[In, Out any, P Generated[In]](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	tt, th, plan, err := toolFor[In, Out, P](s, t, h)
	if err == nil {
		err = checkUploadsServed(s, plan)
	}
	if err == nil {
		err = declareFiles(s, tt.InputSchema.(json.RawMessage))
	}
	if err != nil {
		panic(fmt.Sprintf("runtime.AddTool: tool %q: %v", t.Name, err))
	}
	s.AddTool(tt, th)
	addInlineTool(s, tt, tt.InputSchema.(json.RawMessage), plan)
}

// RemoveTools removes the tools names from s, as s.RemoveTools does, and
// forgets what [AddTool] recorded of them for runtime/serve's fast path of
// inline files, so that a tool of the go-sdk's own added under one of the
// names afterwards gets its arguments as sent. Names of tools AddTool did
// not add are removed as s.RemoveTools removes them.
func RemoveTools(s *mcp.Server, names ...string) {
	for _, name := range names {
		inline.AddTool(s, name, nil) // first: no reference is made for a tool that is gone
	}
	s.RemoveTools(names...)
}

// toolFor returns the tool to register, its low-level handler and the
// plan of its file fields.
func toolFor[In, Out any, P Generated[In]](server *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) (*mcp.Tool, mcp.ToolHandler, *filePlan, error) {
	if t.InputSchema != nil {
		return nil, nil, nil, fmt.Errorf("InputSchema must be nil: it is %T's generated MCPSchema", *new(In))
	}
	schema := P(new(In)).MCPSchema()
	args, err := newToolArgs(reflect.TypeFor[In](), schema)
	if err != nil {
		return nil, nil, nil, err
	}
	plan := args.plan
	tt := *t
	tt.InputSchema = schema
	if names := plan.openAIFields(); len(names) > 0 {
		// ChatGPT's Apps SDK: the top-level arguments it passes files in.
		meta := mcp.Meta{}
		maps.Copy(meta, t.Meta)
		meta["openai/fileParams"] = names
		tt.Meta = meta
	}

	out, err := newOutputter[Out](&tt)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("output schema: %w", err)
	}

	th := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = context.WithValue(ctx, toolPlanKey{}, plan) // for ElicitUpload's Arg
		ctx = inline.Bind(ctx, server, req.Params.Meta, tt.Name)
		var v In
		if err := args.decode(ctx, hook.Fetcher(server), req.Params.Arguments, P(&v)); err != nil {
			recordRefusal(ctx, hook.Observer(server), observe.OpToolCall, t.Name, err)
			if r, _ := hook.ResolverFrom(ctx); r != nil {
				r.GiveBack(ctx) // no handler saw what was resolved
			}
			return refusal(server, err)
		}
		res, o, err := h(ctx, req, v)
		if err != nil {
			if werr, ok := err.(*jsonrpc.Error); ok {
				return nil, werr
			}
			return errorResult(err), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.InputRequests != nil {
			// Content and inputRequests are mutually exclusive on the wire.
			return res, nil
		}
		if err := out.fill(res, o); err != nil {
			return nil, err
		}
		return res, nil
	}
	return &tt, th, plan, nil
}

// recordRefusal records to obs that op (a call of tool, or an answer to
// an elicitation) was refused for err: for a file argument's *Error, the
// argument, the rule, and the figures of the Error, never its text (which
// may quote the value's start); for another error (of the arguments'
// JSON, or a check of the server's own), the reason "invalid", and no
// more.
func recordRefusal(ctx context.Context, obs *observe.Observer, op, tool string, err error) {
	var attrs []slog.Attr
	if tool != "" {
		attrs = append(attrs, slog.String("tool", tool))
	}
	var e *Error
	if !errors.As(err, &e) {
		obs.Refused(ctx, op, "invalid", attrs...)
		return
	}
	attrs = append(attrs, slog.String("arg", e.Arg))
	switch e.Rule {
	case RuleMaxSize, RuleMaxFiles, RuleMinFiles:
		attrs = append(attrs, slog.Int64("received", e.Received), slog.Int64("limit", e.Limit))
	case RuleMediaType, RuleContent:
		attrs = append(attrs, slog.String("mediaType", e.MediaType))
		if e.Detected != "" {
			attrs = append(attrs, slog.String("detected", e.Detected))
		}
	case RuleScheme:
		attrs = append(attrs, slog.String("scheme", e.Scheme))
	}
	obs.Refused(ctx, op, string(e.Rule), attrs...)
}

// errorResult is the isError result for err, as [mcp.CallToolResult.SetError] makes it.
func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// An outputter turns a handler's Out value into structured content, as
// mcp.AddTool does.
type outputter[Out any] struct {
	resolved *jsonschema.Resolved // nil when there is no output schema
	elemZero any                  // non-nil when Out is a pointer: used for a nil Out
}

// newOutputter sets t.OutputSchema as mcp.AddTool does and returns what
// fills results with Out values.
func newOutputter[Out any](t *mcp.Tool) (*outputter[Out], error) {
	o := new(outputter[Out])
	rt := reflect.TypeFor[Out]()
	if t.OutputSchema == nil && rt == reflect.TypeFor[any]() {
		// No output schema, but a non-nil output still becomes
		// structuredContent and JSON text, unvalidated, as in mcp.AddTool.
		return o, nil
	}
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
		o.elemZero = reflect.Zero(rt).Interface()
	}
	var s *jsonschema.Schema
	if t.OutputSchema == nil {
		// A generated output type (one with transfer.FileValue fields):
		// its schema is the one mcpfilegen wrote.
		if g, ok := reflect.New(rt).Interface().(interface{ MCPSchema() json.RawMessage }); ok {
			t.OutputSchema = g.MCPSchema()
		}
	}
	switch v := t.OutputSchema.(type) {
	case nil:
		var err error
		s, err = jsonschema.ForType(rt, &jsonschema.ForOptions{})
		if err != nil {
			return nil, err
		}
		t.OutputSchema = s
	case *jsonschema.Schema:
		s = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, err
		}
	}
	if s == nil {
		return nil, fmt.Errorf("schema is nil for type %v", rt)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	o.resolved = r
	return o, nil
}

// fill puts out into res as structuredContent and, when res has no content,
// as a JSON text block.
func (o *outputter[Out]) fill(res *mcp.CallToolResult, out Out) error {
	var v any = out
	if o.elemZero != nil {
		var z Out
		if any(out) == any(z) {
			v = o.elemZero
		}
	}
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshaling output: %w", err)
	}
	b, err = validateOutput(b, o.resolved)
	if err != nil {
		return fmt.Errorf("validating tool output: %w", err)
	}
	res.StructuredContent = json.RawMessage(b)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	} else if !isObject(b) {
		res.Content = append(res.Content, &mcp.TextContent{Text: string(b)})
	}
	return nil
}

// validateOutput validates the output JSON b against r after applying its
// defaults, as the SDK does for tool outputs.
func validateOutput(b []byte, r *jsonschema.Resolved) ([]byte, error) {
	if r == nil {
		return b, nil
	}
	var v any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling output: %w", err)
		}
	}
	applied := false
	if _, ok := v.(map[string]any); ok {
		if err := r.ApplyDefaults(&v); err != nil {
			return nil, fmt.Errorf("applying schema defaults:\n%w", err)
		}
		applied = true
	} else if v == nil && r.Schema().Type == "object" {
		v = make(map[string]any)
		if err := r.ApplyDefaults(&v); err != nil {
			return nil, fmt.Errorf("applying schema defaults:\n%w", err)
		}
		applied = true
	}
	if err := r.Validate(&v); err != nil {
		return nil, err
	}
	if !applied {
		return b, nil
	}
	return json.Marshal(v)
}

// isObject reports whether b is a JSON object.
func isObject(b []byte) bool {
	i := jsonwalk.SkipWS(b, 0)
	return i < len(b) && b[i] == '{'
}
