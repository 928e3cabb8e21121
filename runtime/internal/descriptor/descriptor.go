// Package descriptor is the one reader of the x-mcp-file keyword: it reads
// a generated object schema, once, into a typed description of its file
// properties (accept, maxSize, transferModes, the number of files, and the
// content-check switch, which the schema does not carry) that the decoder,
// the argument check, elicitation and the request size limit all read, so
// that what a client is told is what is enforced.
package descriptor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// File is the value of the x-mcp-file keyword of one file: the constraints
// a server declares and enforces.
type File struct {
	// Accept lists media types ("image/png"), wildcard subtypes ("image/*")
	// and dot-prefixed extensions (".pdf"), as in the HTML accept attribute.
	// See [File.Accepts] for how a media type is matched.
	Accept []string `json:"accept,omitempty"`

	// MaxSize is the largest decoded size in bytes; a file of exactly
	// MaxSize bytes is accepted. Zero means the runtime's default.
	MaxSize int64 `json:"maxSize,omitempty"`

	// TransferModes are SEP-2631's "inline" and "upload"; none means any.
	TransferModes []string `json:"transferModes,omitempty"`

	// Form is how the file arrives when it is not a URI string: FileData
	// (an Odeus FileData object) or OpenAI (a ChatGPT file object), from
	// the property's x-mcpfile-form (mcpfile tag form=); "" for a URI.
	Form string `json:"form,omitempty"`

	// NoSniff turns the content check off (mcpfile tag sniff=false). It is
	// not part of the schema: generated code registers it (see Register).
	NoSniff bool `json:"-"`
}

// The forms of x-mcpfile-form: a file that arrives as a host's object
// rather than as a URI string. SEP-2356 puts x-mcp-file on URI strings
// only, so these properties carry their accept and maxSize in the vendor
// keyword x-mcpfile-form, with the form.
const (
	FileData = "filedata" // Odeus: {fileName, mimeType, base64, size?, lastModified?}
	OpenAI   = "openai"   // ChatGPT's fileParams: {download_url, file_id, mime_type?, file_name?}
)

// The transfer modes of SEP-2631.
const (
	Inline = "inline" // a data: URI in the request
	Upload = "upload" // files/authorizeUpload, then the file URI it returns
)

// AllowsInline reports whether f takes data: URIs: it lists no transfer
// modes, or lists "inline".
func (f File) AllowsInline() bool {
	return len(f.TransferModes) == 0 || slices.Contains(f.TransferModes, Inline)
}

// AllowsUpload reports whether f takes uploaded files' URIs on a server
// that serves uploads: it is a URI string (no Form) that lists no transfer
// modes (a client may then choose either), or lists "upload".
func (f File) AllowsUpload() bool {
	if f.Form != "" { // a host's object, never a file URI
		return false
	}
	return len(f.TransferModes) == 0 || slices.Contains(f.TransferModes, Upload)
}

// Limit returns the size limit in force for f: its MaxSize, else def, the
// runtime's default; no limit when both are zero or less.
func (f File) Limit(def int64) int64 {
	if f.MaxSize > 0 {
		return f.MaxSize
	}
	if def > 0 {
		return def
	}
	return math.MaxInt64
}

// Accepts reports whether d's accept list allows mediaType, the way the
// spec matches: only the type/subtype of mediaType counts (parameters such as
// charset are ignored), case-insensitively; an entry "type/*" allows every
// subtype of type, and "*/*" allows everything. Entries beginning with a dot
// are extensions: picker hints for the client that a server cannot check
// (the file name does not travel in the URI), so Accepts ignores them.
//
// An empty accept list allows every media type, and so does a list of
// extensions only: such a descriptor constrains nothing the server can
// verify. Declare media types next to extensions to restrict them.
//
// A mediaType that is not of the form type/subtype is allowed only when
// accept allows everything.
func (d File) Accepts(mediaType string) bool {
	if d.acceptsAny() {
		return true
	}
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	mediaType = strings.TrimSpace(mediaType)
	slash := strings.IndexByte(mediaType, '/')
	if slash <= 0 || slash == len(mediaType)-1 {
		return false
	}
	typ := mediaType[:slash]
	for _, a := range d.Accept {
		a, ok := acceptEntry(a)
		if !ok {
			continue
		}
		if strings.HasSuffix(a, "/*") {
			if strings.EqualFold(a[:len(a)-2], typ) {
				return true
			}
			continue
		}
		if strings.EqualFold(a, mediaType) {
			return true
		}
	}
	return false
}

// acceptsAny reports whether d's accept list allows every media type.
func (d File) acceptsAny() bool {
	some := false
	for _, a := range d.Accept {
		if a, ok := acceptEntry(a); ok {
			if a == "*/*" {
				return true
			}
			some = true
		}
	}
	return !some
}

