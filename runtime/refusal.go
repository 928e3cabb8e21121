package runtime

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// RefusalForm is how a server answers a tool call whose arguments it
// refuses: file arguments that break a rule (an [*Error]), or arguments
// whose JSON does not fit the tool's input schema. The two drafts differ:
// SEP-2356 answers with a tool result whose isError is set, SEP-2631 with
// a JSON-RPC error -32602 (invalid params) whose data carries a
// machine-readable reason.
type RefusalForm int

const (
	// RefuseWithResult answers with a tool result whose isError is set and
	// whose text is the refusal's (SEP-2356; the default): the model that
	// sent the arguments reads why and can try again.
	RefuseWithResult RefusalForm = iota
	// RefuseWithError answers with a JSON-RPC error, code -32602, whose
	// message is the same text as RefuseWithResult's and whose data is
	// {"reason": …} with the figures of the rule (SEP-2631 §10; see
	// [RefusalReason]), e.g.
	//
	//	{"code": -32602,
	//	 "message": "Argument 'image' exceeds maxSize: received 15728640 bytes, limit is 5242880.",
	//	 "data": {"reason": "maxSizeExceeded", "maxSize": 5242880, "actualSize": 15728640}}
	//
	// A client's code sees the refusal as a failed request; whether a
	// model reads it is up to the host.
	RefuseWithError
)

// String returns the form's name in Go.
func (f RefusalForm) String() string {
	switch f {
	case RefuseWithResult:
		return "RefuseWithResult"
	case RefuseWithError:
		return "RefuseWithError"
	}
	return fmt.Sprintf("RefusalForm(%d)", int(f))
}

// SetRefusalForm sets how the tools of s that [AddTool] added answer a
// call whose arguments they refuse (see [RefusalForm]); a server that
// never calls it answers with [RefuseWithResult]. It applies to the calls
// that arrive after it, including those whose inline files runtime/serve
// decodes from the message. It does not change what an elicitation's
// refused answer gets ([Elicit] asks again or fails the call with an
// isError result), nor an error a handler returns. SetRefusalForm panics
// for a form that is not one of the constants.
func SetRefusalForm(s *mcp.Server, f RefusalForm) {
	if f != RefuseWithResult && f != RefuseWithError {
		panic(fmt.Sprintf("runtime.SetRefusalForm: unknown form %v (want RefuseWithResult or RefuseWithError)", f))
	}
	hook.SetRefusalForm(s, int(f))
}

// The reasons of a refusal's JSON-RPC error data that are not among
// package wire's: the arguments' JSON does not fit the input schema, or a
// rule has no reason of the transfer layer's with the same meaning (then
// the reason is the rule's name).
const reasonInvalid = "invalid"

// RefusalReason returns the reason that a refusal for err carries in its
// JSON-RPC error data under [RefuseWithError]: for an [*Error], the
// reason package transfer/wire uses for the same meaning —
// "maxSizeExceeded" (RuleMaxSize), "mimeTypeNotAccepted" (RuleMediaType),
// "contentMismatch" (RuleContent), "malformed" (RuleURIForm), and for
// RuleFileURI the transfer layer's own finer reason ([Error.Code]:
// "expired", "unauthorized", "notFound", "malformed", "digestMismatch")
// — or else the rule's name ("scheme", "transferModes", "fileURI",
// "maxFiles", "minFiles", "type", "form"); for any other error (arguments
// that do not fit the input schema), "invalid".
func RefusalReason(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return reasonInvalid
	}
	switch e.Rule {
	case RuleFileURI:
		if e.Code != "" {
			return e.Code
		}
	case RuleMaxSize:
		return wire.ReasonMaxSizeExceeded
	case RuleMediaType:
		return wire.ReasonMimeTypeNotAccepted
	case RuleContent:
		return wire.ReasonContentMismatch
	case RuleURIForm:
		return wire.ReasonMalformed
	}
	return string(e.Rule)
}

// refusal is what a tool of s answers for err, the arguments' refusal,
// in the form s answers with.
func refusal(s *mcp.Server, err error) (*mcp.CallToolResult, error) {
	if RefusalForm(hook.RefusalForm(s)) != RefuseWithError {
		return errorResult(err), nil
	}
	return nil, refusalError(err)
}

// refusalError is the JSON-RPC error -32602 of a refusal for err: its
// text as the message, its reason and figures as the data. Neither holds
// file bytes: the text is an Error's (or the schema check's), the data
// only numbers and media-type tokens.
func refusalError(err error) *jsonrpc.Error {
	d := wire.ErrorData{Reason: RefusalReason(err)}
	var e *Error
	if errors.As(err, &e) {
		switch e.Rule {
		case RuleMaxSize:
			d.MaxSize = &e.Limit
			if e.Received >= 0 { // -1: a download stopped at the limit
				d.ActualSize = &e.Received
			}
		case RuleMediaType:
			d.MimeType, d.Accept = e.MediaType, e.Allowed
		case RuleContent:
			d.MimeType = e.MediaType
		}
	}
	return wire.InvalidFileError(err.Error(), d)
}
