package mcpgo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	mcpfile "github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"
)

// ElicitUpload asks the person using the calling client for one file
// through an upload page in their browser (a URL-mode elicitation), as
// runtime.ElicitUpload does for a go-sdk server, with the same pages,
// bounds, texts and records, done by the same code: T is a generated type
// with one property, a runtime.File (or *runtime.File), whose mcpfile
// tag's accept and maxSize the page states and enforces; the handler gets
// a File that reads the stored upload, checked as an uploaded file
// argument is. The server must be set up with [ServeFiles], whose
// [Files.Handler] serves the page:
//
//	if in.Archive != nil { // the retry of a client that could not show the page
//		… // use in.Archive
//	}
//	ans, pending, err := mcpgo.ElicitUpload[Archive](ctx, req, "Please choose the archive to import.",
//		&runtime.ElicitOptions[Archive]{Arg: "archive"})
//	if err != nil {
//		return mcp.NewToolResultError(err.Error()), nil
//	}
//	if pending != nil {
//		return pending, nil // ask the client
//	}
//	if ans.Action != runtime.Accept {
//		… // the person declined or cancelled
//	}
//
// How the page reaches the person depends on the client, as on a go-sdk
// server:
//
//   - Protocol 2026-07-28, a client that declared elicitation.url: pending
//     carries a URL-mode input request and the page's identity in
//     requestState; the client shows the page and calls the tool again
//     with the person's answer, and ElicitUpload, called again by the
//     handler, waits there for the upload.
//   - Older protocols, a client that declared elicitation.url:
//     ElicitUpload sends elicitation/create with the page's URL
//     (RequestURLElicitation), waits for the upload, then sends
//     notifications/elicitation/complete.
//   - A client without elicitation.url: pending is an ordinary tool
//     result with the page's link, what to upload and what to do after,
//     and a resource_link to the page (runtime.HandoverLink); the retry
//     gets the file, from the same session (or principal, with auth), or
//     through the argument opts.Arg, resolved before the handler runs. With
//     opts.Handover runtime.HandoverError, err is instead mcp-go's
//     URLElicitationRequiredError carrying the page, which the handler
//     returns as its error, and which mcp-go answers with -32042 (the
//     server sends notifications/elicitation/complete when the upload
//     completes); mcp-go answers that error to a 2026-07-28 request as an
//     internal error, so such a client gets the link result.
//
// While it waits, ElicitUpload reports notifications/progress when the
// call gave a progress token; the wait ends with an error when the page
// expires unused, the upload breaks off, or the call is cancelled. err is
// also runtime.ErrElicitationUnsupported outside a client's session.
// Return err as an isError result, as above: mcp-go turns a handler's
// error into a JSON-RPC error, which a model does not read (but for
// HandoverError's). Of opts, ID, Check, Handover and Arg are used as by
// runtime.ElicitUpload; MaxTries does not apply.
func ElicitUpload[T any, P mcpfile.Generated[T]](ctx context.Context, req mcp.CallToolRequest, message string, opts *mcpfile.ElicitOptions[T]) (ans mcpfile.Answer[T], pending *mcp.CallToolResult, err error) {
	id := "file"
	var check func(T) error
	handover, arg := mcpfile.HandoverLink, ""
	if opts != nil {
		check, handover, arg = opts.Check, opts.Handover, opts.Arg
		if opts.ID != "" {
			id = opts.ID
		}
	}
	up, err := toolcall.NewUpload(reflect.TypeFor[T](), P(new(T)).MCPSchema())
	if err != nil {
		return ans, nil, fmt.Errorf("mcpgo.ElicitUpload: %T %v", *new(T), err)
	}
	r, _ := hook.ResolverFrom(ctx) // set by ServeFiles' middleware
	if r == nil {
		return ans, nil, errors.New("mcpgo.ElicitUpload: the server serves no upload pages: set it up with mcpgo.ServeFiles and mount the handler of Files.Handler")
	}
	srv, session := server.ServerFromContext(ctx), server.ClientSessionFromContext(ctx)
	if srv == nil || session == nil {
		return ans, nil, mcpfile.ErrElicitationUnsupported
	}
	var progress func(received, total int64)
	if pr, ok := r.(interface {
		Progress() func(received, total int64)
	}); ok {
		progress = pr.Progress()
	}
	modern := server.IsModernRequest(ctx)

	accepted := func(uri string) (mcpfile.Answer[T], error) {
		var ans mcpfile.Answer[T]
		if err := up.Accept(ctx, r, uri, P(&ans.Value)); err != nil {
			return ans, err
		}
		if check != nil {
			if err := check(ans.Value); err != nil {
				return mcpfile.Answer[T]{}, fmt.Errorf("the uploaded file was not accepted: %v", err)
			}
		}
		ans.Action = mcpfile.Accept
		return ans, nil
	}
	key := hook.PageKey{Caller: pageCaller(ctx), Tool: req.Params.Name, ID: id, Form: fmt.Sprintf("%T\n%s", *new(T), message)}
	newPage := func(reuse bool, done func(string)) (hook.Page, error) {
		key := key
		key.Reuse = reuse
		p, err := r.NewPage(ctx, nil, key, up.File, message, done)
		if err != nil {
			return p, fmt.Errorf("asking the user for a file: %w", err)
		}
		return p, nil
	}

	// Protocol 2026-07-28: the page in an input request, the answer on the retry.
	if er := server.ElicitationResponse(req.Params.InputResponses, id); er != nil {
		state, ok := toolcall.ParseUploadState(req.Params.RequestState, id)
		if done, err := answered(&ans, &er.ElicitationResponse); done || err != nil {
			if ok {
				r.ClosePage(ctx, nil, state)
			}
			return ans, nil, err
		}
		if !ok {
			return ans, nil, toolcall.ErrNoUploadState(id)
		}
		uri, err := r.AwaitPage(ctx, nil, key, state, progress)
		if err != nil {
			r.ClosePage(context.WithoutCancel(ctx), nil, state) // the call is over
			return ans, nil, err
		}
		ans, err = accepted(uri)
		return ans, nil, err
	}
	if _, ok := req.Params.InputResponses[id]; ok {
		return ans, nil, toolcall.ErrNotElicitResult(id)
	}
	if urlElicitation(ctx) {
		p, err := newPage(false, nil)
		if err != nil {
			return ans, nil, err
		}
		if modern {
			return ans, server.NewInputRequestBuilder(toolcall.UploadState(id, p.State)).
				Elicit(id, pageParams(message, p)).
				ToolResult(), nil
		}
		// Older protocols: elicitation/create, then wait for the upload.
		// The page is this call's alone: when the call ends without its
		// file, the page ends too.
		uploaded := false
		defer func() {
			if !uploaded {
				r.ClosePage(context.WithoutCancel(ctx), nil, p.State)
			}
		}()
		er, err := srv.RequestURLElicitation(ctx, session, p.ElicitationID, p.URL, message)
		if err == nil && er == nil {
			err = errors.New("no answer")
		}
		if err != nil {
			return ans, nil, fmt.Errorf("asking the user for a file: %w", err)
		}
		if done, err := answered(&ans, &er.ElicitationResponse); done || err != nil {
			return ans, nil, err
		}
		uri, err := r.AwaitPage(ctx, nil, key, p.State, progress)
		if err != nil {
			return ans, nil, err
		}
		uploaded = true
		// The out-of-band part is over, whatever the checks say next.
		srv.SendElicitationComplete(ctx, session, p.ElicitationID)
		ans, err = accepted(uri)
		return ans, nil, err
	}

	// No URL-mode elicitation: the page as a link the model passes on (or
	// in a -32042 error), and the file on the retry, which finds the same
	// page by its key (the same session or principal), or through the
	// argument arg, resolved before the handler runs.
	if modern {
		handover = mcpfile.HandoverLink // mcp-go answers a -32042 error to 2026-07-28 as an internal error
	}
	list := false
	if arg != "" {
		if list, err = up.Arg(ctx, req.Params.Name, arg); err != nil {
			return ans, nil, errors.New("mcpgo.ElicitUpload: " + err.Error())
		}
	}
	var done func(string)
	if handover == mcpfile.HandoverError {
		sid := session.SessionID() // the page need not keep the session alive
		done = func(elicitationID string) {
			n := mcp.NewElicitationCompleteNotification(elicitationID)
			srv.SendNotificationToSpecificClient(sid, n.Method, n.Params.AdditionalFields)
		}
	}
	p, err := newPage(true, done)
	if err != nil {
		return ans, nil, err
	}
	if p.Done || p.Uploading {
		key.Reuse = true // a link's page
		uri, err := r.AwaitPage(ctx, nil, key, p.State, progress)
		if err != nil {
			return ans, nil, err
		}
		ans, err = accepted(uri)
		return ans, nil, err
	}
	if handover == mcpfile.HandoverError {
		return ans, nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{pageParams(message, p)}}
	}
	link := mcp.NewResourceLink(p.URL, toolcall.PageLinkName, toolcall.PageLinkDescription(req.Params.Name), "text/html")
	link.Title = toolcall.PageLinkTitle
	return ans, &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewTextContent(up.Link(req.Params.Name, message, arg, list, p)),
		link,
	}}, nil
}

