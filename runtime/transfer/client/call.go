package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// A Mode says how [CallTool], [ToolArguments] and [FormContent] send a
// local file.
type Mode string

// The modes.
const (
	// ModeAuto (or "") sends a file inline, as a data: URI, up to
	// CallOptions.InlineMax bytes where its field allows both, and
	// uploads larger ones; a field that allows one mode gets that one. A
	// file meant for an upload goes inline after all when the server
	// answers files/authorizeUpload with -32601 (method not found) and
	// the field allows it.
	ModeAuto Mode = "auto"
	// ModeInline sends every file inline; a field that takes uploads only
	// is an error.
	ModeInline Mode = "inline"
	// ModeUpload uploads every file; a field that takes data: URIs only is
	// an error.
	ModeUpload Mode = "upload"
)

// DefaultInlineMax is CallOptions.InlineMax's default: in ModeAuto, files
// of up to 1 MiB go inline where the field also takes uploads.
const DefaultInlineMax = 1 << 20

// MaxInline is the largest file sent inline: its data: URI is held in
// memory whole, as the message that carries it is.
const MaxInline = 256 << 20

// A LocalFile is a file on disk for a file field (a property with
// x-mcp-file or x-mcpfile-form, or an array whose items have it).
type LocalFile struct {
	// Path is the file's path. It must be a regular file.
	Path string
	// MediaType is the file's media type, such as "application/pdf". Empty
	// means the type of its extension (mime.TypeByExtension), else the
	// one its first 512 bytes show (http.DetectContentType); without
	// parameters either way.
	MediaType string
}

// CallOptions configure [CallTool], [ToolArguments] and [FormContent].
// The zero value (and a nil *CallOptions) is ready to use.
type CallOptions struct {
	// Mode is how files travel (ModeAuto when empty).
	Mode Mode
	// InlineMax is the largest file ModeAuto sends inline where the field
	// also takes uploads (0: DefaultInlineMax).
	InlineMax int64
	// Upload configures uploads (set Upload.AllowHTTP for a server on
	// plain http://).
	Upload Options
	// Sent, when not nil, is called for each file once it is sent:
	// inline (its data: URI built) or uploaded. A host can show it (SEP-2631:
	// clients should surface where file bytes go).
	Sent func(SentFile)
}

// A SentFile is a local file sent for a field.
type SentFile struct {
	// Field is the property the file is for.
	Field string
	// Path is the LocalFile's path; MediaType the type declared for it;
	// Size its length in bytes.
	Path      string
	MediaType string
	Size      int64
	// Uploaded: the file was uploaded (SEP-2631) and URI is its file URI;
	// otherwise it went inline as a data: URI.
	Uploaded bool
	URI      string
	// Fallback: ModeAuto meant to upload the file, but the server answered
	// files/authorizeUpload with -32601, so it went inline.
	Fallback bool
	// Form is "filedata" when the file went inline as an Odeus FileData
	// object (the field's x-mcpfile-form), "" for a data: URI or a file URI.
	Form string
}

// ErrArguments is the error (for errors.Is) of values and files that do
// not fit the schema: a name the schema does not have, a file for a
// property that takes none, a file that breaks its field's accept,
// maxSize, maxItems or transferModes, a file for a ChatGPT file object
// (which names a URL, not bytes), a required property left out, a file
// that cannot be read. Nothing was sent.
var ErrArguments = errors.New("transfer/client: the arguments do not fit the schema")

// An argError is an error that is ErrArguments.
type argError struct{ msg string }

func (e *argError) Error() string        { return "transfer/client: " + e.msg }
func (e *argError) Is(target error) bool { return target == ErrArguments }

func argErr(format string, args ...any) error { return &argError{fmt.Sprintf(format, args...)} }

// FindTool returns the tool of cs named name, from tools/list (all its
// pages). An unknown name is an error that lists the tools there are.
func FindTool(ctx context.Context, cs *mcp.ClientSession, name string) (*mcp.Tool, error) {
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("transfer/client: tools/list: %w", err)
		}
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	has := "it has none"
	if len(names) > 0 {
		has = "it has " + strings.Join(names, ", ")
	}
	return nil, fmt.Errorf("transfer/client: the server has no tool %q (%s)", name, has)
}

