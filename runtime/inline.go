package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

// This file is the runtime's side of the fast path of inline files
// (package inline, used by runtime/serve): AddTool records which
// arguments of a tool take a File, so that the serving code may decode
// their data: URIs from the message and pass the SDK references instead;
// the decoder turns a reference into a File that stands for it, and
// resolveInline, before the handler runs, into the file decoded for it.

// inlineRef is a reference to a file the fast path decoded, and the
// refusal its string gets as a value: what the call gets when it does not
// resolve.
type inlineRef struct {
	ref     string
	refusal error
}

// addInlineTool records the File arguments of def, the tool AddTool added
// to s, whose input schema is schema and plan the plan of its file
// fields, for the fast path. A schema that cannot be read leaves the tool
// to the SDK.
// The first time, it installs on s the middleware that notices a tool
// replaced behind AddTool's back ([noticeReplaced]).
func addInlineTool(s *mcp.Server, def *mcp.Tool, schema json.RawMessage, plan *filePlan) {
	inline.AddTool(s, def.Name, inlineFiles(schema, plan))
	inline.Own(s, def)
	if inline.Watch(s) {
		s.AddReceivingMiddleware(noticeReplaced(s))
	}
}

// noticeReplaced returns the receiving middleware of s that notices a
// tools/call of a tool AddTool recorded for the fast path that no handler
// of AddTool's answered: the call's params._meta still holds the scope key
// of its references, which AddTool's handler removes first thing
// (inline.Bind). The go-sdk tells nobody whose handler a tool's name maps
// to, so this is the first moment it can be known, after the handler that
// replaced AddTool's (with Server.AddTool or mcp.AddTool, without
// RemoveTools) has seen references in place of the call's large data:
// URIs. From then on the fast path leaves the tool to the SDK, and a
// warning says what to do.
//
// A call that failed (an error) teaches nothing, and nor does one whose
// tool the server still lists as AddTool's: a middleware that answers a
// call before any handler runs (auth, a rate limit; with an error or an
// isError result) or an unknown tool leave the key too, and for them the
// fast path is right to carry on, or any client such a middleware
// refuses could turn it off for every other.
func noticeReplaced(s *mcp.Server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/call" || err != nil {
				return res, err
			}
			creq, ok := req.(*mcp.CallToolRequest)
			if !ok || creq.Params == nil {
				return res, err
			}
			p := creq.Params
			def := inline.Recorded(s, p.Name)
			if _, left := p.Meta[inline.MetaKey]; !left || def == nil || !listsOther(ctx, next, creq, def) {
				return res, err
			}
			inline.AddTool(s, p.Name, nil)
			hook.Observer(s).Logger().WarnContext(ctx, "a tool added with runtime.AddTool was replaced by a handler of the go-sdk's own: that call got references in place of its large data: URIs, later calls get them as sent; replace a tool through runtime.AddTool, or call runtime.RemoveTools first",
				slog.String("tool", p.Name))
			return res, err
		}
	}
}

// listsOther reports whether the server, asked through next (what the
// middleware of [noticeReplaced] wraps) in the session and with the
// request's extra of creq, lists a tool under def's name that is not def:
// whether AddTool's tool was replaced. A listing that fails, or that does
// not show the name (a middleware may hide tools), tells nothing: false.
func listsOther(ctx context.Context, next mcp.MethodHandler, creq *mcp.CallToolRequest, def *mcp.Tool) bool {
	lreq := &mcp.ListToolsRequest{Session: creq.Session, Extra: creq.Extra, Params: &mcp.ListToolsParams{}}
	for range maxListPages {
		res, err := next(ctx, "tools/list", lreq)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || lr == nil {
			return false
		}
		for _, t := range lr.Tools {
			if t != nil && t.Name == def.Name {
				return t != def
			}
		}
		if lr.NextCursor == "" {
			return false
		}
		lreq = &mcp.ListToolsRequest{Session: creq.Session, Extra: creq.Extra, Params: &mcp.ListToolsParams{Cursor: lr.NextCursor}}
	}
	return false
}

// maxListPages bounds the pages of tools listsOther reads.
const maxListPages = 100

// inlineFiles returns the fields of the object schema schema, whose plan
// of file fields is plan, that take inline files as File values: those
// the fast path decodes. A schema that cannot be read has none.
func inlineFiles(schema json.RawMessage, plan *filePlan) map[string]*descriptor.Prop {
	d, err := descriptor.For(schema)
	files := map[string]*descriptor.Prop{}
	if err == nil {
		for _, f := range plan.fields {
			if p := d.Props[f.arg]; p != nil && f.file.AllowsInline() {
				files[f.arg] = p
			}
		}
	}
	return files
}

// formFiles caches inlineFiles of each form Elicit was given.
var formFiles sync.Map // schema text → map[string]*descriptor.Prop

// inlineFormFiles is inlineFiles of a form's schema, read once.
func inlineFormFiles(schema json.RawMessage, plan *filePlan) map[string]*descriptor.Prop {
	if v, ok := formFiles.Load(string(schema)); ok {
		return v.(map[string]*descriptor.Prop)
	}
	v, _ := formFiles.LoadOrStore(string(schema), inlineFiles(schema, plan))
	return v.(map[string]*descriptor.Prop)
}

// resolveInline resolves *f, a File that stands for a reference the fast
// path made, sent for argument arg of the call whose context is ctx.
func resolveInline(ctx context.Context, arg string, f *File) error {
	r := f.content.inline
	v, ok := inline.Take(ctx, r.ref, arg)
	if !ok {
		if r.refusal == nil { // a data: URI it is not: never nil
			return &Error{Arg: arg, Rule: RuleScheme, Scheme: inline.Scheme, Reason: "only data: URIs are accepted"}
		}
		return r.refusal
	}
	name := f.Name // a companion filename argument, when there is one, wins
	*f = v.(File)
	if name != "" {
		f.Name = name
	}
	return nil
}
