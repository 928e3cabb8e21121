package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/text"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// An Output is a file a tool handler made, to hand back to its caller
// with [Save]. Give its bytes in exactly one of Data, Reader (with Size)
// and Path.
type Output struct {
	// Name is the file's name, sanitized by runtime.SanitizeName when
	// stored; "" for none.
	Name string
	// MediaType is the file's media type; "" means application/octet-stream.
	MediaType string

	// Data holds the bytes.
	Data []byte
	// Reader gives the bytes, exactly Size of them: a Reader that ends
	// early or has more fails the Save.
	Reader io.Reader
	Size   int64
	// Path names a file the server owns, whose bytes are copied.
	Path string
}

// Save stores out in the server's store as a file of the caller of the
// request ctx belongs to (the principal of its auth token info, "" without
// auth), for [Options.FileTTL], and returns its FileValue: the mcp-file URI
// the caller resolves with files/authorizeDownload, the sanitized name, the
// media type, the size and the SHA-256 digest. Call it from a tool handler
// of a server set up with [Register]. The bytes are streamed through the
// store; a failed Save leaves nothing behind. (On an mcp-go server,
// runtime/mcpgo's ServeFiles sets the server up, and its NewFileContent is
// the content block.)
func Save(ctx context.Context, out Output) (FileValue, error) {
	r, _ := hook.ResolverFrom(ctx)
	res, ok := r.(*resolver)
	if !ok {
		return FileValue{}, errors.New("transfer.Save: the request's server does not serve files: call transfer.Register (mcpgo.ServeFiles on mcp-go) for it")
	}
	c := res.c
	body, size, closeBody, err := out.body()
	if err != nil {
		return FileValue{}, err
	}
	defer closeBody()
	mt := out.MediaType
	if mt == "" {
		mt = defaultMediaType
	}
	if t, params, ok := parseMediaType(mt); !ok {
		return FileValue{}, fmt.Errorf("transfer.Save: media type %s is not type/subtype without wildcards, of at most %d bytes of printable ASCII", text.Quote(mt, shortLen), token.MaxMediaTypeLen)
	} else {
		mt = formatMediaType(t, params)
	}
	name := runtime.SanitizeName(out.Name)
	if len(name) > token.MaxNameLen {
		name = runtime.SanitizeName(name[:token.MaxNameLen])
	}
	owner, err := c.ownerOf(res.from)
	if err != nil {
		return FileValue{}, fmt.Errorf("transfer.Save: %w", err)
	}
	expires := c.Now().Add(c.FileTTL)
	id := token.NewFileID()
	w, err := c.Store.Create(ctx, id, store.Meta{Size: size, MediaType: mt, Name: name, Owner: owner, Expires: expires})
	if err != nil {
		return FileValue{}, fmt.Errorf("transfer.Save: %w", err)
	}
	defer w.Abort()
	if _, err := io.Copy(w, body); err != nil {
		return FileValue{}, fmt.Errorf("transfer.Save: %w", err)
	}
	if err := w.Commit(ctx); err != nil {
		return FileValue{}, fmt.Errorf("transfer.Save: %w", err)
	}
	m, err := c.Store.Stat(ctx, id)
	if err != nil {
		return FileValue{}, fmt.Errorf("transfer.Save: %w", err)
	}
	uri, err := c.Keys.FileURI(sized(token.FileRef{Host: c.Host, FileID: id, Owner: owner, Expires: expires}, m.Size, m.SHA256[:]))
	if err != nil {
		return FileValue{}, fmt.Errorf("transfer.Save: %w", err)
	}
	return fileValue(uri, m), nil
}

// body returns the reader of o's bytes and their size.
func (o *Output) body() (io.Reader, int64, func(), error) {
	n := 0
	for _, set := range []bool{o.Data != nil, o.Reader != nil, o.Path != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, 0, nil, errors.New("transfer.Save: give the bytes in exactly one of Output.Data, Output.Reader and Output.Path")
	}
	switch {
	case o.Data != nil:
		return bytes.NewReader(o.Data), int64(len(o.Data)), func() {}, nil
	case o.Reader != nil:
		if o.Size < 0 {
			return nil, 0, nil, fmt.Errorf("transfer.Save: Output.Size %d is negative", o.Size)
		}
		return o.Reader, o.Size, func() {}, nil
	}
	f, err := os.Open(o.Path)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("transfer.Save: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", o.Path)
		}
		return nil, 0, nil, fmt.Errorf("transfer.Save: %w", err)
	}
	return f, fi.Size(), func() { f.Close() }, nil
}

