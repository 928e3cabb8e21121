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
	"sync"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/internal/toolcall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Action is what the user did with an elicitation form.
type Action string

// The actions of an elicitation answer, as MCP names them.
const (
	Accept  Action = "accept"  // the user submitted the form; the value is valid
	Decline Action = "decline" // the user explicitly declined
	Cancel  Action = "cancel"  // the user dismissed the form without choosing
)

// An Answer is the user's answer to [Elicit]. Value is set only when Action
// is [Accept], and then its files have passed every check of T's schema.
type Answer[T any] struct {
	Action Action
	Value  T
}

// ElicitOptions tunes [Elicit] for the form T. The zero value (or nil) is
// ready to use.
type ElicitOptions[T any] struct {
	// ID names the input request in the tool result's inputRequests
	// (protocol 2026-07-28). Default: "file".
	ID string
	// MaxTries bounds how many times the user is asked: after that many
	// answers that fail validation, Elicit returns an error, which the tool
	// reports as an isError result. Default: [DefaultElicitTries].
	MaxTries int
	// Check, when set, is the server's own check of an accepted answer whose
	// files passed the form's rules, such as a least image size. An error
	// rejects the answer like a broken rule: the user is asked again with
	// the error's text, which should say what to choose instead.
	Check func(T) error
	// Handover, for [ElicitUpload], says how a client that declared no
	// URL-mode elicitation gets the upload page. Default: [HandoverLink].
	Handover PageHandover
	// Arg, for [ElicitUpload], names an upload-capable file argument of
	// the tool (transfer=upload, or no transfer modes; no form=) through
	// which the retry of a client without URL-mode elicitation may bring
	// the page back (ElicitUpload fails when a tool added with [AddTool]
	// has no such argument): the page's link result tells the model to
	// call the tool again with this argument set to the page's file URI
	// (for a list of files, a list of one), which the call then
	// resolves (waiting for an upload still running) before the handler
	// runs, and takes once. A handler given the argument uses that file
	// and asks for none. It is how an anonymous caller whose requests
	// stand alone (protocol 2026-07-28 over HTTP) gets its file: without
	// it, a retry finds the page only from the same session, or, with
	// auth, as the same principal.
	Arg string
}

// DefaultElicitTries is how many times [Elicit] asks by default.
const DefaultElicitTries = 3

// ErrElicitationUnsupported is returned by [Elicit] when the client did not
// declare form elicitation. A tool should then say how else the file can be
// given, for example as an ordinary file argument.
var ErrElicitationUnsupported = errors.New("the client cannot show the user a form to choose a file (it did not declare form elicitation)")

// protocolMRTR is the first protocol version with multi round-trip requests
// (SEP-2322): a server asks for input by returning input requests in the
// result, and the client retries the call with the answers.
const protocolMRTR = "2026-07-28"

