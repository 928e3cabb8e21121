// Package toolcall is where an SDK adapter outside package runtime (the
// mcp-go adapter, runtime/mcpgo, a module of its own) does with a call's
// arguments what runtime.AddTool does for a go-sdk server, with the same
// code: the check against the generated schema, the generated decoder, the
// resolution of the files a host names by URL, and the texts the model
// reads; and with an elicited form's answers what runtime.Elicit does. None
// of it depends on an SDK; runtime keeps it unexported, so that a server
// author's API stays runtime.AddTool and runtime.Elicit, and sets [New] and
// [NewForm] when it is initialised. The adapter imports runtime (for File and Generated), so it
// always has.
package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// Args is what a tool call does with the arguments of one generated input
// type.
type Args struct {
	// Decode checks args, the call's arguments, against the input schema,
	// decodes them into dst (a pointer to a value of the type) with its
	// generated decoder, resolves through the resolver in ctx (see
	// package hook) the uploaded files its file URIs name, and fetches
	// with ft the files a host named by URL (nil ft: the server fetches
	// nothing, and says so). Its error is the text the model reads, as
	// runtime.AddTool answers it: never file bytes; it is recorded, with
	// the tool's name, as runtime.AddTool records it.
	Decode func(ctx context.Context, ft *fetch.Fetcher, args json.RawMessage, dst any) error

	// OpenAIFields are the top-level arguments that take ChatGPT file
	// objects (mcpfile tag form=openai), for the tool's
	// _meta["openai/fileParams"]; nil for none.
	OpenAIFields []string

	// UploadsOnly are the arguments that take uploaded files only
	// (mcpfile tag transfer=upload); nil for none.
	UploadsOnly []string

	// Bind returns the context of a call of the tool, for its handler:
	// an upload page's ElicitOptions.Arg is checked against the tool's
	// arguments (Upload.Arg).
	Bind func(ctx context.Context) context.Context
}

// New returns the Args of the type t, whose generated object schema is
// schema, for the tool named tool. It is an error when the schema cannot
// be used. Package runtime sets it.
var New func(t reflect.Type, schema json.RawMessage, tool string) (*Args, error)

// A Form is what eliciting the form of one generated type does with the
// user's answers, as runtime.Elicit does for a go-sdk server.
type Form struct {
	// Desc names the form's properties, for error messages.
	Desc string

	// UploadsOnly are the fields that take uploaded files only (mcpfile
	// tag transfer=upload); nil for none.
	UploadsOnly []string

	// Answer reads the answer to try number try of the form asked with q:
	// the action and the content (the form's object as the SDK decoded it;
	// nil for none) the client sent, decoded into dst (a pointer to a value of the type)
	// when accepted. done is the action that ends the asking ("accept"
	// only when dst passed every check, q.Check's too; "decline",
	// "cancel"); when done is "", again is the message to ask with once
	// more, or err (after the last try, or for an unknown action) ends the
	// call. Texts are the ones runtime.Elicit gives, never file bytes.
	Answer func(ctx context.Context, q Question, try int, action string, content any, dst any) (done, again string, err error)
}

// A Question is one form asked in a tool call.
type Question struct {
	Message  string
	MaxTries int
	Check    func(dst any) error // the server's own check; nil: none
}

// NewForm returns the Form of the type t, whose generated object schema is
// schema. It is an error when the schema cannot be a form. Package runtime
// sets it.
var NewForm func(t reflect.Type, schema json.RawMessage) (*Form, error)

// An Upload is what asking for the file of one generated type through an
// upload page does, as runtime.ElicitUpload does for a go-sdk server; the
// page itself is the resolver's (hook.Resolver.NewPage).
type Upload struct {
	// File describes the type's one file, for the page.
	File descriptor.File

	// Accept resolves uri, the file URI of the page's upload, through r,
	// and sets the file of dst (a pointer to a value of the type); the
	// error is written for the model.
	Accept func(ctx context.Context, r hook.Resolver, uri string, dst any) error

	// Arg checks ElicitOptions.Arg, arg, against the arguments of the
	// tool called, whose context Args.Bind made (not checked for a tool
	// added otherwise), and reports whether it is a list.
	Arg func(ctx context.Context, tool, arg string) (list bool, err error)

	// Link is the text of the tool result that hands page p over as a link
	// for the model to pass on (to a client without URL-mode elicitation),
	// with message; arg, when not "", is the argument through which the
	// retry brings the page back (in a list of one when list).
	Link func(tool, message, arg string, list bool, p hook.Page) string
}

// What the resource_link of a link result says of the page: its name,
// title and description.
var PageLinkName, PageLinkTitle string
var PageLinkDescription func(tool string) string

// NewUpload returns the Upload of the type t, whose generated object
// schema is schema. It is an error, to follow the type's name, when t
// is not one file. Package runtime sets it.
var NewUpload func(t reflect.Type, schema json.RawMessage) (*Upload, error)

// UploadState is the requestState of the upload page whose state is given,
// for the input request id.
func UploadState(id, state string) string {
	return "mcpfile.upload/" + url.PathEscape(id) + "/" + state
}

// ErrNotElicitResult is the error of a retry whose answer to the input
// request id is not an elicitation result.
func ErrNotElicitResult(id string) error {
	return fmt.Errorf("the answer to input request %q is not an elicitation result", id)
}

// ErrNoUploadState is the error of a retry that answers the upload page's
// input request id without the requestState the server returned with it.
func ErrNoUploadState(id string) error {
	return fmt.Errorf("the retry of this call does not carry the upload page's state (requestState) that the server returned with input request %q; call the tool again without inputResponses", id)
}

// ParseUploadState returns the page state that s (as made by UploadState)
// holds for the input request id. The state is signed by the server, for
// the caller: a client that alters it gets no other caller's file.
func ParseUploadState(s, id string) (string, bool) {
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

// ElicitState is the requestState for try number try of the form id.
func ElicitState(id string, try int) string {
	return "mcpfile.elicit/" + strconv.Itoa(try) + "/" + id
}

// ParseElicitState returns the try number that state (as made by
// ElicitState) records for the form id: 1 when there is none, and never
// more than max. The client echoes the state and could change it, but it
// could as well start the call anew: the count bounds an honest client's
// loop.
func ParseElicitState(state, id string, max int) int {
	rest, ok := strings.CutPrefix(state, "mcpfile.elicit/")
	if !ok {
		return 1
	}
	n, name, ok := strings.Cut(rest, "/")
	if !ok || name != id {
		return 1
	}
	try, err := strconv.Atoi(n)
	if err != nil || try < 1 {
		return 1
	}
	return min(try, max)
}