// FileContent is a content block {"type": "file", "file": …} of SEP-2631,
// for a tool result's Content. A client that did not declare the
// files.download capability (see [ClientFiles]) would reject a whole
// result that holds a block type it does not know, so on a server set up
// with [Register] such a client gets, in its place, the file the standard
// way: an embedded resource with the bytes, while the files so embedded in
// one result come to at most [Options.MaxEmbeddedOutput], or else a text
// that says the file is too large for this client and a resource_link to
// the file URI. (The handler's result is left as it is: the client gets a
// copy.) A
// FileValue in structuredContent reaches every client as it is.
//
// go-sdk v1.8's mcp.Content cannot be implemented outside the SDK (it has
// an unexported method); FileContent gets that method from an embedded
// *mcp.TextContent, which it never uses, and writes its own JSON. The SDK
// writes results with MarshalJSON, so the block goes out as the SEP says;
// it cannot read one back (a Go client sees an error for it).
type FileContent struct {
	*mcp.TextContent // unused: it makes FileContent an mcp.Content
	File             FileValue
	Meta             mcp.Meta
}

var _ mcp.Content = (*FileContent)(nil)

// NewFileContent returns the content block of the file v.
func NewFileContent(v FileValue) *FileContent {
	return &FileContent{TextContent: &mcp.TextContent{}, File: v}
}

// MarshalJSON writes {"type": "file", "file": c.File} (and "_meta").
func (c *FileContent) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type string    `json:"type"`
		File FileValue `json:"file"`
		Meta mcp.Meta  `json:"_meta,omitempty"`
	}{"file", c.File, c.Meta})
}

// fallback returns content with its file blocks replaced, for the client
// from that lacks the files.download capability, or nil when it has none.
// Embedded bytes count against one budget of MaxEmbeddedOutput per result,
// so that a result of many files holds no more than one's worth.
func (c *config) fallback(ctx context.Context, from sender, content []mcp.Content) []mcp.Content {
	var out []mcp.Content
	budget := c.MaxEmbeddedOutput
	for i, b := range content {
		fc, ok := b.(*FileContent)
		if !ok {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = append(make([]mcp.Content, 0, len(content)+1), content[:i]...)
		}
		out = append(out, c.standardContent(ctx, from, fc.File, &budget)...)
	}
	return out
}

// standardContent is the content that stands for the file v for a client
// without files.download: an embedded resource with the bytes, or a text
// and a resource_link.
func (c *config) standardContent(ctx context.Context, from sender, v FileValue, budget *int64) []mcp.Content {
	if data, ok := c.embedOutput(ctx, from, v, budget); ok {
		return []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: v.URI, MIMEType: v.MimeType, Blob: data}}}
	}
	return []mcp.Content{
		&mcp.TextContent{Text: tooLargeText(v)},
		&mcp.ResourceLink{URI: v.URI, Name: cmpName(v.Name), MIMEType: v.MimeType, Size: v.Size},
	}
}

// embedOutput returns the bytes of the file v, a file output of from, to
// embed in a result for a client without files.download, when they fit in
// what is left of budget (which it then lessens); false when they do not,
// or cannot be read: the client then gets tooLargeText and a link.
func (c *config) embedOutput(ctx context.Context, from sender, v FileValue, budget *int64) ([]byte, bool) {
	if v.Size == nil || *v.Size < 0 || *v.Size > *budget {
		return nil, false
	}
	data, ok := c.readOutput(ctx, from, v.URI, *v.Size)
	if ok {
		*budget -= *v.Size
	}
	return data, ok
}

// tooLargeText is the text that stands for the file v, with a link to it,
// for a client without files.download when v is not embedded.
func tooLargeText(v FileValue) string {
	what := cmpName(v.Name)
	if v.Size != nil && *v.Size >= 0 {
		what += fmt.Sprintf(" (%d bytes)", *v.Size)
	}
	return "The file " + what + " is too large for this client to receive in the result. " +
		"A client that supports SEP-2631 file downloads (capability files.download) fetches it with files/authorizeDownload."
}

func cmpName(name string) string {
	if name == "" {
		return "file"
	}
	return name
}

// readOutput reads the file uri of from, of size bytes.
func (c *config) readOutput(ctx context.Context, from sender, uri string, size int64) ([]byte, bool) {
	owner, err := c.ownerOf(from)
	if err != nil {
		return nil, false
	}
	ref, m, lerr := c.lookup(ctx, uri, owner)
	if lerr != nil || m.Size != size {
		return nil, false
	}
	r, err := c.Store.Open(ctx, ref.FileID)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, false
	}
	return data, true
}
