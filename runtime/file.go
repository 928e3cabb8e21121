package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

// File is a decoded, validated file argument.
//
// A handler reads the bytes with [File.Open], which works for every File,
// or, for a file held in memory (as every data: URI is), takes them as they
// are with [File.Bytes]; [File.Size] gives the size either way. Build a File
// held in memory with [NewFile]; the zero File is an empty file. A File is a
// small value: copies share the same bytes, which nothing changes, so a
// File may be copied and read from several goroutines at once.
//
// A File never shows its bytes: it prints, logs and marshals as metadata
// (see [File.String], [File.Format], [File.LogValue] and [File.MarshalJSON]),
// because SEP-2356 requires file values to be treated as sensitive. This
// holds wherever fmt, log/slog or encoding/json can reach the File through
// its methods. Where fmt prints the File's fields itself (a File held in an
// unexported struct field, whose methods fmt cannot call, and the %p verb,
// which fmt handles before any method), the bytes, held behind pointers,
// show as an address, under every verb.
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

	// content holds the bytes; nil for the zero File, which has none.
	content *fileContent

	// UseRuntimeAddTool is always empty and never read. Its jsonschema tag
	// makes the SDK's schema inference fail for any type that holds a File,
	// so that registering such a type with mcp.AddTool, which would describe
	// the File as an object and reject every call, panics at registration
	// with a message that points to [AddTool].
	UseRuntimeAddTool struct{} `jsonschema:"mcpfile=runtime.File has no schema of its own: register tools whose arguments hold files with runtime.AddTool (mcpfilegen generates their schema), not mcp.AddTool; a File is not a tool output"`
}

// fileContent is where the bytes of a File are. A File holds it through a
// pointer, and it holds the bytes through another, because fmt, where it
// prints a File's fields itself, prints a pointer as an address but may
// follow one (when it prints the operand of a verb that does not suit a
// pointer, as in %!s(*runtime.fileContent=&{0xc000…})): it never follows
// two, so it prints an address where the bytes are. Copies of a File share
// one fileContent, which is never changed once a handler can see the File:
// [NewFile] makes it whole, and a reference to an uploaded file is
// resolved in place by [AddTool] or [Elicit] before the handler runs.
type fileContent struct {
	mem   *[]byte   // the bytes, held in memory; or
	ext   *extFile  // the bytes, elsewhere (an uploaded file); or
	ref   *string   // an uploaded file's URI, until it is resolved; or
	fetch *fetchRef // a file to download, until it is fetched; or
	// inline is a reference the fast path of inline files made
	// (runtime/serve), until it is resolved to the file it decoded.
	inline *inlineRef

	// release deletes the stored file an uploaded file was resolved from
	// (whether its bytes are in mem or ext); nil for every other File.
	release func(context.Context) error
}

// fetchRef is a file a host named by URL (a ChatGPT file object), with
// what its object declared.
type fetchRef struct {
	url, mediaType, name string
}

// extFile is a file whose bytes are not in memory: its size, and how to
// open a reader of them.
type extFile struct {
	size int64
	open func() (hook.Reader, error)
}

// The runtime sets what it owns in package hook, for the decoder
// (mcpfileimpl) and the transfer layer, which import it.
func init() {
	hook.CheckFile = checkFile
	hook.NewRef = func(uri string) any { return File{content: &fileContent{ref: &uri}} }
	hook.IsRef = func(f any) bool {
		c := f.(File).content
		return c != nil && (c.ref != nil || c.fetch != nil || c.inline != nil)
	}
	inline.NewRef = func(ref string, refusal error) any {
		return File{content: &fileContent{inline: &inlineRef{ref, refusal}}}
	}
	hook.NewFetchRef = func(url, mediaType, name string) any {
		return File{content: &fileContent{fetch: &fetchRef{url, mediaType, name}}}
	}
}

// NewFile returns a File of mediaType whose bytes are data, held in memory
// (data is not copied): what the decoder makes of an inline data: URI, and
// how a test or a server builds a File. Set Params and Name on the result
// when there are any. The caller must not modify data afterwards.
func NewFile(mediaType string, data []byte) File {
	return File{MediaType: mediaType, content: &fileContent{mem: &data}}
}

// Size returns the file's size in bytes.
func (f File) Size() int64 {
	if f.content != nil && f.content.ext != nil {
		return f.content.ext.size
	}
	return int64(len(f.Bytes()))
}

