package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"
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
//	if in.Archive != nil { // the retry of a client that could not show the page
//		… // use in.Archive
//	}
//	ans, pending, err := runtime.ElicitUpload[Archive](ctx, req, "Please choose the archive to import.",
//		&runtime.ElicitOptions[Archive]{Arg: "archive"})
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
//   - A client without elicitation.url (most chat hosts): pending is an
//     ordinary tool result the model reads and passes on (HandoverLink):
//     the page's link, what to upload and what to do after, plus a
//     resource_link to the page. The model gives the person the link and
//     calls the tool again; that retry gets the file: from the same session,
//     or, when the server has auth, from the same principal in any session,
//     where ElicitUpload, called again, finds the same page; or through
//     the argument opts.Arg, which the result told the model to set to the
//     page's file URI (for an anonymous caller whose requests stand alone,
//     2026-07-28 over HTTP): the call resolves it before the handler runs,
//     so the handler uses the argument's file when it has one. A retry
//     before any upload gets the same link again; one while the upload
//     runs waits for it. With opts.Handover HandoverError, err is the
//     -32042 URL elicitation required error carrying the page instead (the
//     handler returns it as it is: AddTool passes a *jsonrpc.Error on as the
//     call's error), and the server sends notifications/elicitation/complete
//     when the upload completes.
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
// the accepted file (an error ends the call with its text); Handover and
// Arg are for clients without URL-mode elicitation (above); MaxTries does
// not apply, since the page itself lets the person try again. The page
// shows who asks: the server's name (from its Implementation), the tool
// and message.
func ElicitUpload[T any, P Generated[T]](ctx context.Context, req *mcp.CallToolRequest, message string, opts *ElicitOptions[T]) (ans Answer[T], pending *mcp.CallToolResult, err error) {
	id := "file"
	var check func(T) error
	if opts != nil {
		check = opts.Check
		if opts.ID != "" {
			id = opts.ID
		}
	}
	pf, err := uploadFieldOf(reflect.TypeFor[T](), P(new(T)).MCPSchema())
	if err != nil {
		return ans, nil, fmt.Errorf("runtime.ElicitUpload: %T %v", *new(T), err)
	}
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
		if err := acceptUpload(ctx, r, extra, pf, uri, reflect.ValueOf(&ans.Value).Elem()); err != nil {
			return ans, err
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
				return ans, nil, toolcall.ErrNotElicitResult(id)
			}
			state, ok := toolcall.ParseUploadState(req.Params.RequestState, id)
			if done, err := answered(&ans, er); done || err != nil {
				if ok {
					r.ClosePage(ctx, extra, state)
				}
				return ans, nil, err
			}
			if !ok {
				return ans, nil, toolcall.ErrNoUploadState(id)
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
				RequestState:  toolcall.UploadState(id, p.State),
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

	// No URL-mode elicitation: the page as a link the model passes on (or
	// in a -32042 error), and the file on the retry, which finds the same
	// page by its key (the same session or principal), or through the
	// argument opts.Arg, resolved before the handler runs.
	handover, arg := HandoverLink, ""
	if opts != nil {
		handover, arg = opts.Handover, opts.Arg
	}
	list := false
	if arg != "" {
		if list, err = argOfTool(ctx, req.Params.Name, arg); err != nil {
			return ans, nil, errors.New("runtime.ElicitUpload: " + err.Error())
		}
	}
	var done func(string)
	if handover == HandoverError {
		ss := weak.Make(req.Session) // the page need not keep the session alive
		done = func(elicitationID string) {
			if s := ss.Value(); s != nil {
				s.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: elicitationID})
			}
		}
	}
	p, err := newPage(true, done)
	if err != nil {
		return ans, nil, err
	}
	if p.Done || p.Uploading {
		key.Reuse = true // a link's page
		uri, err := r.AwaitPage(ctx, extra, key, p.State, progress)
		if err != nil {
			return ans, nil, err
		}
		ans, err = accepted(uri)
		return ans, nil, err
	}
	if handover == HandoverError {
		return ans, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{params(p)})
	}
	return ans, linkResult(req.Params.Name, message, arg, list, pf.file, p), nil
}

// uploadFieldOf returns the one file field of t, whose generated schema is
// schema, that ElicitUpload asks for; the error follows t's name.
func uploadFieldOf(t reflect.Type, schema json.RawMessage) (planField, error) {
	plan, err := planFor(t, schema)
	if err != nil {
		return planField{}, fmt.Errorf("has a schema that cannot be used: %v", err)
	}
	if len(plan.fields) != 1 || plan.fields[0].kind == slice || plan.fields[0].file.Form != "" || countProperties(schema) != 1 {
		return planField{}, errors.New("must have one property, a runtime.File or *runtime.File with an mcpfile tag (no form=): an upload page takes one file and nothing else")
	}
	return plan.fields[0], nil
}

// acceptUpload resolves uri, the file URI of the page's upload, through r
// for the request of extra, and sets pf's field of dst (a value of the
// type) to its file.
func acceptUpload(ctx context.Context, r hook.Resolver, extra *mcp.RequestExtra, pf planField, uri string, dst reflect.Value) error {
	res, err := r.Resolve(ctx, extra, pf.arg, uri, pf.file)
	if err != nil {
		return safeError(err)
	}
	f := File{MediaType: res.MediaType, Params: res.Params, Name: res.Name,
		content: &fileContent{ext: &extFile{size: res.Size, open: res.Open}, release: res.Release}}
	fv := fieldOf(dst, pf.index)
	if pf.kind == pointer {
		fv.Set(reflect.ValueOf(&f))
	} else {
		fv.Set(reflect.ValueOf(f))
	}
	return nil
}