// pageParams is the URL-mode elicitation of page p, with message.
func pageParams(message string, p hook.Page) mcp.ElicitationParams {
	return mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, Message: message, URL: p.URL, ElicitationID: p.ElicitationID}
}

// answered reads the action of a URL-mode elicitation's answer: done when
// the person declined or cancelled (ans.Action says which).
func answered[T any](ans *mcpfile.Answer[T], er *mcp.ElicitationResponse) (done bool, err error) {
	switch mcpfile.Action(er.Action) {
	case mcpfile.Decline, mcpfile.Cancel:
		ans.Action = mcpfile.Action(er.Action)
		return true, nil
	case mcpfile.Accept:
		return false, nil
	default:
		return true, fmt.Errorf("the client answered the elicitation with the unknown action %.64q", er.Action)
	}
}

// urlElicitation reports whether the client of the request in ctx
// declared URL-mode elicitation: in the request's own _meta (2026-07-28),
// or at initialize.
func urlElicitation(ctx context.Context) bool {
	caps := clientCapabilities(ctx)
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// pageCaller tells apart, for the pages a retry finds again by key, the
// callers without auth whose owner does not: a request without a session
// ID (over HTTP, 2026-07-28, where each request stands alone, and
// 2025-11-25 on a stateless mcp-go server, WithStateLess, whose sessions
// have none) is a caller of its own (its retry brings the page back
// through ElicitOptions.Arg); stdio's one client, and a session of an ID,
// which the owner names, are one (nil).
func pageCaller(ctx context.Context) any {
	if sessionID(ctx) == "" && !onStdio(ctx) {
		return callSeq.Add(1)
	}
	return nil
}

// callSeq numbers the calls of pageCaller.
var callSeq atomic.Uint64