// CallTool calls tool (from tools/list; see [FindTool]) on cs with values
// and local files for its file fields, as [ToolArguments] builds them,
// and returns the result. A tool whose answer is an isError result is no
// error; a refused file URI or a JSON-RPC refusal (-32602) is.
//
// The files a result holds are found by [Outputs] and saved, verified,
// by [Save].
func CallTool(ctx context.Context, cs *mcp.ClientSession, tool *mcp.Tool, values map[string]any, files map[string][]LocalFile, o *CallOptions) (*mcp.CallToolResult, error) {
	args, err := ToolArguments(ctx, cs, tool, values, files, o)
	if err != nil {
		return nil, err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("transfer/client: tools/call %q: %w", tool.Name, err)
	}
	return res, nil
}

// ToolArguments builds the arguments of a call of tool: values as they
// are, and for each field named in files its files, checked against the
// field's x-mcp-file and then sent inline or uploaded (see
// [CallOptions.Mode]), as data: URIs or file URIs; a single file for a
// property that takes one, an array for an array.
//
// A field in a host's shape (x-mcpfile-form, mcpfile tag form=) gets the
// shape its schema declares: for form "filedata", an Odeus FileData
// object, {"fileName", "mimeType", "base64", "size", "lastModified"},
// always inline (the file's bytes are in it), with the same checks. A
// ChatGPT file object (form "openai") names a URL the server downloads
// the file from, so no local file can be sent to it: a file for one is
// an [ErrArguments] that says so; give such a property a value,
// {"download_url": …, "file_id": …}, for a URL the server's fetcher
// allows.
//
// Everything is checked before anything is sent, each failure an
// [ErrArguments] that says what and why: every name is a property of the
// input schema; files go only to file fields, one to a single field, at
// most maxItems (and at least minItems) to an array; each file is a
// regular file of a media type accept allows (extension entries are
// picker hints, as SEP-2356 says: the media type decides) and of at most
// maxSize bytes; the mode it would travel in is one its transferModes
// lists; every required property is given. Then the files are sent, in
// name order. An upload's failure (a refusal of files/authorizeUpload,
// whose data wire.ErrorDataOf reads, an endpoint's *StatusError) is
// returned wrapped, naming the field.
//
// A server that does not serve files/authorizeUpload answers -32601,
// and ModeAuto then sends the file inline where the field allows it. A
// go-sdk server on protocol 2025-11-25 over streamable HTTP answers an
// unknown method with HTTP 400 instead, which ends the session: call
// such a server with ModeInline.
func ToolArguments(ctx context.Context, cs *mcp.ClientSession, tool *mcp.Tool, values map[string]any, files map[string][]LocalFile, o *CallOptions) (map[string]any, error) {
	return build(ctx, cs, fmt.Sprintf("tool %q", tool.Name), tool.InputSchema, values, files, o)
}

// FormContent builds the content of the answer to an elicitation form
// whose requestedSchema is schema (an elicitation handler's
// req.Params.RequestedSchema), as [ToolArguments] builds a tool's
// arguments: the form's file fields (SEP-2356) get the files, checked and
// sent inline or uploaded.
func FormContent(ctx context.Context, cs *mcp.ClientSession, schema any, values map[string]any, files map[string][]LocalFile, o *CallOptions) (map[string]any, error) {
	return build(ctx, cs, "the form", schema, values, files, o)
}

// A schema is what ToolArguments reads of an object schema: its
// properties' names, the required ones, and its file fields.
type schema struct {
	props    []string // sorted
	required []string
	fields   map[string]*field
}

// A field is a file field: a property with x-mcp-file or
// x-mcpfile-form, or an array whose items have it. file.Form is the
// x-mcpfile-form's form, "" for x-mcp-file.
type field struct {
	name               string
	array              bool
	minItems, maxItems int // maxItems -1: none
	file               descriptor.File
}