// toolPlanKey is the context key of the file plan of the tool called
// (a *filePlan), set by the handler AddTool registers.
type toolPlanKey struct{}

// argOfTool checks that arg, ElicitOptions.Arg, names a file argument of
// the tool called that takes a page's file URI (an upload-capable URI
// string), and reports whether it is a list. A tool not added with
// AddTool is not checked.
func argOfTool(ctx context.Context, tool, arg string) (list bool, err error) {
	plan, _ := ctx.Value(toolPlanKey{}).(*filePlan)
	if plan == nil {
		return false, nil
	}
	return plan.pageArg(tool, arg)
}

// pageArg checks that arg names a file argument of the tool whose plan p
// is that takes a page's file URI, and reports whether it is a list.
func (p *filePlan) pageArg(tool, arg string) (list bool, err error) {
	for _, f := range p.fields {
		if f.arg != arg {
			continue
		}
		if f.file.Form != "" || (len(f.file.TransferModes) > 0 && !slices.Contains(f.file.TransferModes, "upload")) {
			return false, fmt.Errorf("ElicitOptions.Arg names the argument %q of the tool %q, which takes no uploaded file's URI (it needs transfer=upload, or no transfer modes, and no form=)", arg, tool)
		}
		return f.kind == slice, nil
	}
	return false, fmt.Errorf("ElicitOptions.Arg names %q, which is no file argument of the tool %q", arg, tool)
}

// A PageHandover says how [ElicitUpload] hands its upload page to a client
// that declared no URL-mode elicitation (elicitation.url), which cannot be
// sent the page to show.
type PageHandover int

const (
	// HandoverLink answers with an ordinary tool result that the model
	// reads and acts on: a short text with the page's link, what to upload
	// (types, size limit) and what to do after (give the link to the person,
	// then call the tool again), plus a resource_link to the page. Every
	// client shows a tool result; this is the default.
	HandoverLink PageHandover = iota
	// HandoverError answers with the JSON-RPC error -32042 (URL
	// elicitation required) carrying the page, and sends
	// notifications/elicitation/complete when the upload is done: for a
	// client that handles that error although it did not declare
	// elicitation.url. Most clients without it show a failed call.
	HandoverError
)

// linkResult is ElicitUpload's answer to a client without URL-mode
// elicitation: the page p as a link for the model to pass on, for the
// file d describes, asked by tool with message; arg, when not "", is the
// argument through which the retry brings the page back (in a list of one
// when list).
func linkResult(tool, message, arg string, list bool, d descriptor.File, p hook.Page) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: linkText(tool, message, arg, list, d, p)},
		&mcp.ResourceLink{URI: p.URL, Name: pageLinkName, Title: pageLinkTitle, MIMEType: "text/html",
			Description: pageLinkDescription(tool)},
	}}
}

// What the resource_link of a link result says of the page.
const (
	pageLinkName  = "upload-page"
	pageLinkTitle = "Upload page"
)

func pageLinkDescription(tool string) string {
	return "The page where the person uploads the file the tool " + tool + " asks for. Open it in a browser."
}

// linkText is the text of linkResult.
func linkText(tool, message, arg string, list bool, d descriptor.File, p hook.Page) string {
	var b strings.Builder
	if p.Again { // an earlier call handed the page out: it may be open already
		fmt.Fprintf(&b, "No file has been uploaded through the page yet. The person may have it open already and choose the file there; if they have not opened it, give them this link again: %s\n", p.URL)
	} else {
		fmt.Fprintf(&b, "This tool needs a file from the person, uploaded in their browser: it is not sent in this conversation. ")
		fmt.Fprintf(&b, "Give the person this link to open: %s\n", p.URL)
	}
	fmt.Fprintf(&b, "On that page they choose the file (%s, up to %s).\n", acceptedText(d.Accept), sizeText(d.Limit(DefaultMaxSize)))
	if message != "" {
		fmt.Fprintf(&b, "The page tells them: %q\n", message)
	}
	if arg != "" {
		var value any = p.State
		if list {
			value = []string{p.State}
		}
		call, _ := json.Marshal(map[string]any{arg: value})
		fmt.Fprintf(&b, "When they say the upload is done, call %s again with the same arguments and %s. ", tool, call)
		fmt.Fprintf(&b, "That value is good for this one upload; do not use it for anything else. ")
	} else {
		fmt.Fprintf(&b, "When they say the upload is done, call %s again with the same arguments. ", tool)
	}
	b.WriteString("If the upload is still running then, the call waits for it.")
	return b.String()
}

// acceptedText names the accepted types of a file for the model: "any
// type" for none.
func acceptedText(accept []string) string {
	if len(accept) == 0 {
		return "any type"
	}
	return strings.Join(accept, ", ")
}

// sizeText writes a byte limit for people and models: "2 GiB", "300 bytes".
func sizeText(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + units[u:u+1] + "iB"
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
