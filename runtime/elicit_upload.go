package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// ElicitUpload asks the person using the calling client for one file,
// through an upload page in their browser (a URL-mode elicitation), and
// returns it when the upload is done: for files too big to travel in a
// message (SEP-2356 sends those through URL-mode elicitation), or to ask a
// person rather than the model. T is a generated type with one property, a
// runtime.File (or *runtime.File), whose mcpfile tag's accept and maxSize
// (or [DefaultMaxSize]) the page states, checks before the upload in the
// browser, and enforces as the upload arrives (its first bytes against the
// accepted types, its length against maxSize); the handler gets a File that
// reads the stored upload, never loaded into memory, checked as an uploaded
// file argument is. The server must serve uploads (transfer.Register), which
// serves the page:
//
//	ans, pending, err := runtime.ElicitUpload[Archive](ctx, req, "Please choose the archive to import.", nil)
//	if pending != nil || err != nil {
//		return pending, nil, err // ask the client, or fail the call
//	}
//	if ans.Action != runtime.Accept {
//		… // the person declined or cancelled
//	}
//	r, err := ans.Value.Archive.Open()
//
// How the page reaches the person depends on the client:
//
//   - Protocol 2026-07-28 (multi round-trip requests): pending carries a
//     URL-mode input request and the page's identity in requestState; the
//     client shows the page and calls the tool again with the person's
//     answer, and ElicitUpload, called again by the handler, waits there for
//     the upload to complete. A retry never mints a second page.
//   - Older protocols, a client that declared elicitation.url: ElicitUpload
//     sends elicitation/create with the page's URL, waits for the upload,
//     then sends notifications/elicitation/complete.
//   - A client without elicitation.url: err is the -32042 URL elicitation
//     required error, carrying the page (the handler returns it as it is:
//     AddTool passes a *jsonrpc.Error on as the call's error). When the upload
//     completes, the server sends notifications/elicitation/complete, and the
//     client's retry of the same tool gets the file: from the same session,
//     or, when the server has auth, from the same principal in any session.
//     An anonymous caller whose session ends with the call (stateless HTTP)
//     cannot retry this way.
//
// While it waits, ElicitUpload reports notifications/progress (bytes
// received, of the most the page takes) when the caller gave a progress
// token: at most four a second while bytes arrive, and always one when the
// upload completes. The wait ends with an error when the page expires unused
// (transfer.Options.PageTTL), when the upload breaks off (the browser was
// closed), or when the call is cancelled. A file the page refuses (too
// large, of another type) is not an error: the page says why and the person
// may choose another.
//
// Of opts, ID names the input request (default "file") and Check is run on
// the accepted file (an error ends the call with its text); MaxTries does
// not apply, since the page itself lets the person try again.
func ElicitUpload[T any, P Generated[T]](ctx context.Context, req *mcp.CallToolRequest, message string, opts *ElicitOptions[T]) (ans Answer[T], pending *mcp.CallToolResult, err error) {
	id := "file"
	var check func(T) error
	if opts != nil {
		check = opts.Check
		if opts.ID != "" {
			id = opts.ID
		}
	}
	schema := P(new(T)).MCPSchema()
	plan, err := planFor(reflect.TypeFor[T](), schema)
	if err != nil {
		return ans, nil, fmt.Errorf("runtime.ElicitUpload: %T has a schema that cannot be used: %v", *new(T), err)
	}
	if len(plan.fields) != 1 || plan.fields[0].kind == slice || plan.fields[0].file.Form != "" || countProperties(schema) != 1 {
		return ans, nil, fmt.Errorf("runtime.ElicitUpload: %T must have one property, a runtime.File or *runtime.File with an mcpfile tag (no form=): an upload page takes one file and nothing else", *new(T))
	}
	pf := plan.fields[0]
	r, extra := hook.ResolverFrom(ctx)
	if r == nil {
		return ans, nil, errors.New("runtime.ElicitUpload: the server serves no upload pages: call transfer.Register(server, …) and mount the handler it returns")
	}
	if req == nil || req.Session == nil {
		return ans, nil, ErrElicitationUnsupported
	}

	progress := progressReporter(ctx, req)
	accepted := func(uri string) (Answer[T], error) {
		var ans Answer[T]
		res, err := r.Resolve(ctx, extra, pf.arg, uri, pf.file)
		if err != nil {
			return ans, safeError(err)
		}
		f := File{MediaType: res.MediaType, Params: res.Params, Name: res.Name,
			content: &fileContent{ext: &extFile{size: res.Size, open: res.Open}, release: res.Release}}
		fv := fieldOf(reflect.ValueOf(&ans.Value).Elem(), pf.index)
		if pf.kind == pointer {
			fv.Set(reflect.ValueOf(&f))
		} else {
			fv.Set(reflect.ValueOf(f))
		}
		if check != nil {
			if err := check(ans.Value); err != nil {
				return Answer[T]{}, fmt.Errorf("the uploaded file was not accepted: %v", err)
			}
		}
		ans.Action = Accept
		return ans, nil
	}
	key := hook.PageKey{Session: req.Session, Tool: req.Params.Name, ID: id, Form: fmt.Sprintf("%T\n%s", *new(T), message)}
	params := func(p hook.Page) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "url", Message: message, URL: p.URL, ElicitationID: p.ElicitationID}
	}
	newPage := func(reuse bool, done func(string)) (hook.Page, error) {
		key := key
		key.Reuse = reuse
		p, err := r.NewPage(ctx, extra, key, pf.file, message, done)
		if err != nil {
			return p, fmt.Errorf("asking the user for a file: %w", err)
		}
		return p, nil
	}
	ip := req.Session.InitializeParams()

	// Protocol 2026-07-28: the page in an input request, the answer on the retry.
	if ip != nil && ip.ProtocolVersion >= protocolMRTR {
		if resp, ok := req.Params.InputResponses[id]; ok {
			er, ok := resp.(*mcp.ElicitResult)
			if !ok || er == nil {
				return ans, nil, fmt.Errorf("the answer to input request %q is not an elicitation result", id)
			}
			state, ok := parseUploadState(req.Params.RequestState, id)
			if done, err := answered(&ans, er); done || err != nil {
				if ok {
					r.ClosePage(ctx, extra, state)
				}
				return ans, nil, err
			}
			if !ok {
				return ans, nil, fmt.Errorf("the retry of this call does not carry the upload page's state (requestState) that the server returned with input request %q; call the tool again without inputResponses", id)
			}
			uri, err := r.AwaitPage(ctx, extra, key, state, progress)
			if err != nil {
				r.ClosePage(context.WithoutCancel(ctx), extra, state) // the call is over
				return ans, nil, err
			}
			ans, err = accepted(uri)
			return ans, nil, err
		}
		if urlElicitation(ip) {
			p, err := newPage(false, nil)
			if err != nil {
				return ans, nil, err
			}
			return ans, &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{id: params(p)},
				RequestState:  uploadState(id, p.State),
			}, nil
		}
	} else if urlElicitation(ip) {
		// Older protocols: elicitation/create, then wait for the upload.
		// The page is this call's alone: when the call ends without its
		// file, the page ends too.
		p, err := newPage(false, nil)
		if err != nil {
			return ans, nil, err
		}
		uploaded := false
		defer func() {
			if !uploaded {
				r.ClosePage(context.WithoutCancel(ctx), extra, p.State)
			}
		}()
		er, err := req.Session.Elicit(ctx, params(p))
		if err == nil && er == nil {
			err = errors.New("no answer")
		}
		if err != nil {
			return ans, nil, fmt.Errorf("asking the user for a file: %w", safeError(err))
		}
		if done, err := answered(&ans, er); done || err != nil {
			return ans, nil, err
		}
		uri, err := r.AwaitPage(ctx, extra, key, p.State, progress)
		if err != nil {
			return ans, nil, err
		}
		uploaded = true
		// The out-of-band part is over, whatever the checks say next.
		req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: p.ElicitationID})
		ans, err = accepted(uri)
		return ans, nil, err
	}

	// No URL-mode elicitation: -32042 with the page, and the file on the
	// retry in the same session, which finds the same page.
	ss := weak.Make(req.Session) // the page need not keep the session alive
	p, err := newPage(true, func(elicitationID string) {
		if s := ss.Value(); s != nil {
			s.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: elicitationID})
		}
	})
	if err != nil {
		return ans, nil, err
	}
	if p.Done {
		uri, err := r.AwaitPage(ctx, extra, key, p.State, progress)
		if err != nil {
			return ans, nil, err
		}
		ans, err = accepted(uri)
		return ans, nil, err
	}
	return ans, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{params(p)})
}