// readSchema reads the object schema s (a tool's input schema, a form's
// requested schema, in any form json.Marshal takes). A client reads what
// it understands: a property whose x-mcp-file (or x-mcpfile-form) is not
// an object of accept, maxSize and transferModes is an error only once a
// file is given for it (the problems readSchema returns, by property).
func readSchema(s any) (*schema, map[string]string, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("the schema: %v", err)
	}
	var obj struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, nil, fmt.Errorf("the schema is not a JSON object of properties: %v", err)
	}
	sc := &schema{required: obj.Required, fields: map[string]*field{}}
	problems := map[string]string{}
	for name, p := range obj.Properties {
		sc.props = append(sc.props, name)
		var m map[string]json.RawMessage
		if json.Unmarshal(p, &m) != nil {
			continue
		}
		f := &field{name: name, maxItems: -1}
		kw, form, ok := fileKeyword(m)
		if !ok {
			var items map[string]json.RawMessage
			json.Unmarshal(m["items"], &items)
			if kw, form, ok = fileKeyword(items); !ok {
				continue
			}
			f.array = true
			var n struct{ MinItems, MaxItems *int }
			json.Unmarshal(p, &n)
			if n.MaxItems != nil && *n.MaxItems >= 0 {
				f.maxItems = *n.MaxItems
			}
			if n.MinItems != nil && *n.MinItems > 0 {
				f.minItems = *n.MinItems
			}
		}
		key := "x-mcp-file"
		if form {
			key = "x-mcpfile-form"
		}
		err := json.Unmarshal(kw, &f.file)
		if !form {
			f.file.Form = "" // a member of x-mcpfile-form only
		}
		switch {
		case kw == nil:
			problems[name] = "it has both x-mcp-file and x-mcpfile-form (want one)"
		case err != nil:
			problems[name] = fmt.Sprintf("its %s is not an object of accept, maxSize and transferModes (%v)", key, err)
		case f.file.MaxSize < 0:
			problems[name] = fmt.Sprintf("its %s has maxSize %d", key, f.file.MaxSize)
		case len(f.file.TransferModes) == 0 && strings.Contains(string(kw), `"transferModes"`):
			problems[name] = fmt.Sprintf("its %s has an empty transferModes (want inline, upload or both)", key)
		case form && f.file.Form != descriptor.FileData && f.file.Form != descriptor.OpenAI:
			problems[name] = fmt.Sprintf("its x-mcpfile-form has form %s (this client knows %s and %s)", quoteShort(f.file.Form), descriptor.FileData, descriptor.OpenAI)
		}
		sc.fields[name] = f
	}
	slices.Sort(sc.props)
	return sc, problems, nil
}

// fileKeyword returns the file keyword of the schema m: its x-mcp-file,
// else its x-mcpfile-form (form true); ok is false when it has neither.
// A schema with both has kw nil (a problem readSchema reports).
func fileKeyword(m map[string]json.RawMessage) (kw json.RawMessage, form, ok bool) {
	file, isFile := m["x-mcp-file"]
	host, isForm := m["x-mcpfile-form"]
	switch {
	case isFile && isForm:
		return nil, false, true
	case isFile:
		return file, false, true
	case isForm:
		return host, true, true
	}
	return nil, false, false
}

// names lists the properties of s for an error, file fields apart.
func (s *schema) names() string {
	if len(s.props) == 0 {
		return "it takes none"
	}
	var values, files []string
	for _, n := range s.props {
		if s.fields[n] != nil {
			files = append(files, n)
		} else {
			values = append(values, n)
		}
	}
	var parts []string
	if len(values) > 0 {
		parts = append(parts, "values "+strings.Join(values, ", "))
	}
	if len(files) > 0 {
		parts = append(parts, "files "+strings.Join(files, ", "))
	}
	return "it takes " + strings.Join(parts, "; ")
}

