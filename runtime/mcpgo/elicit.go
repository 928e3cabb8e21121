package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	mcpfile "github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"
)

// Elicit asks the user of the calling client to fill in the form of T's
// generated schema, typically one file field, and returns the answer with
// its files decoded and checked, as runtime.Elicit does for a go-sdk
// server: the same rules, the same re-asking with what was wrong, the same
// texts. It is called from a tool handler with the handler's request:
//
//	ans, pending, err := mcpgo.Elicit[Photo](ctx, req, "Please select a profile photo.", nil)
//	if err != nil {
//		return mcp.NewToolResultError(err.Error()), nil
//	}
//	if pending != nil {
//		return pending, nil // ask the client
//	}
//	switch ans.Action {
//	case runtime.Accept: // use ans.Value.Photo
//	case runtime.Decline, runtime.Cancel: // the user said no
//	}
//
// It asks the way protocol 2026-07-28 does (multi round-trip requests):
// pending carries the form as an input request, which the handler returns
// as is; the client asks the user and calls the tool again with the
// answer, which Elicit, called again by the handler on that retry, reads.
// For a client of an older protocol mcp-go sends elicitation/create itself
// and calls the handler again with the answer, so one handler serves both
// (its arguments are decoded again on each call). An answer whose files
// break a rule, or that opts.Check rejects, is asked for again with a
// message that says what was wrong, up to opts.MaxTries times; the try
// count travels in requestState, which Elicit owns.
//
// err is runtime.ErrElicitationUnsupported when the client declared no
// form elicitation (the tool should then say how else the file can be
// given); otherwise it says why the call ends (the last try refused, or T
// not a flat form). Return it as an isError result, as above: mcp-go turns
// a handler's error into a JSON-RPC error, which a model does not read.
//
// On a server set up with [ServeFiles], the form's file fields count for
// files/authorizeUpload from the moment it is asked, and an answer may
// name an uploaded file by its URI, resolved and checked as a tool's
// argument is. Without it, a field that takes uploaded files only
// (transfer=upload) cannot be elicited, and an uploaded file's URI in a
// field that takes both is refused with the go-sdk server's text for a
// server that serves no uploads. Count the
// form's schema in the request limit: [MaxRequestBytesFor](s, schema).
func Elicit[T any, P mcpfile.Generated[T]](ctx context.Context, req mcp.CallToolRequest, message string, opts *mcpfile.ElicitOptions[T]) (ans mcpfile.Answer[T], pending *mcp.CallToolResult, err error) {
	id, q := "file", toolcall.Question{Message: message, MaxTries: mcpfile.DefaultElicitTries}
	if opts != nil {
		if opts.ID != "" {
			id = opts.ID
		}
		if opts.MaxTries > 0 {
			q.MaxTries = opts.MaxTries
		}
		if check := opts.Check; check != nil {
			q.Check = func(dst any) error { return check(*(*T)(dst.(P))) }
		}
	}
	schema := P(new(T)).MCPSchema()
	form, err := toolcall.NewForm(reflect.TypeFor[T](), schema)
	if err != nil {
		return ans, nil, fmt.Errorf("mcpgo.Elicit: %T %v", *new(T), err)
	}
	r, _ := hook.ResolverFrom(ctx) // set by ServeFiles' middleware
	if len(form.UploadsOnly) > 0 && r == nil {
		return ans, nil, fmt.Errorf("mcpgo.Elicit: %T: field %s takes uploaded files only (transfer=upload), but the server does not serve files/authorizeUpload: set it up with mcpgo.ServeFiles", *new(T), strings.Join(form.UploadsOnly, ", "))
	}
	if r != nil {
		d, err := descriptor.For(schema)
		if err != nil {
			return ans, nil, fmt.Errorf("mcpgo.Elicit: %T has a schema that cannot be used: %v", *new(T), err)
		}
		r.Declare(d) // before the client sees the form: its files may be uploaded
	}

	if er := server.ElicitationResponse(req.Params.InputResponses, id); er != nil {
		try := toolcall.ParseElicitState(req.Params.RequestState, id, q.MaxTries)
		done, again, err := form.Answer(ctx, q, try, string(er.Action), er.Content, P(&ans.Value))
		if done != string(mcpfile.Accept) {
			ans.Value = *new(T)
		}
		if done != "" || err != nil {
			ans.Action = mcpfile.Action(done)
			return ans, nil, err
		}
		return ans, ask(id, again, schema, toolcall.ElicitState(id, try+1)), nil
	}
	if _, ok := req.Params.InputResponses[id]; ok {
		return ans, nil, toolcall.ErrNotElicitResult(id)
	}
	if !formElicitation(ctx) {
		return ans, nil, mcpfile.ErrElicitationUnsupported
	}
	return ans, ask(id, message, schema, toolcall.ElicitState(id, 1)), nil
}

// ask is the result that asks the client to fill in the form schema, as
// the input request id, with message.
func ask(id, message string, schema json.RawMessage, state string) *mcp.CallToolResult {
	return server.NewInputRequestBuilder(state).
		Elicit(id, mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: message, RequestedSchema: schema}).
		ToolResult()
}

// formElicitation reports whether the client of the request in ctx
// declared form elicitation: in the request's own _meta (2026-07-28), or
// at initialize. A client that declared elicitation without modes supports
// forms.
func formElicitation(ctx context.Context) bool {
	caps := clientCapabilities(ctx)
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// clientCapabilities returns the capabilities the client of the request
// in ctx declared: in the request's own _meta (2026-07-28), or at
// initialize; nil for none known.
func clientCapabilities(ctx context.Context) *mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := s.GetClientCapabilities()
		return &c
	}
	return nil
}
