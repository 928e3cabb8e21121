package runtime

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpfile/mcpfile/runtime/datauri"
)

// File is a decoded, validated file argument.
//
// A File never shows its bytes: it prints, logs and marshals as metadata
// (see [File.String], [File.Format], [File.LogValue] and [File.MarshalJSON]),
// because SEP-2356 requires file values to be treated as sensitive. This
// holds wherever fmt, log/slog or encoding/json can reach the File through
// its methods; fmt cannot call methods on a File held in an unexported
// struct field, so such a field prints the struct's raw contents.
type File struct {
	// MediaType is the lower-cased type/subtype of the URI, such as
	// "image/png", or RFC 2397's "text/plain" when the URI had none. It is
	// what the client declared, checked against accept and, for the types
	// the content check knows, against the bytes.
	MediaType string

	// Params are the other media-type parameters, names lower-cased, values
	// %-decoded, e.g. {"charset": "utf-8"}; nil when there are none. They
	// are advisory, and as sent: for a URI without a media type ("data:,…")
	// RFC 2397's default charset, US-ASCII, is not added (the content check
	// applies it); MediaType is then "text/plain".
	Params map[string]string

	// Name is an optional file name, sanitized by [SanitizeName]: filled by
	// generated code from a companion argument, or from a legacy name=
	// parameter of the URI. It is advisory and may be "".
	Name string

	// Data is the decoded bytes.
	Data []byte

	// UseRuntimeAddTool is always empty and never read. Its jsonschema tag
	// makes the SDK's schema inference fail for any type that holds a File,
	// so that registering such a type with mcp.AddTool, which would describe
	// the File as an object and reject every call, panics at registration
	// with a message that points to [AddTool].
	UseRuntimeAddTool struct{} `jsonschema:"mcpfile=runtime.File has no schema of its own: register tools whose arguments hold files with runtime.AddTool (mcpfilegen generates their schema), not mcp.AddTool; a File is not a tool output"`
}

// String returns the redacted form of f, e.g. "data:image/png;base64,[70 bytes]".
func (f File) String() string {
	return "data:" + f.MediaType + ";base64,[" + strconv.Itoa(len(f.Data)) + " bytes]"
}

// Format implements fmt.Formatter so that no verb prints f.Data: %v and %s
// print [File.String], %q quotes it, %+v adds field names, %#v prints Go
// syntax with the data replaced by a comment, and any other verb prints
// %!verb(runtime.File=…) with the redacted form. %+v and %#v escape
// control and format characters (such as U+202E) in the media type, the
// parameters and the name: %#v quotes every string, %+v quotes a parameter
// key or value that is not an RFC 2045 token, and the media type or name
// when it holds a character that is not printable.
func (f File) Format(s fmt.State, verb rune) {
	switch verb {
	case 'v':
		switch {
		case s.Flag('#'):
			fmt.Fprintf(s, "runtime.File{MediaType:%q, Params:%#v, Name:%q, Data:[]byte{/* %d bytes */}}",
				f.MediaType, f.Params, f.Name, len(f.Data))
		case s.Flag('+'):
			fmt.Fprintf(s, "{MediaType:%s Params:%s Name:%s Data:[%d bytes]}",
				printableText(f.MediaType), printableParams(f.Params), printableText(f.Name), len(f.Data))
		default:
			fmt.Fprint(s, f.String())
		}
	case 's':
		fmt.Fprint(s, f.String())
	case 'q':
		fmt.Fprint(s, strconv.Quote(f.String()))
	default:
		fmt.Fprintf(s, "%%!%c(runtime.File=%s)", verb, f.String())
	}
}

// LogValue implements slog.LogValuer: a File logs as a group of its media
// type, name (when set) and size, never its data; with the text handler
// that is file.mimeType=image/png file.size=70.
func (f File) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 3)
	attrs = append(attrs, slog.String("mimeType", f.MediaType))
	if f.Name != "" {
		attrs = append(attrs, slog.String("name", f.Name))
	}
	attrs = append(attrs, slog.Int("size", len(f.Data)))
	return slog.GroupValue(attrs...)
}

// fileJSON is File's JSON form: SEP-2631's FileValue fields, without the uri.
type fileJSON struct {
	MimeType string `json:"mimeType"`
	Name     string `json:"name,omitempty"`
	Size     int    `json:"size"`
}

// MarshalJSON implements json.Marshaler with metadata only, in SEP-2631
// FileValue's field names: {"mimeType":"image/png","name":"a.png","size":70}.
// The data is left out so that a File that ends up in a log, a trace or a
// structured result does not leak it; a server that means to return a file
// builds the content block itself (e.g. with [Encode]). File has no
// UnmarshalJSON: decoding goes through generated code or [DecodeJSON].
func (f File) MarshalJSON() ([]byte, error) {
	return json.Marshal(fileJSON{MimeType: f.MediaType, Name: f.Name, Size: len(f.Data)})
}

var (
	_ fmt.Stringer   = File{}
	_ fmt.Formatter  = File{}
	_ slog.LogValuer = File{}
	_ json.Marshaler = File{}
)

// printableText returns s as it is when every rune of it is printable
// (strconv.IsPrint), and quoted with Go escapes otherwise, so that a
// control, format or separator character in a value a File prints shows
// as an escape (\u202e) instead of acting on the text around it.
func printableText(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// printableParams formats media-type parameters as fmt's %v prints a map
// (map[charset:utf-8], keys sorted), except that a key or value that is
// not made of RFC 2045 token characters is quoted with Go escapes: a
// parameter prints on one line, without control or format characters, and
// cannot pass for the fields printed after it.
func printableParams(params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("map[")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tokenOrQuoted(k))
		b.WriteByte(':')
		b.WriteString(tokenOrQuoted(params[k]))
	}
	b.WriteByte(']')
	return b.String()
}

// tokenOrQuoted returns s as it is when it is a non-empty RFC 2045 token,
// and quoted with Go escapes otherwise.
func tokenOrQuoted(s string) string {
	if s == "" || !datauri.IsToken(s) {
		return strconv.Quote(s)
	}
	return s
}
