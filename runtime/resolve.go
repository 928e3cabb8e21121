package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// This file resolves the uploaded files (SEP-2631 file URIs, mcp-file:) of
// a decoded value. The decoder, which has no context, leaves each such
// argument as a File that only refers to its URI; AddTool and Elicit then
// resolve every reference, before the handler runs, through the resolver
// that transfer.Register put in the request's context: the URI is checked,
// the stored file is checked against the argument's x-mcp-file exactly as
// a data: URI's bytes are, and the File becomes a reader of the store.

// A filePlan lists the file fields of a struct type, to find the
// references in a decoded value without walking anything else.
type filePlan struct {
	fields []planField
}

type planField struct {
	index []int // for reflect.Value.FieldByIndexErr
	arg   string
	kind  fieldKind
	file  descriptor.File
}

type fieldKind int

const (
	single fieldKind = iota
	pointer
	slice
)

var (
	fileType = reflect.TypeFor[File]()
	plans    sync.Map // reflect.Type → *filePlan
)

// planFor returns the plan of struct type t, whose generated schema is
// schema; a type without file fields has an empty plan.
func planFor(t reflect.Type, schema json.RawMessage) (*filePlan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*filePlan), nil
	}
	d, err := descriptor.For(schema)
	if err != nil {
		return nil, err
	}
	p := new(filePlan)
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			var k fieldKind
			switch f.Type {
			case fileType:
				k = single
			case reflect.PointerTo(fileType):
				k = pointer
			case reflect.SliceOf(fileType):
				k = slice
			default:
				continue
			}
			if !f.IsExported() {
				continue
			}
			name := jsonName(f)
			prop := d.Props[name]
			if name == "" || prop == nil {
				continue
			}
			p.fields = append(p.fields, planField{index: f.Index, arg: name, kind: k, file: prop.File})
		}
	}
	v, _ := plans.LoadOrStore(t, p)
	return v.(*filePlan), nil
}

// jsonName is the member name encoding/json gives field f, "" when it
// skips the field.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		return f.Name
	}
	return name
}

// openAIFields returns the file fields of p that take ChatGPT file
// objects, for the tool's openai/fileParams.
func (p *filePlan) openAIFields() []string {
	var names []string
	for _, f := range p.fields {
		if f.file.Form == descriptor.OpenAI {
			names = append(names, f.arg)
		}
	}
	return names
}

// uploadsOnly returns the file fields of p that take uploaded files only.
func (p *filePlan) uploadsOnly() []string {
	var names []string
	for _, f := range p.fields {
		if !f.file.AllowsInline() {
			names = append(names, f.arg)
		}
	}
	return names
}