// Bytes returns the file's bytes when they are held in memory, without
// copying them: do not modify them. They are for every inline (data: URI)
// file, every File from [NewFile], and every uploaded file sent for an
// argument without transferModes (which a client may upload to when the
// server serves uploads: the runtime reads it into memory, within the same
// maxSize, so that a handler written for inline files works unchanged).
// Bytes returns nil for a file whose bytes are elsewhere, an uploaded file
// sent for an argument whose transferModes list "upload" (mcpfile tag
// transfer=), and may for an empty file: use [File.Size] for the size.
// [File.Open] works for every file, so a handler that reads through it
// takes files of any size and origin.
func (f File) Bytes() []byte {
	if f.content == nil || f.content.mem == nil {
		return nil
	}
	return *f.content.mem
}

// Release deletes an uploaded file from the server's store once the
// handler is done with it, so that its bytes stop counting against the
// owner's quota at once rather than when the file expires
// (transfer.Options.FileTTL). Only the caller that uploaded the file can
// have it as a File, in a call it made, so only the owner releases it.
// After Release, [File.Open] of a File whose bytes were in the store fails,
// and the file's URI resolves as a file no upload has completed under;
// bytes already in memory ([File.Bytes]) stay readable. Releasing a file
// twice, or one that has expired, is not an error. For every other File
// (inline, fetched, or from [NewFile]) Release does nothing and returns
// nil: nothing of it is stored. The error is the store's.
func (f File) Release(ctx context.Context) error {
	if f.content == nil || f.content.release == nil {
		return nil
	}
	return f.content.release(ctx)
}

// errUnresolved is Open's error for a File that still refers to an
// uploaded file: one decoded by hand (with [Unmarshal]) rather than
// through [AddTool] or [Elicit], which resolve such references.
var errUnresolved = errors.New("runtime: the file is an uploaded file's URI that was not resolved: only runtime.AddTool and runtime.Elicit, on a server set up with transfer.Register, resolve file URIs")

// Open returns a reader of the file's bytes: read them in sequence, seek,
// or read at any offset. Close it when done. Open may be called any number
// of times, from any goroutine; each reader has its own offset and is
// independent of the others. The reader of a file held in memory reads the
// bytes in place, never fails to open, and also implements io.WriterTo, so
// that io.Copy from it writes the bytes in one call. The reader of an
// uploaded file reads it from the server's store, a piece at a time: a
// handler that reads through it holds no more of the file than its buffer.
func (f File) Open() (FileReader, error) {
	if c := f.content; c != nil {
		switch {
		case c.ext != nil:
			r, err := c.ext.open()
			if err != nil {
				return nil, err
			}
			return &extReader{Reader: r}, nil
		case c.ref != nil, c.fetch != nil:
			return nil, errUnresolved
		}
	}
	m := new(memReader)
	m.r.Reset(f.Bytes())
	return m, nil
}

// A FileReader reads the bytes of a [File], as [File.Open] returns it.
//
// Read and Seek share the reader's offset and, as with any reader, must
// not be called concurrently; ReadAt neither uses nor moves the offset and
// may be called in parallel, as io.ReaderAt allows. ReadAt, Read and Seek
// follow bytes.Reader: ReadAt of fewer bytes than asked returns io.EOF with
// them, and so does ReadAt at or past the end (with none); Read at the end
// returns 0, io.EOF; Seek past the end is allowed, and a later Read returns
// io.EOF. Size returns the file's size, whatever the offset.
//
// After Close, Read, ReadAt and Seek (and a second Close) return an error
// for which errors.Is(err, fs.ErrClosed) holds, as an *os.File's do; Size
// still answers.
type FileReader interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
	Size() int64
}

// memReader is the FileReader of bytes held in memory: a bytes.Reader that
// can be closed. closed is atomic so that Close may race with ReadAt.
type memReader struct {
	r      bytes.Reader
	closed atomic.Bool
}

var (
	_ FileReader  = (*memReader)(nil)
	_ io.WriterTo = (*memReader)(nil)
)

func (m *memReader) Read(p []byte) (int, error) {
	if m.closed.Load() {
		return 0, fs.ErrClosed
	}
	return m.r.Read(p)
}

func (m *memReader) ReadAt(p []byte, off int64) (int, error) {
	if m.closed.Load() {
		return 0, fs.ErrClosed
	}
	return m.r.ReadAt(p, off)
}

func (m *memReader) Seek(offset int64, whence int) (int64, error) {
	if m.closed.Load() {
		return 0, fs.ErrClosed
	}
	return m.r.Seek(offset, whence)
}

func (m *memReader) WriteTo(w io.Writer) (int64, error) {
	if m.closed.Load() {
		return 0, fs.ErrClosed
	}
	return m.r.WriteTo(w)
}

func (m *memReader) Size() int64 { return m.r.Size() }

func (m *memReader) Close() error {
	if m.closed.Swap(true) {
		return fs.ErrClosed
	}
	return nil
}

// extReader is the FileReader of an uploaded file: the store's reader,
// held to FileReader's contract after Close whatever the store does.
type extReader struct {
	hook.Reader
	closed atomic.Bool
}