// answered reads the action of a URL-mode elicitation's answer: done when
// the person declined or cancelled (ans.Action says which).
func answered[T any](ans *Answer[T], er *mcp.ElicitResult) (done bool, err error) {
	switch Action(er.Action) {
	case Decline, Cancel:
		ans.Action = Action(er.Action)
		return true, nil
	case Accept:
		return false, nil
	default:
		return true, fmt.Errorf("the client answered the elicitation with the unknown action %s", echo(er.Action))
	}
}

// urlElicitation reports whether the client declared URL-mode elicitation.
func urlElicitation(ip *mcp.InitializeParams) bool {
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil && ip.Capabilities.Elicitation.URL != nil
}

// progressReporter returns what reports an upload's progress to the
// caller, nil when the call has no progress token. Progress only grows, as
// MCP requires: an upload that starts over (the person chose another file
// after the page refused one) is reported once it passes the first.
func progressReporter(ctx context.Context, req *mcp.CallToolRequest) func(received, total int64) {
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	var last int64 = -1
	return func(received, total int64) {
		final := total == received // AwaitPage's last call: the whole file
		if received <= last {
			if !final {
				return
			}
			received = last + 1 // always one at the end, and never the same value twice
			total = received
		}
		last = received
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: tok,
			Progress:      float64(received),
			Total:         float64(max(total, received)),
			Message:       "file upload: bytes received",
		})
	}
}

// uploadState is the requestState of the upload page whose state is given,
// for the input request id.
func uploadState(id, state string) string {
	return "mcpfile.upload/" + url.PathEscape(id) + "/" + state
}

// parseUploadState returns the page state that s (as made by uploadState)
// holds for the input request id. The state is signed by the server, for
// the caller: a client that alters it gets no other caller's file.
func parseUploadState(s, id string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "mcpfile.upload/")
	if !ok {
		return "", false
	}
	name, state, ok := strings.Cut(rest, "/")
	if !ok || name != url.PathEscape(id) || state == "" {
		return "", false
	}
	return state, true
}

// fieldOf is v's field at index, allocating the nil embedded pointers on
// the way.
func fieldOf(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// countProperties counts the top-level properties of an object schema.
func countProperties(schema []byte) int {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return -1
	}
	return len(s.Properties)
}
