package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	mcpfile "github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"
)

// AddTool adds a tool whose arguments In carry files to the mcp-go server
// s, or replaces the tool of the same name. It is s.AddTool with
// mcp.NewTypedToolHandler for a type that mcpfilegen generated code for:
//
//	mcpgo.AddTool(s, mcp.Tool{Name: "describe_image", Description: "…"}, describeImage)
//
// The tool's input schema is In's generated MCPSchema, set as t's
// RawInputSchema, so tools/list shows the x-mcp-file entries exactly as a
// go-sdk server's does. t may come from mcp.NewTool, whose input schema is
// an empty object; it must declare no properties and no raw input schema
// of its own. A form=openai field's name is added to
// t.Meta's "openai/fileParams".
//
// A call's arguments are checked and decoded as runtime.AddTool does it,
// by the same code: the schema (wrong types, missing and unknown members),
// then In's generated UnmarshalJSON (scheme, URI form, media type, size,
// content), then the files a host names by URL are fetched. Every
// violation reaches the client as a result with isError set and the text
// a go-sdk server gives, never with file bytes in it, and h is not called.
// What h returns, error included, is handled by mcp-go as for any tool.
// Leave mcp-go's WithInputSchemaValidation off: it would check the
// arguments first, with texts of its own.
//
// On a server set up with [ServeFiles], an argument may be an uploaded
// file's URI (mcp-file:), resolved and checked before h runs as on a
// go-sdk server with transfer.Register; the tool's fields count for
// files/authorizeUpload.
//
// AddTool panics, like runtime.AddTool, if the schema cannot be used, and
// if a field takes uploaded files only (transfer=upload) on a server
// that [ServeFiles] has not set up.
func AddTool[In any, P mcpfile.Generated[In]](s *server.MCPServer, t mcp.Tool, h mcp.TypedToolHandlerFunc[In]) {
	tt, th, err := toolFor[In, P](s, t, h)
	if err != nil {
		panic(fmt.Sprintf("mcpgo.AddTool: tool %q: %v", t.Name, err))
	}
	s.AddTool(tt, th)
}

// toolFor returns the tool to add to s and its handler.
func toolFor[In any, P mcpfile.Generated[In]](s *server.MCPServer, t mcp.Tool, h mcp.TypedToolHandlerFunc[In]) (mcp.Tool, server.ToolHandlerFunc, error) {
	if t.RawInputSchema != nil || len(t.InputSchema.Properties) > 0 || len(t.InputSchema.Required) > 0 || t.InputSchema.Defs != nil {
		return mcp.Tool{}, nil, fmt.Errorf("the input schema must be unset: it is %T's generated MCPSchema", *new(In))
	}
	schema := P(new(In)).MCPSchema()
	args, err := toolcall.New(reflect.TypeFor[In](), schema, t.Name)
	if err != nil {
		return mcp.Tool{}, nil, err
	}
	if len(args.UploadsOnly) > 0 && !hook.Serves(s) {
		return mcp.Tool{}, nil, fmt.Errorf("argument %s takes uploaded files only (transfer=upload), but the server does not serve files/authorizeUpload: call mcpgo.ServeFiles(s, …) before adding the tool that uses it", strings.Join(args.UploadsOnly, ", "))
	}
	d, err := descriptor.For(schema)
	if err != nil {
		return mcp.Tool{}, nil, err
	}
	t.InputSchema = mcp.ToolInputSchema{}
	t.RawInputSchema = schema
	if len(args.OpenAIFields) > 0 {
		// ChatGPT's Apps SDK: the top-level arguments it passes files in.
		meta := &mcp.Meta{AdditionalFields: map[string]any{}}
		if t.Meta != nil {
			meta.ProgressToken = t.Meta.ProgressToken
			maps.Copy(meta.AdditionalFields, t.Meta.AdditionalFields)
		}
		meta.AdditionalFields["openai/fileParams"] = args.OpenAIFields
		t.Meta = meta
	}
	rec := record(s)
	rec.addSchema(schema)
	hook.AddSchema(s, d) // for files/authorizeUpload, when the server serves files
	th := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, err := rawArguments(req)
		if err != nil {
			return nil, err
		}
		ctx = args.Bind(ctx) // for ElicitUpload's Arg
		var v In
		if err := args.Decode(ctx, rec.getFetcher(), raw, P(&v)); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return h(ctx, req, v)
	}
	return t, th, nil
}

// rawArguments returns the arguments of req as JSON: as they came on the
// wire, or, from an in-process client, encoded.
func rawArguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments, nil
	}
	switch a := req.Params.Arguments.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return a, nil
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil, errors.New("the arguments cannot be encoded as JSON")
	}
	return b, nil
}

// UseFetcher makes the tools that [AddTool] adds to s take files that a
// host names by URL (mcpfile tag form=openai: ChatGPT's file objects) by
// fetching them with f before the handler runs, as runtime.UseFetcher does
// for a go-sdk server; without it, such a call gets an isError result that
// says the server does not fetch files. f's allow-list (see package
// runtime/fetch) keeps the fetching to the hosts the author chose.
func UseFetcher(s *server.MCPServer, f *fetch.Fetcher) {
	r := record(s)
	r.mu.Lock()
	r.fetcher = f
	r.mu.Unlock()
}

// A serverRecord is what this package keeps of one server: the input
// schemas of the tools AddTool added, for the request limit, and the
// fetcher.
type serverRecord struct {
	mu      sync.Mutex
	schemas []json.RawMessage
	fetcher *fetch.Fetcher
}

// records holds the record of each server by a weak pointer, so that a
// server the program drops is dropped here too.
var records sync.Map // weak.Pointer[server.MCPServer] → *serverRecord

// record returns the record of s.
func record(s *server.MCPServer) *serverRecord {
	k := weak.Make(s)
	if v, ok := records.Load(k); ok {
		return v.(*serverRecord)
	}
	v, loaded := records.LoadOrStore(k, new(serverRecord))
	if !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[server.MCPServer]) { records.Delete(k) }, k)
	}
	return v.(*serverRecord)
}

func (r *serverRecord) addSchema(schema json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.ContainsFunc(r.schemas, func(b json.RawMessage) bool { return string(b) == string(schema) }) {
		r.schemas = append(r.schemas, schema)
	}
}

func (r *serverRecord) getFetcher() *fetch.Fetcher {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetcher
}

func (r *serverRecord) getSchemas() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.schemas)
}
