package runtime

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
	"github.com/mcpfile/mcpfile/runtime/internal/text"
)

// Rule names the constraint of an x-mcp-file argument that a value broke.
// Its values are the words the SEP and the mcpfile tag use.
type Rule string

// The rules a file argument can break.
const (
	// RuleScheme: the value is not a data: URI (https:, file:, mcp-file:, a
	// path, plain text or an empty string). Such values are never dereferenced.
	RuleScheme Rule = "scheme"
	// RuleURIForm: the value is a data: URI that is malformed: no comma, a
	// bad media type or parameter, ";base64" out of place, invalid base64, a
	// bad %-escape or a control character.
	RuleURIForm Rule = "uriForm"
	// RuleMediaType: the URI's media type is not allowed by accept.
	RuleMediaType Rule = "mediaType"
	// RuleContent: the bytes are not what the declared media type says (see
	// the package documentation, "Content check").
	RuleContent Rule = "content"
	// RuleMaxSize: the decoded file is larger than maxSize.
	RuleMaxSize Rule = "maxSize"
	// RuleMaxFiles: an array argument holds more files than maxFiles, or
	// than [DefaultMaxFiles] when it declares none.
	RuleMaxFiles Rule = "maxFiles"
	// RuleMinFiles: an array argument holds fewer files than minFiles (the
	// schema's minItems; a required array of files needs at least one).
	RuleMinFiles Rule = "minFiles"
	// RuleType: the JSON value of a file argument has the wrong type: a file
	// is a string, several files are an array of strings.
	RuleType Rule = "type"
	// RuleTransferMode: the value is sent in a transfer mode the argument
	// does not take (x-mcp-file transferModes, mcpfile tag transfer=): a
	// data: URI where only uploaded files are taken, or an uploaded file's
	// URI (mcp-file:) where only data: URIs are, or on a server that serves
	// no uploads.
	RuleTransferMode Rule = "transferModes"
	// RuleFileURI: the value is an uploaded file's URI (mcp-file:) that
	// does not name a file this caller may use: malformed, altered, issued
	// by another server or to another caller, expired, or with no upload
	// behind it. Such a URI is never treated as a path or fetched.
	RuleFileURI Rule = "fileURI"
	// RuleForm: a file that arrives as a host's object (mcpfile tag form=:
	// an Odeus FileData object, a ChatGPT file object) is malformed: a
	// member missing or of the wrong type, invalid base64, a size that is
	// not the decoded size, or a file the server would not fetch.
	RuleForm Rule = "form"
)

// Error is a file argument that broke a rule. Its Error text is written for
// the model that sent the value: one sentence that names the argument and the
// rule, with the figures and what is allowed, in the form of SEP-2356's
// example:
//
//	Argument 'image' exceeds maxSize: received 15728640 bytes, limit is 5242880.
//
// The text never contains file bytes, and nothing of the value that is not
// first checked to be a scheme or media-type token; such tokens are quoted
// and truncated.
type Error struct {
	Arg  string // the argument, e.g. "image" or "documents[1]"
	Rule Rule

	// Received is the decoded size in bytes (RuleMaxSize; -1 for a
	// download stopped at the limit) or the number of files (RuleMaxFiles,
	// RuleMinFiles); Limit is the limit it broke.
	Received int64
	Limit    int64

	// MediaType is the lower-cased type/subtype the URI declared
	// (RuleMediaType, RuleContent).
	MediaType string
	// Allowed is the accept list, extensions left out (RuleMediaType).
	Allowed []string
	// Detected is what the content check found the bytes to be, e.g.
	// "text/plain" or "application/octet-stream" (RuleContent).
	Detected string
	// Scheme is the lower-cased scheme of a non-data: URI, truncated, or
	// "" when the value had none (RuleScheme).
	Scheme string
	// TransferModes are the argument's transfer modes when they list
	// "upload" (RuleScheme): what it accepts instead.
	TransferModes []string
	// Reason says what is wrong with the form of the URI (RuleURIForm),
	// what was received instead of a URI with a scheme (RuleScheme, e.g.
	// "an empty string"), or what JSON value was received and what was
	// wanted (RuleType), the transfer mode broken and what to send instead
	// (RuleTransferMode, a whole predicate: "is a data: URI, but …"), why
	// a file URI cannot be used (RuleFileURI), what object was expected
	// and what is wrong with it (RuleForm: "FileData object: …"), or what
	// to do about bytes that are not of their media type when the sender
	// did not declare it, a host did (RuleContent; "" for "send … or
	// declare the real media type"). It is written by this module and
	// holds no part of the value.
	Reason string
	// Code is the machine-readable reason of a RuleFileURI refusal, from
	// the transfer layer that resolved the URI: one of package
	// transfer/wire's Reason constants ("expired", "unauthorized",
	// "notFound", "malformed", "digestMismatch"), which a refusal in the
	// [RefuseWithError] form carries as its data.reason (see
	// [RefusalReason]). Empty means the rule's name, "fileURI".
	Code string
}

