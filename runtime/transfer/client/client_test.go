package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// local is the Options of the test servers, which are http://127.0.0.1.
var local = &client.Options{AllowHTTP: true}

// A site is a real server with uploads (transfer.Register) over
// streamable HTTP: MCP at /mcp, the upload endpoint under /files/. Its
// tool describe takes testtypes.ImageArgs (a PNG or JPEG of at most
// 1 KiB), its tool blob testtypes.BigArgs (any file of up to 5 MiB,
// unsniffed); both answer "<media type> <size> bytes sha256:<hex>" of the
// bytes they read.
type site struct {
	url   string
	store store.Store
}

func newSite(t *testing.T, st store.Store) *site {
	t.Helper()
	k, err := token.NewKey("", bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(k)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	h, err := transfer.Register(s, transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/", Store: st})
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "describe"}, readAll(func(in testtypes.ImageArgs) runtime.File { return in.Image }))
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll(func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	mux.Handle("/files/", h)
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	return &site{url: ts.URL, store: st}
}

// readAll is a tool handler that reads the file pick returns.
func readAll[In any](pick func(In) runtime.File) mcp.ToolHandlerFor[In, any] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		f := pick(in)
		r, err := f.Open()
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: described(f.MediaType, n, h.Sum(nil))}}}, nil, nil
	}
}

func described(mediaType string, n int64, sum []byte) string {
	return mediaType + " " + strconv.FormatInt(n, 10) + " bytes sha256:" + hex.EncodeToString(sum)
}

// connect returns a session of a client enabled for uploads.
func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
	if err := client.Enable(c); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// stores runs f with a memstore and with a diskstore in a temporary
// directory.
func stores(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("memstore", func(t *testing.T) { f(t, memstore.New(nil)) })
	t.Run("diskstore", func(t *testing.T) {
		ds, err := diskstore.New(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		f(t, ds)
	})
}

// randomBytes returns n bytes that no sniffer takes for a known format.
func randomBytes(n int, seed byte) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{seed}).Read(b)
	b[0] = 0xff // not text
	return b
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantFile checks what Upload returned for b.
func wantFile(t *testing.T, fv transfer.FileValue, mediaType string, b []byte) {
	t.Helper()
	d := transfer.SHA256Digest(sha256.Sum256(b))
	if !strings.HasPrefix(fv.URI, "mcp-file://") || fv.Size == nil || *fv.Size != int64(len(b)) || fv.MimeType != mediaType || fv.Digest == nil || *fv.Digest != d {
		t.Errorf("Upload = %+v, want an mcp-file URI with size %d, mimeType %q, digest %v", fv, len(b), mediaType, d)
	}
}

// callWith calls tool with the file URI in arg and checks that the tool
// read b, as mediaType.
func callWith(t *testing.T, cs *mcp.ClientSession, tool, arg, uri, mediaType string, b []byte) {
	t.Helper()
	sum := sha256.Sum256(b)
	callWant(t, cs, tool, arg, uri, described(mediaType, int64(len(b)), sum[:]))
}

// callWant calls tool with the file URI in arg and wants the answer want.
func callWant(t *testing.T, cs *mcp.ClientSession, tool, arg, uri, want string) {
	t.Helper()
	res := mcptest.Call(t, cs, tool, map[string]any{arg: uri})
	if got := mcptest.Text(t, res); res.IsError || got != want {
		t.Errorf("%s answered %q (isError %v), want %q", tool, got, res.IsError, want)
	}
}

// TestUploadPath: a file on disk, its media type detected or given, is
// uploaded and its URI is a tool argument that the tool reads back.
func TestUploadPath(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		s := newSite(t, st)
		cs := connect(t, s.url)

		png := mcptest.PNG(t, 4, 4, false)
		fv, err := client.UploadPath(t.Context(), cs, writeFile(t, "cat.png", png), "", local)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, fv, "image/png", png)
		if fv.Name != "cat.png" {
			t.Errorf("name %q, want cat.png", fv.Name)
		}
		callWith(t, cs, "describe", "image", fv.URI, "image/png", png)

		blob := randomBytes(300<<10, 1)
		fv, err = client.UploadPath(t.Context(), cs, writeFile(t, "data.bin", blob), "application/x-thing", local)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, fv, "application/x-thing", blob)
		callWith(t, cs, "blob", "blob", fv.URI, "application/x-thing", blob)

		empty, err := client.UploadPath(t.Context(), cs, writeFile(t, "empty", nil), "application/octet-stream", local)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, empty, "application/octet-stream", nil)
		callWith(t, cs, "blob", "blob", empty.URI, "application/octet-stream", nil)
	})
}