// build builds the values of the object schema sc of what (a tool's
// arguments, a form's content) from values and files.
func build(ctx context.Context, cs *mcp.ClientSession, what string, sc any, values map[string]any, files map[string][]LocalFile, o *CallOptions) (map[string]any, error) {
	if o == nil {
		o = new(CallOptions)
	}
	switch o.Mode {
	case "", ModeAuto, ModeInline, ModeUpload:
	default:
		return nil, argErr("mode %q: want auto, inline or upload", o.Mode)
	}
	s, problems, err := readSchema(sc)
	if err != nil {
		return nil, argErr("%s: %v", what, err)
	}

	// Check everything before sending anything.
	for _, name := range slices.Sorted(mapKeys(values)) {
		switch {
		case !slices.Contains(s.props, name):
			return nil, argErr("%s has no argument %q (%s)", what, name, s.names())
		case files[name] != nil:
			return nil, argErr("argument %q is given both a value and files", name)
		}
	}
	var locals []*local
	for _, name := range slices.Sorted(mapKeys(files)) {
		fs := files[name]
		f := s.fields[name]
		switch {
		case !slices.Contains(s.props, name):
			return nil, argErr("%s has no argument %q (%s)", what, name, s.names())
		case f == nil:
			return nil, argErr("argument %q is not a file argument (no x-mcp-file): give it a value", name)
		case problems[name] != "":
			return nil, argErr("argument %q cannot be given a file: %s", name, problems[name])
		case f.file.Form == descriptor.OpenAI:
			return nil, argErr("argument %q takes a ChatGPT file object (x-mcpfile-form openai): a URL the server downloads the file from, not the file's bytes, so a local file cannot be sent to it; "+
				`give it a value instead, {"download_url": URL, "file_id": ID}, with a URL the server's fetcher allows, or send the file to a field that takes data: URIs or FileData objects`, name)
		case len(fs) == 0:
			return nil, argErr("argument %q is given no file", name)
		case !f.array && len(fs) > 1:
			return nil, argErr("argument %q takes one file, and is given %d", name, len(fs))
		case f.maxItems >= 0 && len(fs) > f.maxItems:
			return nil, argErr("argument %q takes at most %d files (maxItems), %d are given", name, f.maxItems, len(fs))
		case len(fs) < f.minItems:
			return nil, argErr("argument %q takes at least %d files (minItems), %d are given", name, f.minItems, len(fs))
		}
		for _, lf := range fs {
			l, err := open(f, lf, o)
			if err != nil {
				return nil, err
			}
			locals = append(locals, l)
		}
	}
	for _, r := range s.required {
		if _, ok := values[r]; !ok && files[r] == nil {
			kind := "a value"
			if s.fields[r] != nil {
				kind = "a file"
			}
			return nil, argErr("%s requires argument %q (%s)", what, r, kind)
		}
	}

	out := make(map[string]any, len(values)+len(files))
	for k, v := range values {
		out[k] = v
	}
	uris := map[string][]any{}
	for _, l := range locals {
		u, err := l.send(ctx, cs, o)
		if err != nil {
			return nil, err
		}
		uris[l.field.name] = append(uris[l.field.name], u)
	}
	for name, us := range uris {
		if s.fields[name].array {
			out[name] = us
		} else {
			out[name] = us[0]
		}
	}
	return out, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A local is a LocalFile checked against its field, with the mode it
// goes in.
type local struct {
	LocalFile
	field   *field
	size    int64
	upload  bool
	modTime time.Time
}

// open checks lf against its field f and decides how it goes.
func open(f *field, lf LocalFile, o *CallOptions) (*local, error) {
	name := f.name
	fi, err := os.Stat(lf.Path)
	if err != nil {
		return nil, argErr("argument %q: %v", name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, argErr("argument %q: %s is not a regular file", name, lf.Path)
	}
	l := &local{LocalFile: lf, field: f, size: fi.Size()}
	if l.MediaType == "" {
		if l.MediaType, err = mediaTypeOf(lf.Path); err != nil {
			return nil, argErr("argument %q: %v", name, err)
		}
	} else if l.MediaType, err = dataMediaType(l.MediaType); err != nil {
		return nil, argErr("argument %q: media type %q of %s: %v", name, lf.MediaType, lf.Path, err)
	}
	fd := f.file
	if !fd.Accepts(l.MediaType) {
		return nil, argErr("argument %q accepts %s; %s is %s", name, strings.Join(fd.Accept, ", "), lf.Path, l.MediaType)
	}
	if fd.MaxSize > 0 && l.size > fd.MaxSize {
		return nil, argErr("argument %q takes files of at most %d bytes (maxSize); %s is %d bytes", name, fd.MaxSize, lf.Path, l.size)
	}
	inline := fd.AllowsInline()
	upload := fd.AllowsUpload()
	modes := strings.Join(fd.TransferModes, ", ")
	limit := o.InlineMax
	if limit <= 0 {
		limit = DefaultInlineMax
	}
	switch {
	case fd.Form == descriptor.FileData && !inline:
		return nil, argErr("argument %q takes FileData objects, which carry the file's bytes, yet its transferModes (%s) leave out inline: no file can be sent to it", name, modes)
	case fd.Form == descriptor.FileData && o.Mode == ModeUpload:
		return nil, argErr("argument %q takes a FileData object, which carries the file's bytes (x-mcpfile-form filedata): it cannot be uploaded (use mode auto or inline)", name)
	case !inline && !upload:
		return nil, argErr("argument %q takes files by transferModes %s only; this client sends inline and upload", name, modes)
	case o.Mode == ModeInline && !inline:
		return nil, argErr("argument %q is upload only (transferModes %s): it cannot go inline", name, modes)
	case o.Mode == ModeUpload && !upload:
		return nil, argErr("argument %q is inline only (transferModes %s): it cannot be uploaded", name, modes)
	case o.Mode == ModeUpload, !inline:
		l.upload = true
	case o.Mode == ModeInline, !upload:
		l.upload = false
	default: // auto, both allowed
		l.upload = l.size > limit
	}
	if !l.upload && l.size > MaxInline {
		return nil, argErr("argument %q: %s is %d bytes, more than the %d a file sent inline may have here (the message holds it whole), and the argument is inline only", name, lf.Path, l.size, MaxInline)
	}
	l.modTime = fi.ModTime()
	return l, nil
}

// dataMediaType is the media type s as a data: URI writes it: type/subtype
// lower-cased, then each parameter as ;name=value, in name order, without
// spaces (RFC 2397); a value must be a token.
func dataMediaType(s string) (string, error) {
	mt, params, err := mime.ParseMediaType(s)
	if err != nil || !strings.Contains(mt, "/") || !headerValue(s) {
		return "", errors.New("not a media type (want type/subtype, such as application/pdf)")
	}
	out := mt
	for _, k := range slices.Sorted(mapKeys(params)) {
		v := params[k]
		if v == "" || !headerName(v) {
			return "", fmt.Errorf("parameter %s: a data: URI takes token values only", k)
		}
		out += ";" + k + "=" + v
	}
	return out, nil
}

// mediaTypeOf is the media type of the file at path: the one of its
// extension, else the one its first bytes show; without parameters.
func mediaTypeOf(path string) (string, error) {
	mt := mime.TypeByExtension(filepath.Ext(path))
	if mt == "" {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		head := make([]byte, sniffLen)
		n, err := io.ReadFull(f, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return "", err
		}
		mt = http.DetectContentType(head[:n])
	}
	t, _, err := mime.ParseMediaType(mt)
	if err != nil {
		return "application/octet-stream", nil
	}
	return t, nil
}

// send sends the file as its mode says and returns the value for the
// argument: a URI, or for a field of form filedata an Odeus FileData
// object (fileName, mimeType, base64, size, lastModified). An
// upload the server does not serve (-32601) goes inline in ModeAuto,
// where the field allows it.
func (l *local) send(ctx context.Context, cs *mcp.ClientSession, o *CallOptions) (any, error) {
	name := l.field.name
	sent := SentFile{Field: name, Path: l.Path, MediaType: l.MediaType, Size: l.size}
	if l.upload {
		fv, err := UploadPath(ctx, cs, l.Path, l.MediaType, &o.Upload)
		if err == nil {
			sent.Uploaded, sent.URI = true, fv.URI
			if o.Sent != nil {
				o.Sent(sent)
			}
			return fv.URI, nil
		}
		var je *jsonrpc.Error
		unsupported := errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound
		switch {
		case unsupported && o.Mode == ModeUpload:
			return "", fmt.Errorf("transfer/client: argument %q: the server does not serve %s (-32601), and the mode is upload", name, authorize)
		case unsupported && !l.field.file.AllowsInline():
			return "", fmt.Errorf("transfer/client: argument %q: the server does not serve %s (-32601), and the field takes files by upload only (transferModes %s)", name, authorize, strings.Join(l.field.file.TransferModes, ", "))
		case unsupported && l.size > MaxInline:
			return "", fmt.Errorf("transfer/client: argument %q: the server does not serve %s (-32601), and %s is %d bytes, more than the %d a file sent inline may have here", name, authorize, l.Path, l.size, MaxInline)
		case !unsupported:
			return "", fmt.Errorf("transfer/client: argument %q: uploading %s: %w", name, l.Path, err)
		}
		sent.Fallback = true
	}
	b, err := os.ReadFile(l.Path)
	if err != nil {
		return "", fmt.Errorf("transfer/client: argument %q: %w", name, err)
	}
	if int64(len(b)) != l.size {
		return "", fmt.Errorf("transfer/client: argument %q: %s changed size after it was checked (%d bytes, then %d)", name, l.Path, l.size, len(b))
	}
	if l.field.file.Form == descriptor.FileData {
		sent.Form = descriptor.FileData
		if o.Sent != nil {
			o.Sent(sent)
		}
		return map[string]any{
			"fileName":     filepath.Base(l.Path),
			"mimeType":     l.MediaType,
			"base64":       base64.StdEncoding.EncodeToString(b),
			"size":         l.size,
			"lastModified": l.modTime.UTC().Format(time.RFC3339),
		}, nil
	}
	if o.Sent != nil {
		o.Sent(sent)
	}
	return "data:" + l.MediaType + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
