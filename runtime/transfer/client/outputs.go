package client

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// An Output is a file a tool returned: a FileValue of its
// structuredContent, or a content block: a file block (made a resource
// link by [WrapTransport]), a resource link of a file URI, an embedded
// resource.
type Output struct {
	// File is what the result says of it: its URI, and its name, media
	// type, size and digest where given.
	File wire.FileValue
	// Data are the bytes of an embedded resource; nil for a file to
	// download.
	Data []byte
}

// Outputs finds the files of res, one per URI: the FileValues in its
// structuredContent (any object whose uri is a file URI, mcp-file:),
// resource links of file URIs, and embedded resources. Members the
// several mentions of a URI give are merged.
func Outputs(res *mcp.CallToolResult) []Output {
	byURI := map[string]*Output{}
	var order []string
	add := func(o Output) {
		p := byURI[o.File.URI]
		if p == nil {
			byURI[o.File.URI] = &o
			order = append(order, o.File.URI)
			return
		}
		if p.File.Name == "" {
			p.File.Name = o.File.Name
		}
		if p.File.MimeType == "" {
			p.File.MimeType = o.File.MimeType
		}
		if p.File.Size == nil {
			p.File.Size = o.File.Size
		}
		if p.File.Digest == nil {
			p.File.Digest = o.File.Digest
		}
		if p.Data == nil {
			p.Data = o.Data
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			var v any
			if json.Unmarshal(b, &v) == nil {
				walk(v, func(fv wire.FileValue) { add(Output{File: fv}) })
			}
		}
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			if fv, ok := FileOf(c); ok {
				add(Output{File: fv})
			} else if isFileURI(c.URI) {
				add(Output{File: wire.FileValue{URI: c.URI, Name: c.Name, MimeType: c.MIMEType, Size: c.Size}})
			}
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				data := r.Blob
				if data == nil {
					data = []byte(r.Text)
				}
				add(Output{File: wire.FileValue{URI: r.URI, MimeType: r.MIMEType}, Data: data})
			}
		}
	}
	out := make([]Output, 0, len(order))
	for _, u := range order {
		out = append(out, *byURI[u])
	}
	return out
}

func isFileURI(s string) bool { return strings.HasPrefix(strings.ToLower(s), "mcp-file:") }