func (e *extReader) Read(p []byte) (int, error) {
	if e.closed.Load() {
		return 0, fs.ErrClosed
	}
	return e.Reader.Read(p)
}

func (e *extReader) ReadAt(p []byte, off int64) (int, error) {
	if e.closed.Load() {
		return 0, fs.ErrClosed
	}
	return e.Reader.ReadAt(p, off)
}

func (e *extReader) Seek(offset int64, whence int) (int64, error) {
	if e.closed.Load() {
		return 0, fs.ErrClosed
	}
	return e.Reader.Seek(offset, whence)
}

// WriteTo writes the rest of the file to w, so that io.Copy from an
// uploaded file reads it in pieces of the store's choosing (its own
// WriteTo) or of 256 KiB, not the 8 KiB of io.Copy's own buffer or
// io.Discard's.
func (e *extReader) WriteTo(w io.Writer) (int64, error) {
	if e.closed.Load() {
		return 0, fs.ErrClosed
	}
	if wt, ok := e.Reader.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	return io.CopyBuffer(onlyWriter{w}, onlyReader{e.Reader}, *bp)
}

// copyBufs hold the buffers of extReader.WriteTo.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// onlyWriter and onlyReader hide ReadFrom and WriteTo, so that
// io.CopyBuffer uses the buffer it is given.
type onlyWriter struct{ io.Writer }
type onlyReader struct{ io.Reader }

func (e *extReader) Close() error {
	if e.closed.Swap(true) {
		return fs.ErrClosed
	}
	return e.Reader.Close()
}

// String returns the redacted form of f, e.g.
// "data:image/png;base64,[70 bytes]", or "mcp-file:[application/pdf,
// 1048576 bytes]" for an uploaded file whose bytes are not in memory.
func (f File) String() string {
	if f.content != nil && (f.content.ext != nil || f.content.ref != nil) {
		return "mcp-file:[" + f.MediaType + ", " + strconv.FormatInt(f.Size(), 10) + " bytes]"
	}
	return "data:" + f.MediaType + ";base64,[" + strconv.FormatInt(f.Size(), 10) + " bytes]"
}

// Format implements fmt.Formatter so that no verb prints f's bytes: %v and
// %s print [File.String], %q quotes it, %+v prints the fields and the size
// ({MediaType:image/png Params:map[] Name:a.png Size:70}), %#v prints Go
// syntax with a comment in place of the bytes
// (runtime.File{MediaType:"image/png", Params:map[string]string(nil),
// Name:"a.png" /* 70 bytes */}), and any other verb prints
// %!verb(runtime.File=…) with the redacted form. fmt handles %p itself,
// before calling Format (see [File]). %+v and %#v escape control and
// format characters (such as U+202E) in the media type, the parameters and
// the name: %#v quotes every string, %+v quotes a parameter key or value
// that is not an RFC 2045 token, and the media type or name when it holds
// a character that is not printable.
func (f File) Format(s fmt.State, verb rune) {
	switch verb {
	case 'v':
		switch {
		case s.Flag('#'):
			fmt.Fprintf(s, "runtime.File{MediaType:%q, Params:%#v, Name:%q /* %d bytes */}",
				f.MediaType, f.Params, f.Name, f.Size())
		case s.Flag('+'):
			fmt.Fprintf(s, "{MediaType:%s Params:%s Name:%s Size:%d}",
				printableText(f.MediaType), printableParams(f.Params), printableText(f.Name), f.Size())
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
// type, name (when set) and size, never its bytes; with the text handler
// that is file.mimeType=image/png file.size=70.
func (f File) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 3)
	attrs = append(attrs, slog.String("mimeType", f.MediaType))
	if f.Name != "" {
		attrs = append(attrs, slog.String("name", f.Name))
	}
	attrs = append(attrs, slog.Int64("size", f.Size()))
	return slog.GroupValue(attrs...)
}

// fileJSON is File's JSON form: SEP-2631's FileValue fields, without the uri.
type fileJSON struct {
	MimeType string `json:"mimeType"`
	Name     string `json:"name,omitempty"`
	Size     int64  `json:"size"`
}

// MarshalJSON implements json.Marshaler with metadata only, in SEP-2631
// FileValue's field names: {"mimeType":"image/png","name":"a.png","size":70}.
// The data is left out so that a File that ends up in a log, a trace or a
// structured result does not leak it; a server that means to return a file
// builds the content block itself (e.g. with [Encode]). File has no
// UnmarshalJSON: decoding goes through generated code or [DecodeJSON].
func (f File) MarshalJSON() ([]byte, error) {
	return json.Marshal(fileJSON{MimeType: f.MediaType, Name: f.Name, Size: f.Size()})
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