// onlyReader hides every method of its reader but Read.
type onlyReader struct{ io.Reader }

// TestUpload: a non-seekable reader is uploaded without a declared
// digest, which the client computes as it sends; a seekable one is
// hashed from its current offset and sent from there.
func TestUpload(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		s := newSite(t, st)
		cs := connect(t, s.url)

		blob := randomBytes(700<<10, 2)
		fv, err := client.Upload(t.Context(), cs, client.File{Name: "stream", Size: int64(len(blob)), Body: onlyReader{bytes.NewReader(blob)}}, local)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, fv, "application/octet-stream", blob) // detected
		callWith(t, cs, "blob", "blob", fv.URI, "application/octet-stream", blob)

		png := mcptest.PNG(t, 4, 4, false)
		r := bytes.NewReader(append([]byte("prefix"), png...))
		r.Seek(6, io.SeekStart)
		fv, err = client.Upload(t.Context(), cs, client.File{Size: int64(len(png)), Body: r}, local)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, fv, "image/png", png)
		callWith(t, cs, "describe", "image", fv.URI, "image/png", png)

		// A body that goes on: only Size bytes are wanted, and more is an error.
		_, err = client.Upload(t.Context(), cs, client.File{MediaType: "image/png", Size: int64(len(png)) - 1, Body: onlyReader{bytes.NewReader(png)}}, local)
		if err == nil || !strings.Contains(err.Error(), "longer than File.Size") {
			t.Errorf("Upload of a longer body = %v, want an error", err)
		}
	})
}

// A flipReader is a ReadSeeker whose bytes change once it is sought back:
// a file written to between its hashing and its upload.
type flipReader struct {
	*bytes.Reader
	then  []byte
	seeks int
}

func (f *flipReader) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		if f.seeks++; f.seeks == 1 {
			f.Reader = bytes.NewReader(f.then)
		}
	}
	return f.Reader.Seek(off, whence)
}

// TestBodyBreaksDeclaration: a body that ends early, goes on, or changed
// since it was hashed is refused with an error saying so, and the server
// stores nothing.
func TestBodyBreaksDeclaration(t *testing.T) {
	st := memstore.New(nil)
	s := newSite(t, st)
	cs := connect(t, s.url)
	blob := randomBytes(200<<10, 3)
	other := bytes.Clone(blob)
	other[len(other)-1]++
	tests := []struct {
		name string
		f    client.File
		want string
	}{
		{"short stream", client.File{Size: int64(len(blob)) + 1, Body: onlyReader{bytes.NewReader(blob)}}, "the file ended after 204800 of File.Size 204801 bytes"},
		{"long stream", client.File{Size: int64(len(blob)) - 1, Body: onlyReader{bytes.NewReader(blob)}}, "the file is longer than File.Size 204799"},
		{"short file", client.File{Size: int64(len(blob)) + 1, Body: bytes.NewReader(blob)}, "the file ended after 204800 of File.Size 204801 bytes"},
		{"changed file", client.File{Size: int64(len(blob)), Body: &flipReader{Reader: bytes.NewReader(blob), then: other}}, "the file changed after it was hashed"},
		{"nil body", client.File{Size: 1}, "File.Body is nil"},
		{"negative size", client.File{Size: -1, Body: bytes.NewReader(nil)}, "File.Size -1 is negative"},
		{"bad media type", client.File{MediaType: "png\r\nX: y", Size: 1, Body: bytes.NewReader(blob[:1])}, "is not a media type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.MediaType = cmpOr(tt.f.MediaType, "application/octet-stream")
			_, err := client.Upload(t.Context(), cs, tt.f, local)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Upload = %v, want an error saying %q", err, tt.want)
			}
			// The server aborts the upload when the request breaks off; a
			// committed file would hold its bytes for good.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				n, err := st.Usage(t.Context(), "", time.Now())
				if err == nil && n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the store holds %d bytes after a refused upload (%v)", n, err)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// failReader fails the test when it is read.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("the body was read")
	return 0, io.ErrUnexpectedEOF
}

// TestAuthorizeRefused: the server's -32602 comes back wrapped, with its
// data, before a byte of the body is read.
func TestAuthorizeRefused(t *testing.T) {
	s := newSite(t, memstore.New(nil))
	cs := connect(t, s.url)
	_, err := client.Upload(t.Context(), cs, client.File{MediaType: "application/pdf", Size: 6 << 20, Body: onlyReader{failReader{t}}}, local)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("Upload = %v, want a -32602 *jsonrpc.Error", err)
	}
	d, ok := transfer.ErrorDataOf(err)
	if !ok || d.Reason != transfer.ReasonMaxSizeExceeded || d.MaxSize == nil || *d.MaxSize != 5<<20 || d.ActualSize == nil || *d.ActualSize != 6<<20 {
		t.Errorf("ErrorDataOf = %+v, %v, want maxSizeExceeded, 5 MiB, 6 MiB", d, ok)
	}
	if !strings.HasPrefix(err.Error(), `transfer/client: calling "files/authorizeUpload": `) || !strings.Contains(err.Error(), "exceeds maxSize") {
		t.Errorf("error %q, want the method and the server's message", err)
	}
}