// walk calls found for every object in v that reads as a FileValue of a
// file URI.
func walk(v any, found func(wire.FileValue)) {
	switch v := v.(type) {
	case map[string]any:
		if u, ok := v["uri"].(string); ok && isFileURI(u) {
			b, _ := json.Marshal(v)
			var fv wire.FileValue
			if json.Unmarshal(b, &fv) == nil {
				found(fv)
				return
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(v[k], found)
		}
	case []any:
		for _, x := range v {
			walk(x, found)
		}
	}
}

// Save writes out to a new file in dir and returns its path: an embedded
// resource's bytes, checked against the size and digest the result
// declares, or a file URI's, downloaded through files/authorizeDownload
// ([AuthorizeDownload], [Download], with o) and verified likewise, the
// result's and the authorization's size and digest required to agree. A
// file is written under a temporary name in dir and linked to its name
// (made safe: no separators, control characters or leading dot; else
// "file" and the media type's extension) once verified, as name-1, name-2,
// … when a file of that name exists: never over an existing file. An
// error leaves nothing in dir.
func Save(ctx context.Context, cs *mcp.ClientSession, out Output, dir string, o *DownloadOptions) (string, error) {
	tmp, err := os.CreateTemp(dir, ".mcpfile-download-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	f := out.File
	if out.Data != nil {
		sum := sha256.Sum256(out.Data)
		if err := verify(f, int64(len(out.Data)), sum); err != nil {
			return "", err
		}
		if _, err := tmp.Write(out.Data); err != nil {
			return "", err
		}
	} else {
		res, err := AuthorizeDownload(ctx, cs, f.URI)
		if err != nil {
			return "", err
		}
		// The result's and the authorization's metadata must agree;
		// either may fill in what the other left out.
		if err := agree(f, res.File); err != nil {
			return "", err
		}
		if res.File.Size == nil {
			res.File.Size = f.Size
		}
		if res.File.Digest == nil {
			res.File.Digest = f.Digest
		}
		if res.File.Name == "" {
			res.File.Name = f.Name
		}
		if res.File.MimeType == "" {
			res.File.MimeType = f.MimeType
		}
		if _, err := Download(ctx, res, tmp, o); err != nil {
			return "", err
		}
		f = res.File
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	path, err := place(tmp.Name(), dir, fileName(f))
	if err != nil {
		return "", err
	}
	return path, nil
}

// verify checks n bytes of sum against f's declared size and digest.
func verify(f wire.FileValue, n int64, sum [sha256.Size]byte) error {
	if f.Size != nil && *f.Size != n {
		return fmt.Errorf("%w: the embedded file has %d bytes, its size is %d", ErrVerify, n, *f.Size)
	}
	if f.Digest != nil {
		want, err := f.Digest.SHA256()
		if err != nil {
			return bad("the tool result's file digest: %s", strings.TrimPrefix(err.Error(), "wire: "))
		}
		if want != sum {
			return fmt.Errorf("%w: the embedded file has sha-256 %s, its digest is %s", ErrVerify, wire.SHA256Digest(sum).Value, f.Digest.Value)
		}
	}
	return nil
}

// agree reports a size or digest that the tool result and
// files/authorizeDownload give differently.
func agree(a, b wire.FileValue) error {
	if a.Size != nil && b.Size != nil && *a.Size != *b.Size {
		return bad("the tool result says %s is %d bytes, %s says %d", quoteShort(a.URI), *a.Size, authorizeDownload, *b.Size)
	}
	if a.Digest != nil && b.Digest != nil && *a.Digest != *b.Digest {
		return bad("the tool result and %s give %s different digests", authorizeDownload, quoteShort(a.URI))
	}
	return nil
}

// fileName is a safe name for f in a directory: its base name without
// separators, control characters or a leading dot, else "file" with the
// extension of its media type.
func fileName(f wire.FileValue) string {
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return '_'
		}
		return r
	}, f.Name)
	name = strings.TrimLeft(name, ". ")
	if len(name) > 200 {
		name = name[len(name)-200:]
	}
	if name == "" {
		name = "file"
		if exts, _ := mime.ExtensionsByType(f.MimeType); len(exts) > 0 {
			sort.Strings(exts)
			name += exts[0]
		}
	}
	return name
}

// place renames tmp to name in dir, or to name-1, name-2, … when a file
// of that name exists, and returns the path.
func place(tmp, dir, name string) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			n = stem + "-" + strconv.Itoa(i) + ext
		}
		p := filepath.Join(dir, n)
		// A hard link fails when p exists: no file is replaced.
		if err := os.Link(tmp, p); err == nil {
			return p, nil
		} else if !os.IsExist(err) {
			return "", err
		}
	}
	return "", fmt.Errorf("transfer/client: %s: a thousand files of that name exist in %s", name, dir)
}

// String is a one-line account of out, for people: its name (or else
// its URI), media type, size and digest.
func (out Output) String() string {
	f := out.File
	s := f.URI
	if f.Name != "" {
		s = f.Name
	}
	var parts []string
	if f.MimeType != "" {
		parts = append(parts, f.MimeType)
	}
	if f.Size != nil {
		parts = append(parts, strconv.FormatInt(*f.Size, 10)+" bytes")
	} else if out.Data != nil {
		parts = append(parts, strconv.Itoa(len(out.Data))+" bytes")
	}
	if f.Digest != nil {
		parts = append(parts, f.Digest.Algorithm+":"+f.Digest.Value)
	}
	if out.Data != nil {
		parts = append(parts, "embedded")
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