const maxEcho = 64 // the longest token an error echoes

// echo quotes s, cut to maxEcho bytes at a character boundary, for an
// error text.
func echo(s string) string {
	if len(s) > maxEcho {
		s = text.Cut(s, maxEcho) + "…"
	}
	return strconv.Quote(s)
}

// Error returns the text the model sees.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("Argument '")
	b.WriteString(e.Arg)
	b.WriteString("' ")
	switch e.Rule {
	case RuleMaxSize:
		b.WriteString("exceeds maxSize: received ")
		if e.Received < 0 { // a download stopped at the limit
			b.WriteString("more than ")
			b.WriteString(strconv.FormatInt(e.Limit, 10))
		} else {
			b.WriteString(strconv.FormatInt(e.Received, 10))
		}
		b.WriteString(" bytes, limit is ")
		b.WriteString(strconv.FormatInt(e.Limit, 10))
	case RuleMaxFiles:
		b.WriteString("exceeds maxFiles: received ")
		b.WriteString(strconv.FormatInt(e.Received, 10))
		b.WriteString(" files, limit is ")
		b.WriteString(strconv.FormatInt(e.Limit, 10))
	case RuleMinFiles:
		b.WriteString("has fewer files than minFiles: received ")
		b.WriteString(strconv.FormatInt(e.Received, 10))
		b.WriteString(" files, minimum is ")
		b.WriteString(strconv.FormatInt(e.Limit, 10))
	case RuleType:
		b.WriteString("has the wrong JSON type: ")
		b.WriteString(e.Reason)
	case RuleMediaType:
		b.WriteString("has a media type that accept does not allow: received ")
		b.WriteString(echo(e.MediaType))
		b.WriteString(", allowed are ")
		b.WriteString(strings.Join(e.Allowed, ", "))
	case RuleContent:
		b.WriteString("fails the content check: declared ")
		b.WriteString(echo(e.MediaType))
		b.WriteString(" but the bytes are ")
		b.WriteString(content.Describe(e.Detected))
		b.WriteString("; ")
		if e.Reason != "" { // the sender did not choose the media type
			b.WriteString(e.Reason)
			break
		}
		b.WriteString("send ")
		if content.IsTextual(e.MediaType) {
			b.WriteString("text")
		} else {
			b.WriteString(e.MediaType)
			b.WriteString(" data")
		}
		b.WriteString(" or declare the real media type")
	case RuleScheme:
		inline, upload := true, false
		if len(e.TransferModes) > 0 {
			inline, upload = slices.Contains(e.TransferModes, "inline"), slices.Contains(e.TransferModes, "upload")
		}
		switch {
		case upload && !inline:
			b.WriteString("is not a file URI: received ")
		case upload:
			b.WriteString("is not a data: URI or a file URI: received ")
		default:
			b.WriteString("is not a data: URI: received ")
		}
		switch {
		case e.Scheme != "":
			s := e.Scheme
			if len(s) > maxEcho {
				s = text.Cut(s, maxEcho) + "…"
			}
			b.WriteString("scheme ")
			b.WriteString(strconv.Quote(s + ":"))
		case e.Reason != "":
			b.WriteString(e.Reason)
		default:
			b.WriteString("a value without a scheme")
		}
		switch {
		case upload && !inline:
			b.WriteString(", only the mcp-file: URIs of files/authorizeUpload are accepted")
		case upload:
			b.WriteString(", only data: URIs and the mcp-file: URIs of files/authorizeUpload are accepted")
		default:
			b.WriteString(", only data: URIs are accepted")
		}
	case RuleTransferMode:
		b.WriteString(e.Reason)
	case RuleFileURI:
		b.WriteString("is not a usable file URI: ")
		b.WriteString(e.Reason)
	case RuleForm:
		b.WriteString("is not a valid ")
		b.WriteString(e.Reason)
	case RuleURIForm:
		b.WriteString("is not a valid data: URI: ")
		b.WriteString(e.Reason)
		b.WriteString("; the form is data:[<mediatype>][;base64],<data>")
	default:
		b.WriteString("breaks rule ")
		b.WriteString(echo(string(e.Rule)))
	}
	b.WriteByte('.')
	return b.String()
}

// typeError is the RuleType error for a file argument whose JSON value t
// is not what its property wants (descriptor.Prop.Want).
func typeError(arg string, t []byte, want string) *Error {
	return &Error{Arg: arg, Rule: RuleType, Reason: "received " + jsonwalk.Kind(t) + ", want " + want}
}
