// Package call is mcpfile call: it calls one tool of an MCP server with
// local files for its file arguments, and saves the files it returns.
//
// It reads the tool's input schema from tools/list. Each name=@path is
// checked against its argument's x-mcp-file (SEP-2356) before anything
// is sent: the file's media type against accept, its size against
// maxSize. It then goes inline, as a data: URI, or is uploaded
// (files/authorizeUpload and the upload its descriptor says, SEP-2631,
// through runtime/transfer/client), as the argument's transferModes and
// the file's size allow. The files of the result (FileValues in
// structuredContent, resource links and embedded resources of file URIs)
// are downloaded with files/authorizeDownload and verified against their
// declared size and digest.
package call

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
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// The transfer modes Options.Mode takes.
const (
	ModeAuto   = "auto"   // inline up to InlineMax, uploaded above, as the field allows
	ModeInline = "inline" // always inline (a field that is upload-only is an error)
	ModeUpload = "upload" // always uploaded (a field that is inline-only is an error)
)

// DefaultInlineMax is Options.InlineMax's default: files up to 1 MiB go
// inline in auto mode.
const DefaultInlineMax = 1 << 20

// MaxInline is the largest file sent inline: its data: URI is held in
// memory, as the message is.
const MaxInline = 256 << 20

// Options say how to send the files and what to do with the outputs.
type Options struct {
	// Mode is ModeAuto (""), ModeInline or ModeUpload.
	Mode string
	// InlineMax is the largest file auto mode sends inline where the field
	// allows an upload too (0: DefaultInlineMax).
	InlineMax int64
	// Upload configures uploads (its AllowHTTP lets them go to http://).
	Upload client.Options
	// Download configures downloads.
	Download client.DownloadOptions
	// Log receives one line per file sent or saved (nil: none).
	Log io.Writer
}

// NewClient returns a client that can send files/authorizeUpload and
// files/authorizeDownload, and declares SEP-2631's files capability
// (upload and download over https) under experimental.files: connect it
// over a transport client.WrapTransport wraps, which declares it where the SEP
// says and turns the file blocks of results into resource links the SDK
// can read.
//
// With forms, it answers the forms the server asks for (and declares
// elicitation); without, it declares none, and a server that needs one
// says so.
func NewClient(impl *mcp.Implementation, forms *Forms) (*mcp.Client, error) {
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": client.FilesCapability()}}}
	if forms != nil {
		opts.ElicitationHandler = forms.Handle
	}
	c := mcp.NewClient(impl, opts)
	if err := client.Enable(c); err != nil {
		return nil, err
	}
	return c, nil
}

// ErrUsage is the error (for errors.Is) of arguments that do not fit the
// tool: an unknown name, a file an argument does not allow, a value of
// the wrong type. Nothing was sent.
var ErrUsage = errors.New("the arguments do not fit the tool")