// acceptEntry returns the media-type part of an accept entry, parameters
// and surrounding spaces removed, and false for an extension or an empty entry.
func acceptEntry(a string) (string, bool) {
	if i := strings.IndexByte(a, ';'); i >= 0 {
		a = a[:i]
	}
	a = strings.TrimSpace(a)
	if a == "" || a[0] == '.' {
		return "", false
	}
	return a, true
}

// Allowed returns the media-type entries of d's accept list for an error text.
func (d File) Allowed() []string {
	var out []string
	for _, a := range d.Accept {
		if a, ok := acceptEntry(a); ok {
			out = append(out, strings.ToLower(a))
		}
	}
	return out
}

// Kind says how a top-level property of an object schema carries files.
type Kind uint8

const (
	Single Kind = 1 + iota // the property carries x-mcp-file
	Array                  // the property's items carry x-mcp-file
)

// Want names the JSON value a property of kind k whose files f describes
// takes, when it is a URI string (no Form), for error texts: data: URIs,
// uploaded files' URIs (mcp-file:), or either, as f's transfer modes say.
// A property that lists no transfer modes is named by what every server
// takes, data: URIs.
func (f File) Want(k Kind) string {
	a, uri, from := "a ", "data: URI", ""
	switch {
	case !f.AllowsInline():
		a, uri, from = "an ", "mcp-file: URI", " (from files/authorizeUpload)"
	case len(f.TransferModes) > 0 && f.AllowsUpload():
		uri = "data: URI or mcp-file: URI"
	}
	if k == Array {
		return "an array of " + uri + " strings" + from
	}
	return a + uri + " string" + from
}

// FormMembers are the members of each form's object and the JSON type
// each must have: "string", or "size" (an integer of 0 or more); the
// required ones first, as many as FormRequired says.
var (
	FormMembers = map[string][][2]string{
		FileData: {{"fileName", "string"}, {"mimeType", "string"}, {"base64", "string"}, {"size", "size"}, {"lastModified", "string"}},
		OpenAI:   {{"download_url", "string"}, {"file_id", "string"}, {"mime_type", "string"}, {"file_name", "string"}},
	}
	FormRequired = map[string]int{FileData: 3, OpenAI: 2}
	// FormWhat names each form's object in error texts.
	FormWhat = map[string]string{FileData: "FileData object", OpenAI: "ChatGPT file object"}
)

// OpenAIStringReason is the RuleForm reason for a ChatGPT file argument
// that arrived as a string: what ChatGPT's mobile app sends ("chat_upload")
// in place of the file object.
const OpenAIStringReason = "ChatGPT file object: received a string instead of {download_url, file_id} (ChatGPT's mobile app sends one, such as \"chat_upload\", in place of the file); attach the file again from ChatGPT on the web or the desktop"

// Want names the JSON value p takes, for error texts.
func (p *Prop) Want() string {
	var noun, shape string
	switch p.File.Form {
	case FileData:
		noun, shape = "FileData object", " {fileName, mimeType, base64}"
	case OpenAI:
		noun, shape = "file object", " {download_url, file_id}"
	default:
		return p.File.Want(p.Kind)
	}
	if p.Kind == Array {
		return "an array of " + noun + "s" + shape
	}
	return "a " + noun + shape
}

// Prop is a top-level property of an object schema that carries files.
type Prop struct {
	Name string
	Kind Kind
	File File // the x-mcp-file of the property, or of its items

	// MinItems and MaxItems are an Array's minItems (mcpfile tag minFiles)
	// and maxItems (maxFiles), 0 when absent.
	MinItems, MaxItems int
}

// MaxFiles returns the most files the array property p takes: its
// MaxItems, else def, the runtime's default; no limit when both are zero
// or less.
func (p *Prop) MaxFiles(def int) int {
	if p.MaxItems > 0 {
		return p.MaxItems
	}
	if def > 0 {
		return def
	}
	return math.MaxInt
}

// CheckCount checks n, the number of files of the array property p,
// against its limits, the largest first (defMax being the runtime's default
// maximum): it returns "" when n is within them, else the rule n breaks,
// "maxFiles" or "minFiles", and that rule's limit.
func (p *Prop) CheckCount(n, defMax int) (rule string, limit int) {
	if limit := p.MaxFiles(defMax); n > limit {
		return "maxFiles", limit
	}
	if n < p.MinItems {
		return "minFiles", p.MinItems
	}
	return "", 0
}

// Schema is what an object schema says about files.
type Schema struct {
	// Props are the top-level properties that carry files, by name.
	Props map[string]*Prop
}

// Names returns the names of s's file properties, sorted.
func (s *Schema) Names() []string { return slices.Sorted(maps.Keys(s.Props)) }