// Elicit asks the user of the calling client to fill in the form described by
// T's generated schema, typically one file field, and returns the answer with
// its files decoded and validated. It is called from a tool handler with the
// handler's request:
//
//	ans, pending, err := runtime.Elicit[Photo](ctx, req, "Please select a profile photo.", nil)
//	if pending != nil || err != nil {
//		return pending, nil, err // ask the client, or fail the call
//	}
//	switch ans.Action {
//	case runtime.Accept: // use ans.Value.Photo
//	case runtime.Decline, runtime.Cancel: // the user said no
//	}
//
// When pending is not nil the handler must return it as its result, as is.
// On protocol 2026-07-28 (multi round-trip requests) it carries the form as
// an input request; the client asks the user and calls the tool again with
// the answer in inputResponses, and Elicit, called again by the handler on
// that retry, reads it. An answer whose files fail validation (or that
// [ElicitOptions.Check] rejects) is asked for again with a message that
// explains what was wrong, up to [ElicitOptions.MaxTries] times; the try
// count travels in requestState, which Elicit owns. With older clients,
// Elicit sends elicitation/create requests itself, from inside the handler,
// and re-asks in the same way; pending is then always nil. (The SDK's own
// fallback, which turns returned input requests into elicitation/create for
// older clients, re-invokes the handler only once, so it could not re-ask.)
//
// err is [ErrElicitationUnsupported] when the client has no form
// elicitation, describes the failure after the last try, or reports that T
// is not a flat form. Returned from a handler of [AddTool] or [mcp.AddTool],
// it becomes an isError result with its text; never a JSON-RPC error.
//
// Each tool call may elicit one form: the retry of a 2026-07-28 client
// carries only the latest answers.
//
// Served through runtime/serve, the files of an answer are decoded and
// checked with the form's rules as the client's message is read, before
// the go-sdk reads it (BENCHMARKS.md §10): on 2026-07-28 for a tool added
// with [AddTool] that asks one form under the input request's id, and
// before it for every answer to elicitation/create, whose request then
// carries the key of this one elicitation in its _meta (which the serving
// code removes before the client gets it).
func Elicit[T any, P Generated[T]](ctx context.Context, req *mcp.CallToolRequest, message string, opts *ElicitOptions[T]) (ans Answer[T], pending *mcp.CallToolResult, err error) {
	id, maxTries := "file", DefaultElicitTries
	var check func(T) error
	if opts != nil {
		check = opts.Check
		if opts.ID != "" {
			id = opts.ID
		}
		if opts.MaxTries > 0 {
			maxTries = opts.MaxTries
		}
	}
	schema := P(new(T)).MCPSchema()
	f := formFor(schema)
	if f.err != nil {
		return ans, nil, fmt.Errorf("runtime.Elicit: %T %v", *new(T), f.err)
	}
	form := f.checker
	params := func(msg string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
	}
	plan, err := planFor(reflect.TypeFor[T](), schema)
	if err != nil {
		return ans, nil, fmt.Errorf("runtime.Elicit: %T has a schema that cannot be used: %v", *new(T), err)
	}
	r, _ := hook.ResolverFrom(ctx)
	if names := plan.uploadsOnly(); r == nil && len(names) > 0 {
		return ans, nil, fmt.Errorf("runtime.Elicit: %T: %v", *new(T), &uploadsNotServed{names})
	}
	if r != nil && len(plan.fields) > 0 {
		d, err := descriptor.For(schema)
		if err != nil {
			return ans, nil, fmt.Errorf("runtime.Elicit: %T has a schema that cannot be used: %v", *new(T), err)
		}
		r.Declare(d) // before the client sees the form: its files may be uploaded
	}
	e := elicitation{form: form, plan: plan, message: message, maxTries: maxTries}
	if check != nil {
		e.check = func(dst any) error { return check(*(*T)(dst.(P))) }
	}
	read := func(ctx context.Context, er *mcp.ElicitResult, try int) (Answer[T], string, error) {
		return answerOf[T, P](ctx, e, er, try)
	}
	// The fast path of inline files (runtime/serve) may hand the SDK the
	// answer's files as references, which resolve for this form only.
	files := inlineFormFiles(schema, plan)

	if req == nil || req.Session == nil {
		return ans, nil, ErrElicitationUnsupported
	}
	ip := req.Session.InitializeParams()
	if ip != nil && ip.ProtocolVersion >= protocolMRTR {
		inline.RecordForm(ctx, id, string(schema), files)
		if resp, ok := req.Params.InputResponses[id]; ok {
			try := toolcall.ParseElicitState(req.Params.RequestState, id, maxTries)
			er, ok := resp.(*mcp.ElicitResult)
			if !ok || er == nil {
				return ans, nil, toolcall.ErrNotElicitResult(id)
			}
			ans, again, err := read(inline.ForAnswer(ctx, id, string(schema)), er, try)
			if again == "" || err != nil {
				return ans, nil, err
			}
			return ans, &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{id: params(again)},
				RequestState:  toolcall.ElicitState(id, try+1),
			}, nil
		}
		if !formElicitation(ip) {
			return ans, nil, ErrElicitationUnsupported
		}
		return ans, &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{id: params(message)},
			RequestState:  toolcall.ElicitState(id, 1),
		}, nil
	}

	if !formElicitation(ip) {
		return ans, nil, ErrElicitationUnsupported
	}
	msg := message
	for try := 1; ; try++ {
		ans, again, err := elicitOnce(ctx, req, params(msg), files, func(ctx context.Context, er *mcp.ElicitResult, err error) (Answer[T], string, error) {
			switch {
			case err != nil && strings.Contains(err.Error(), sdkContentMismatch):
				// The SDK checked the answer against the form and refused it,
				// quoting it: a failed try, explained without the answer.
				again, err := e.refused(ctx, safeError(err), try)
				return Answer[T]{}, again, err
			case err != nil:
				return Answer[T]{}, "", fmt.Errorf("asking the user for %s: %w", f.desc, safeError(err))
			}
			return read(ctx, er, try)
		})
		if again == "" || err != nil {
			return ans, nil, err
		}
		msg = again
	}
}

// elicitOnce sends the elicitation/create request p, whose form's inline
// file fields are files, and reads the answer with read, which gets the
// context resolving the answer's references (see inline.Elicitation). The
// files of an answer that read does not take are dropped when it returns.
func elicitOnce[A any](ctx context.Context, req *mcp.CallToolRequest, p *mcp.ElicitParams, files map[string]*descriptor.Prop, read func(context.Context, *mcp.ElicitResult, error) (A, string, error)) (A, string, error) {
	if len(files) > 0 {
		el := inline.Ask(files)
		defer el.Close()
		p.Meta = mcp.Meta{inline.MetaKey: el.Key()}
		ctx = el.Bind(ctx)
	}
	er, err := req.Session.Elicit(ctx, p)
	if err == nil && er == nil {
		err = errors.New("no answer")
	}
	return read(ctx, er, err)
}