func usage(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Arguments builds the arguments of a call of tool from args: files are
// checked, then sent inline or uploaded.
func Arguments(ctx context.Context, cs *mcp.ClientSession, tool *mcp.Tool, args []Arg, o *Options) (map[string]any, error) {
	return build(ctx, cs, fmt.Sprintf("tool %q", tool.Name), tool.InputSchema, args, o)
}

// build builds the values of the object schema of what (a tool's
// arguments, a form's content) from args.
func build(ctx context.Context, cs *mcp.ClientSession, what string, schema any, args []Arg, o *Options) (map[string]any, error) {
	if o == nil {
		o = new(Options)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %v", what, err)
	}
	s, err := readSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	// Check everything before sending anything.
	files := map[string][]*local{}
	values := map[string]any{}
	for _, a := range args {
		if _, ok := s.props[a.Name]; !ok {
			return nil, usage("%s has no argument %q (%s)", what, a.Name, s.names())
		}
		f := s.files[a.Name]
		if a.Path == "" {
			if _, dup := values[a.Name]; dup || files[a.Name] != nil {
				return nil, usage("argument %q is given twice", a.Name)
			}
			v, err := s.value(a)
			if err != nil {
				return nil, usage("%v", err)
			}
			values[a.Name] = v
			continue
		}
		if f == nil {
			return nil, usage("argument %q is not a file argument (no x-mcp-file): give it as %s=value or %s:=json", a.Name, a.Name, a.Name)
		}
		if _, dup := values[a.Name]; dup || !f.array && files[a.Name] != nil {
			return nil, usage("argument %q takes one file, and is given twice", a.Name)
		}
		l, err := open(a, f, o)
		if err != nil {
			return nil, err
		}
		files[a.Name] = append(files[a.Name], l)
	}
	for name, ls := range files {
		if f := s.files[name]; f.maxItems >= 0 && len(ls) > f.maxItems {
			return nil, usage("argument %q takes at most %d files (maxItems), %d are given", name, f.maxItems, len(ls))
		}
	}
	for _, r := range s.required {
		if _, ok := values[r]; !ok && files[r] == nil {
			how := r + "=value"
			if s.files[r] != nil {
				how = r + "=@path"
			}
			return nil, usage("%s requires argument %q (give %s)", what, r, how)
		}
	}

	out := map[string]any{}
	for k, v := range values {
		out[k] = v
	}
	for name, ls := range files {
		var uris []any
		for _, l := range ls {
			u, err := l.send(ctx, cs, o)
			if err != nil {
				return nil, err
			}
			uris = append(uris, u)
		}
		if s.files[name].array {
			out[name] = uris
		} else {
			out[name] = uris[0]
		}
	}
	return out, nil
}

// A local is a file of the command line, checked against its argument.
type local struct {
	arg       Arg
	field     *field
	size      int64
	mediaType string
	mode      string // "inline" or "upload"
}

// open checks the file of a against its argument f and decides how it
// goes.
func open(a Arg, f *field, o *Options) (*local, error) {
	fi, err := os.Stat(a.Path)
	if err != nil {
		return nil, usage("argument %q: %v", a.Name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, usage("argument %q: %s is not a regular file", a.Name, a.Path)
	}
	l := &local{arg: a, field: f, size: fi.Size(), mediaType: a.MediaType}
	if l.mediaType == "" {
		if l.mediaType, err = mediaTypeOf(a.Path); err != nil {
			return nil, usage("argument %q: %v", a.Name, err)
		}
	}
	if !f.matches(l.mediaType, a.Path) {
		return nil, usage("argument %q accepts %s; %s is %s (name another type with %s=@%s;type=…, if it is one)", a.Name, strings.Join(f.accept, ", "), a.Path, l.mediaType, a.Name, a.Path)
	}
	if f.maxSize >= 0 && l.size > f.maxSize {
		return nil, usage("argument %q takes files of at most %d bytes (maxSize); %s is %d bytes", a.Name, f.maxSize, a.Path, l.size)
	}
	inline, upload := f.allows("inline"), f.allows("upload")
	if !inline && !upload {
		return nil, usage("argument %q takes files by transferModes %s only; call sends inline and upload", a.Name, strings.Join(f.modes, ", "))
	}
	limit := o.InlineMax
	if limit <= 0 {
		limit = DefaultInlineMax
	}
	switch o.Mode {
	case ModeInline:
		if !inline {
			return nil, usage("argument %q is upload only (transferModes %s): it cannot go inline", a.Name, strings.Join(f.modes, ", "))
		}
		l.mode = "inline"
	case ModeUpload:
		if !upload {
			return nil, usage("argument %q is inline only (transferModes %s): it cannot be uploaded", a.Name, strings.Join(f.modes, ", "))
		}
		l.mode = "upload"
	case ModeAuto, "":
		switch {
		case !upload:
			l.mode = "inline"
		case !inline || l.size > limit:
			l.mode = "upload"
		default:
			l.mode = "inline"
		}
	default:
		return nil, usage("mode %q: want auto, inline or upload", o.Mode)
	}
	if l.mode == "inline" && l.size > MaxInline {
		return nil, usage("argument %q: %s is %d bytes, more than the %d bytes a file sent inline may have here (the message holds it whole); the argument is inline only", a.Name, a.Path, l.size, MaxInline)
	}
	return l, nil
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
		head := make([]byte, 512)
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

// matches reports whether accept allows a file of mediaType at path:
// type/subtype without regard to case or parameters, type/* for any
// subtype, .ext for the file's extension. No accept allows every file.
func (f *field) matches(mediaType, path string) bool {
	if !f.hasAccept {
		return true
	}
	mt := strings.ToLower(mediaType)
	ext := strings.ToLower(filepath.Ext(path))
	for _, a := range f.accept {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "*/*" || a == mt:
			return true
		case strings.HasPrefix(a, ".") && a == ext:
			return true
		case strings.HasSuffix(a, "/*") && strings.HasPrefix(mt, strings.TrimSuffix(a, "*")):
			return true
		}
	}
	return false
}

// send sends the file as its mode says and returns the URI for the
// argument. An upload the server does not serve (-32601) falls back to
// inline in auto mode, where the field allows it.
func (l *local) send(ctx context.Context, cs *mcp.ClientSession, o *Options) (string, error) {
	if l.mode == "upload" {
		fv, err := client.UploadPath(ctx, cs, l.arg.Path, l.mediaType, &o.Upload)
		if err == nil {
			logf(o, "uploaded %s (%s, %d bytes) for %q: %s", l.arg.Path, l.mediaType, l.size, l.arg.Name, fv.URI)
			return fv.URI, nil
		}
		var je *jsonrpc.Error
		unsupported := errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound
		if !unsupported || o.Mode == ModeUpload || !l.field.allows("inline") || l.size > MaxInline {
			switch {
			case unsupported && o.Mode == ModeUpload:
				return "", fmt.Errorf("argument %q: the server does not serve files/authorizeUpload, and -mode is upload", l.arg.Name)
			case unsupported:
				return "", fmt.Errorf("argument %q: the server does not serve files/authorizeUpload, and the file cannot go inline", l.arg.Name)
			}
			return "", fmt.Errorf("argument %q: uploading %s: %w", l.arg.Name, l.arg.Path, err)
		}
		logf(o, "the server does not serve files/authorizeUpload: sending %s inline", l.arg.Path)
	}
	b, err := os.ReadFile(l.arg.Path)
	if err != nil {
		return "", fmt.Errorf("argument %q: %v", l.arg.Name, err)
	}
	if int64(len(b)) != l.size {
		return "", fmt.Errorf("argument %q: %s changed size while it was sent (%d bytes, then %d)", l.arg.Name, l.arg.Path, l.size, len(b))
	}
	logf(o, "sending %s (%s, %d bytes) inline for %q", l.arg.Path, l.mediaType, l.size, l.arg.Name)
	return "data:" + l.mediaType + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

func logf(o *Options, format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}