// Parse reads the file properties of the object schema b: those with
// x-mcp-file and arrays whose items have it.
func Parse(b []byte) (*Schema, error) {
	type prop struct {
		File     *File           `json:"x-mcp-file"`
		Form     *File           `json:"x-mcpfile-form"`
		Items    json.RawMessage `json:"items"`
		MinItems *int            `json:"minItems"`
		MaxItems *int            `json:"maxItems"`
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading the schema's x-mcp-file entries: %v", err)
	}
	// A property or items schema may be a boolean (true for an interface
	// type): it carries no file.
	object := func(raw json.RawMessage, v any) (bool, error) {
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
			return false, nil
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return false, fmt.Errorf("reading the schema's x-mcp-file entries: %v", err)
		}
		return true, nil
	}
	out := &Schema{Props: make(map[string]*Prop)}
	for name, raw := range s.Properties {
		var p prop
		if ok, err := object(raw, &p); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		var items struct {
			File *File `json:"x-mcp-file"`
			Form *File `json:"x-mcpfile-form"`
		}
		if _, err := object(p.Items, &items); err != nil {
			return nil, err
		}
		for _, f := range []**File{&p.File, &items.File} {
			form := p.Form
			if f == &items.File {
				form = items.Form
			}
			if form == nil {
				continue
			}
			if *f != nil {
				return nil, fmt.Errorf("property %q has both x-mcp-file and x-mcpfile-form", name)
			}
			if form.Form != FileData && form.Form != OpenAI {
				return nil, fmt.Errorf("property %q has x-mcpfile-form %q: want %s or %s", name, form.Form, FileData, OpenAI)
			}
			*f = form
		}
		switch {
		case p.File != nil:
			out.Props[name] = &Prop{Name: name, Kind: Single, File: *p.File}
		case items.File != nil:
			fp := &Prop{Name: name, Kind: Array, File: *items.File}
			if p.MaxItems != nil {
				if *p.MaxItems < 1 {
					return nil, fmt.Errorf("property %q is an array of files with maxItems %d: want at least 1 (mcpfile tag maxFiles), or none for the default", name, *p.MaxItems)
				}
				fp.MaxItems = *p.MaxItems
			}
			if p.MinItems != nil {
				if *p.MinItems < 0 || fp.MaxItems > 0 && *p.MinItems > fp.MaxItems {
					return nil, fmt.Errorf("property %q is an array of files with minItems %d: want from 0 to maxItems (mcpfile tag minFiles)", name, *p.MinItems)
				}
				fp.MinItems = *p.MinItems
			}
			out.Props[name] = fp
		}
	}
	for _, p := range out.Props {
		for _, m := range p.File.TransferModes {
			if m != Inline && m != Upload {
				return nil, fmt.Errorf("property %q has transfer mode %q: want inline or upload", p.Name, m)
			}
		}
	}
	return out, nil
}

// cache holds the Schema of each schema text read, by its text: a tool's
// schema is read once, however often it is registered or elicited.
var cache sync.Map // string → *entry

type entry struct {
	once   sync.Once
	schema *Schema
	err    error
}

// For returns the Schema of the object schema b, read once per distinct
// text (and with the NoSniff settings registered for it). The Schema is
// shared: callers must not modify it.
func For(b []byte) (*Schema, error) {
	v, ok := cache.Load(string(b))
	if !ok {
		v, _ = cache.LoadOrStore(string(b), &entry{})
	}
	e := v.(*entry)
	e.once.Do(func() { e.schema, e.err = Parse(b) })
	return e.schema, e.err
}

// Register reads the object schema b as For does, turns the content check
// off for the file properties named in noSniff, and keeps the result for
// For to return. Generated code registers each type's schema when its
// package is initialised, before any call reads it; registering the same
// schema again with other settings is an error.
func Register(b string, noSniff []string) (*Schema, error) {
	s, err := Parse([]byte(b))
	if err != nil {
		return nil, err
	}
	for _, name := range noSniff {
		p, ok := s.Props[name]
		if !ok {
			return nil, fmt.Errorf("NoSniff names %q, which is not a file property", name)
		}
		p.File.NoSniff = true
	}
	e := &entry{schema: s}
	e.once.Do(func() {})
	if v, loaded := cache.LoadOrStore(b, e); loaded {
		old, err := For([]byte(b))
		if err != nil {
			return nil, err
		}
		if !sameSniff(old, s) {
			return nil, fmt.Errorf("the schema was registered before with other content-check settings")
		}
		_ = v
		return old, nil
	}
	return s, nil
}

func sameSniff(a, b *Schema) bool {
	if len(a.Props) != len(b.Props) {
		return false
	}
	for name, p := range a.Props {
		if q, ok := b.Props[name]; !ok || q.File.NoSniff != p.File.NoSniff {
			return false
		}
	}
	return true
}