// A form is what Elicit needs of a form's schema, read once per schema text
// (see formFor).
type form struct {
	checker *argsChecker
	desc    string // the form's properties, for error messages
	err     error  // why the schema cannot be a form, "cannot be elicited: …"
}

// forms caches the form of each schema text Elicit was given.
var forms sync.Map // string → *form

// formFor returns the form of schema, reading it the first time only: a
// tool that elicits reads its form's schema once, not on every call.
func formFor(schema json.RawMessage) *form {
	if f, ok := forms.Load(string(schema)); ok {
		return f.(*form)
	}
	f := &form{desc: describeForm(schema)}
	if err := checkFlat(schema); err != nil {
		f.err = fmt.Errorf("cannot be elicited: %v", err)
	} else if f.checker, err = newArgsChecker("content", schema); err != nil {
		f.err = fmt.Errorf("has a schema that cannot be used: %v", err)
	}
	v, _ := forms.LoadOrStore(string(schema), f)
	return v.(*form)
}

// sdkContentMismatch is in the error the go-sdk's ServerSession.Elicit
// returns for an answer that does not match the form's schema.
const sdkContentMismatch = "elicitation result content does not match requested schema"

// elicitation reads the answers to one form, whatever the SDK: Elicit
// for a go-sdk server, and the mcp-go adapter through package toolcall.
type elicitation struct {
	form     *argsChecker
	plan     *filePlan           // the form's file fields, whose uploaded files are resolved
	check    func(dst any) error // the server's own check of the value; nil: none
	message  string
	maxTries int
}

// answerOf reads the go-sdk answer er to try number try into an Answer.
func answerOf[T any, P Generated[T]](ctx context.Context, e elicitation, er *mcp.ElicitResult, try int) (ans Answer[T], again string, err error) {
	var content any // nil, not a nil map, for no content
	if er.Content != nil {
		content = er.Content
	}
	ans.Action, again, err = e.answer(ctx, er.Action, content, try, P(&ans.Value))
	if ans.Action != Accept {
		ans.Value = *new(T)
	}
	return ans, again, err
}

// answer reads the answer to try number try: the action and the content
// (the form's object as the SDK decoded it; nil for none) the client sent,
// decoded into dst when accepted. done is the action that ends the asking, Accept only when
// dst passed every check; when done is "", again is the message to ask
// with once more, or err ends the call.
func (e elicitation) answer(ctx context.Context, action string, content any, try int, dst any) (done Action, again string, err error) {
	switch Action(action) {
	case Decline, Cancel:
		return Action(action), "", nil
	case Accept:
	default:
		return "", "", fmt.Errorf("the client answered the form with the unknown action %s", echo(action))
	}
	args := json.RawMessage("{}")
	if content != nil {
		if args, err = json.Marshal(content); err != nil {
			return "", "", err
		}
	}
	verr := e.form.decode(args, dst)
	if verr == nil {
		if err := e.plan.resolve(ctx, nil, reflect.ValueOf(dst)); err != nil {
			verr = safeError(err)
		}
	}
	if verr == nil && e.check != nil {
		verr = e.check(dst)
	}
	if verr == nil {
		return Accept, "", nil
	}
	again, err = e.refused(ctx, verr, try)
	return "", again, err
}

// refused is the answer to try number try being refused for verr: the
// message to ask again with, or the error that ends the call after the
// last try. It records the refusal.
func (e elicitation) refused(ctx context.Context, verr error, try int) (again string, err error) {
	recordRefusal(ctx, hook.ObserverFrom(ctx), observe.OpElicitation, "", verr)
	if try >= e.maxTries {
		return "", fmt.Errorf("the user's answer was not accepted after %d tries: %v", try, verr)
	}
	return fmt.Sprintf("%s\n\nThat was not accepted: %v\nPlease try again (try %d of %d).", e.message, verr, try+1, e.maxTries), nil
}

// formElicitation reports whether the client declared form elicitation.
// A client that declared elicitation without modes supports forms.
func formElicitation(ip *mcp.InitializeParams) bool {
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	c := ip.Capabilities.Elicitation
	return c.Form != nil || c.URL == nil
}

// describeForm names the form's properties for error messages.
func describeForm(schema json.RawMessage) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return "a form"
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, strconv.Quote(k))
	}
	slices.Sort(names)
	return "form " + strings.Join(names, ", ")
}