// resolve resolves every file reference in *v (a pointer to a value of
// p's type), in field order, fetching a host's file with ft (nil: the
// server fetches nothing). The first rejection is returned as it is: an
// error written for the model.
func (p *filePlan) resolve(ctx context.Context, ft *fetch.Fetcher, v reflect.Value) error {
	if len(p.fields) == 0 {
		return nil
	}
	v = v.Elem()
	for i := range p.fields {
		pf := &p.fields[i]
		fv, err := v.FieldByIndexErr(pf.index)
		if err != nil { // behind a nil embedded pointer: not set
			continue
		}
		switch pf.kind {
		case single:
			if err := resolveOne(ctx, ft, pf.arg, fv.Addr().Interface().(*File), pf.file); err != nil {
				return err
			}
		case pointer:
			if fp := fv.Interface().(*File); fp != nil {
				if err := resolveOne(ctx, ft, pf.arg, fp, pf.file); err != nil {
					return err
				}
			}
		case slice:
			files := fv.Interface().([]File)
			for j := range files {
				if err := resolveOne(ctx, ft, pf.arg+"["+strconv.Itoa(j)+"]", &files[j], pf.file); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolveOne resolves *f when it refers to an uploaded file, or to one
// to fetch with ft (nil in an elicitation, or on a server without a
// fetcher).
func resolveOne(ctx context.Context, ft *fetch.Fetcher, arg string, f *File, d descriptor.File) error {
	c := f.content
	if c != nil && c.fetch != nil {
		return resolveFetch(ctx, ft, arg, f, d)
	}
	if c != nil && c.inline != nil {
		return resolveInline(ctx, arg, f)
	}
	if c == nil || c.ref == nil {
		return nil
	}
	r, extra := hook.ResolverFrom(ctx)
	if r == nil {
		return &Error{Arg: arg, Rule: RuleTransferMode, Reason: "is an uploaded file's URI (mcp-file:), but this server takes no uploaded files: send the file inline, as a data: URI"}
	}
	res, err := r.Resolve(ctx, extra, arg, *c.ref, d)
	if err != nil {
		return err
	}
	// The content is this File's own: the decoder made it for this value,
	// and no handler has seen it yet.
	if len(d.TransferModes) == 0 {
		// A field that did not ask for uploads gets the file as an inline
		// one: in memory, for File.Bytes, within the same maxSize.
		data, err := readAll(res)
		if err != nil {
			return &readError{arg}
		}
		*c = fileContent{mem: &data, release: res.Release}
	} else {
		*c = fileContent{ext: &extFile{size: res.Size, open: res.Open}, release: res.Release}
	}
	f.MediaType, f.Params = res.MediaType, res.Params
	if f.Name == "" { // a companion filename argument, when there is one, wins
		f.Name = res.Name
	}
	return nil
}

// readAll reads the whole of a resolved file.
func readAll(res hook.Resolved) ([]byte, error) {
	r, err := res.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data := make([]byte, res.Size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, err
	}
	return data, nil
}

// readError is the error of an uploaded file that resolved but could not
// be read.
type readError struct{ arg string }

func (e *readError) Error() string {
	return "Argument '" + e.arg + "' could not be read: the server's store failed; try again later."
}

// checkUploadsServed is AddTool's check that a tool whose files take
// uploaded files only is added to a server that serves uploads.
func checkUploadsServed(s *mcp.Server, p *filePlan) error {
	if names := p.uploadsOnly(); len(names) > 0 && !hook.Serves(s) {
		return &uploadsNotServed{names}
	}
	return nil
}

type uploadsNotServed struct{ names []string }

func (e *uploadsNotServed) Error() string {
	return "argument " + strings.Join(e.names, ", ") + " takes uploaded files only (transfer=upload), but the server does not serve files/authorizeUpload: call transfer.Register(server, …) before adding the tool that uses it"
}

// declareFiles records that s takes the files of schema, for the
// transfer layer's files/authorizeUpload.
func declareFiles(s *mcp.Server, schema json.RawMessage) error {
	d, err := descriptor.For(schema)
	if err != nil {
		return err
	}
	hook.AddSchema(s, d)
	return nil
}

// UseFetcher makes the tools of s take files that a host names by URL
// (mcpfile tag form=openai: ChatGPT's file objects, {download_url,
// file_id, …}) by fetching them with f, before the handler runs, and
// checking the bytes against the argument's x-mcpfile-form (accept,
// maxSize, content) as a data: URI's are. Without it, such a call gets an
// isError result that says the server does not fetch files. Fetching a URL
// a request names is a server-side request forgery risk: f's allow-list
// (see package fetch) is what keeps it to the hosts the author chose.
func UseFetcher(s *mcp.Server, f *fetch.Fetcher) {
	hook.SetFetcher(s, f)
}

// resolveFetch downloads the file *f refers to with ft, and checks it
// against d.
func resolveFetch(ctx context.Context, ft *fetch.Fetcher, arg string, f *File, d descriptor.File) error {
	ref := f.content.fetch
	what := "ChatGPT file object: "
	if ft == nil {
		return &Error{Arg: arg, Rule: RuleForm, Reason: what + "this server does not fetch files from URLs (download_url); send the file another way"}
	}
	limit := d.Limit(DefaultMaxSize)
	res, err := ft.Fetch(ctx, ref.url, limit)
	if err != nil {
		// Fixed texts: a fetch error may hold what the model should not
		// read (addresses a name resolves to, a redirect's signed URL).
		var why string
		switch {
		case errors.Is(err, fetch.ErrTooLarge):
			return &Error{Arg: arg, Rule: RuleMaxSize, Received: -1, Limit: limit}
		case errors.Is(err, fetch.ErrNotAllowed):
			why = "this server does not fetch from that download_url's scheme, host or port"
		case errors.Is(err, fetch.ErrPrivateAddress):
			why = "this server does not fetch from that host: it resolves to an address the server keeps to itself"
		case errors.Is(err, fetch.ErrRedirect):
			why = "the download_url redirects where this server does not fetch from"
		case errors.Is(err, fetch.ErrStatus):
			why = "the download_url's host answered with an error status"
		case errors.Is(err, fetch.ErrTimeout):
			why = "the download timed out"
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			why = "the download failed"
		}
		return &Error{Arg: arg, Rule: RuleForm, Reason: what + why}
	}
	mt, params := res.MediaType, res.Params
	if t, _, _ := strings.Cut(mt, "/"); t == "" || strings.Contains(mt, "*") {
		mt, params = "", nil // no media type, or a wildcard: none
	}
	if ref.mediaType != "" { // declared, and checked against accept when decoded
		if t, p, err := mime.ParseMediaType(ref.mediaType); err == nil {
			if p["charset"] == "" && params["charset"] != "" && t == mt {
				p["charset"] = params["charset"] // the server's, for the same type
			}
			mt, params = t, p
		}
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	// The checks of any file: media type, size, content.
	if err := checkFile(arg, d, mt, strings.ToLower(params["charset"]), int64(len(res.Body)), res.Body[:min(len(res.Body), content.SniffLen)]); err != nil {
		return err
	}
	data := res.Body
	*f.content = fileContent{mem: &data}
	if len(params) == 0 {
		params = nil
	}
	f.MediaType, f.Params = mt, params
	if f.Name == "" {
		f.Name = SanitizeName(ref.name)
	}
	return nil
}

// hostDeclaredType is the remedy of a ChatGPT file whose bytes are not of
// its media type: the host declared the type, not the model that called.
const hostDeclaredType = "the host, not the model, declared the media type of this attached file: ask the user to attach a file that really is of that type"

// checkFile checks a file that did not arrive as a data: URI (one fetched,
// or uploaded and resolved by the transfer layer through hook.CheckFile),
// sent for argument arg, against d: its media type mt (type/subtype,
// lower-cased) against accept, its size, and, unless d.NoSniff, its first
// bytes head against mt with charset; in that order, and with the errors a
// data: URI's checks give.
func checkFile(arg string, d descriptor.File, mt, charset string, size int64, head []byte) error {
	if !d.Accepts(mt) {
		return &Error{Arg: arg, Rule: RuleMediaType, MediaType: mt, Allowed: d.Allowed()}
	}
	if limit := d.Limit(DefaultMaxSize); size > limit {
		return &Error{Arg: arg, Rule: RuleMaxSize, Received: size, Limit: limit}
	}
	if !d.NoSniff {
		if detected, ok := content.Check(mt, charset, head); !ok {
			e := &Error{Arg: arg, Rule: RuleContent, MediaType: mt, Detected: detected}
			if d.Form == descriptor.OpenAI {
				e.Reason = hostDeclaredType
			}
			return e
		}
	}
	return nil
}