// TestNotEnabled: a client without Enable cannot upload, and is told.
func TestNotEnabled(t *testing.T) {
	s := newSite(t, memstore.New(nil))
	c := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = client.Upload(t.Context(), cs, client.File{MediaType: "image/png", Size: 1, Body: failReader{t}}, local)
	if err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("Upload = %v, want an error saying the method is not registered", err)
	}
}

// TestPlainHTTPRefused: the real server on http://127.0.0.1 is refused
// without AllowHTTP: loopback is no exception.
func TestPlainHTTPRefused(t *testing.T) {
	s := newSite(t, memstore.New(nil))
	cs := connect(t, s.url)
	_, err := client.Upload(t.Context(), cs, client.File{MediaType: "image/png", Size: 1, Body: failReader{t}}, nil)
	if !errors.Is(err, client.ErrBadAnswer) || !strings.Contains(err.Error(), "not https:") || !strings.Contains(err.Error(), "Options.AllowHTTP") {
		t.Errorf("Upload = %v, want http:// refused", err)
	}
}

// TestBoundedMemory: a 4 MiB file goes up without the client (or, in
// this process, the server with a diskstore) holding it: the heap grows
// by a small fraction of the file while it does. Not a timed test.
func TestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 4 MiB")
	}
	ds, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newSite(t, ds)
	cs := connect(t, s.url)
	const size = 4 << 20
	blob := randomBytes(size, 4)
	path := writeFile(t, "big.bin", blob)
	sum := sha256.Sum256(blob)
	blob = nil // the test holds no copy either

	// Warm up: the connections and the code paths allocate once, and the
	// server keeps the full copy buffer a file this large takes.
	if _, err := client.UploadPath(t.Context(), cs, writeFile(t, "warm.bin", randomBytes(1<<20, 5)), "", local); err != nil {
		t.Fatal(err)
	}

	goruntime.GC()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	fv, err := client.UploadPath(t.Context(), cs, path, "", local)
	if err != nil {
		t.Fatal(err)
	}
	goruntime.ReadMemStats(&after)
	// TotalAlloc counts every byte allocated, collected or not: a copy of
	// the file anywhere would show here in full.
	allocated := after.TotalAlloc - before.TotalAlloc
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("uploading %d bytes allocated %d bytes; HeapInuse grew by %d", size, allocated, grown)
	if allocated > size/4 || grown > size/4 {
		t.Errorf("uploading %d bytes allocated %d bytes and grew HeapInuse by %d, want both under %d", size, allocated, grown, size/4)
	}
	callWant(t, cs, "blob", "blob", fv.URI, described("application/octet-stream", size, sum[:]))
}
