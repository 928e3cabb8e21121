package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestTransferThroughS3: a server whose store is S3 hands out presigned
// PUTs; the bytes go straight to the bucket, and tools/call resolves the
// file URI from it with the argument's checks, the content check included
// (S3 holds length, digest and single use, but does not sniff).
func TestTransferThroughS3(t *testing.T) {
	gw := server(t, "http")
	s := s3Server(t, gw, transfer.Options{})
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.DocumentArgs) (*mcp.CallToolResult, any, error) {
		r, err := in.Document.Open()
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Document.MediaType + " " + strconv.FormatInt(n, 10) + " bytes sha256:" + hex.EncodeToString(h.Sum(nil))}}}, nil, nil
	})
	cs := s3Client(t, s)

	upload := func(mediaType string, b []byte) (string, int) {
		t.Helper()
		n := int64(len(b))
		d := transfer.SHA256Digest(sha256.Sum256(b))
		res, err := mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](t.Context(), cs, transfer.MethodAuthorizeUpload,
			&transfer.AuthorizeUploadParams{Name: "doc", MimeType: mediaType, Size: &n, Digest: &d})
		if err != nil {
			t.Fatal(err)
		}
		u := res.Upload
		if u.Method != "PUT" || u.Transport != "https" || !strings.HasPrefix(u.URL, gw.endpoint) || u.Multipart != nil {
			t.Fatalf("upload descriptor %+v: want a presigned PUT to the bucket", u)
		}
		code, _ := send(t, gw, store.SignedRequest{Method: u.Method, URL: u.URL, Headers: u.Headers}, b, nil)
		return res.File.URI, code
	}

	text := bytes.Repeat([]byte("straight to the bucket\n"), 50000)
	uri, code := upload("text/plain", text)
	if code != http.StatusOK {
		t.Fatalf("presigned PUT: %d", code)
	}
	sum := sha256.Sum256(text)
	want := "text/plain " + strconv.Itoa(len(text)) + " bytes sha256:" + hex.EncodeToString(sum[:])
	if got := mcptest.Text(t, mcptest.Call(t, cs, "analyze", map[string]any{"document": uri})); got != want {
		t.Errorf("analyze = %q, want %q", got, want)
	}
	if _, code := upload("text/plain", text); code != http.StatusOK {
		t.Errorf("a second file: %d", code)
	}

	// Bytes that are not a PDF, declared as one: S3 takes them, resolution refuses them.
	fake := []byte("this is not a PDF, whatever the upload said")
	uri, code = upload("application/pdf", fake)
	if code != http.StatusOK {
		t.Fatalf("presigned PUT: %d", code)
	}
	res := mcptest.Call(t, cs, "analyze", map[string]any{"document": uri})
	if got := mcptest.Text(t, res); !res.IsError || !strings.HasPrefix(got, "Argument 'document' fails the content check: declared \"application/pdf\" but the bytes are text") {
		t.Errorf("analyze of a fake PDF = %q", got)
	}
}

// TestDownloadThroughS3: files/authorizeDownload of a file in the bucket
// answers with a presigned GET that S3 serves as the download endpoint
// would: the bytes, a Range, an attachment with the file's name; and that
// stops working once it expires.
func TestDownloadThroughS3(t *testing.T) {
	gw := server(t, "http")
	s := s3Server(t, gw, transfer.Options{DownloadTTL: 2 * time.Second})
	text := strings.Repeat("an output in the bucket\n", 1000)
	type out struct {
		Report transfer.FileValue `json:"report"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, out, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "résumé \"final\".txt", MediaType: "text/plain", Data: []byte(text)})
		return nil, out{v}, err
	})
	cs := s3Client(t, s)

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("export: %v %v", err, res)
	}
	var o out
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &o)
	d, err := mcp.CallCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](t.Context(), cs, transfer.MethodAuthorizeDownload, &transfer.AuthorizeDownloadParams{URI: o.Report.URI})
	if err != nil {
		t.Fatal(err)
	}
	if d.Download.Method != "GET" || !strings.HasPrefix(d.Download.URL, gw.endpoint) {
		t.Fatalf("download descriptor %+v: want a presigned GET from the bucket", d.Download)
	}
	// The name and type are the object's own headers, not the URL's: the
	// URL lands in access logs.
	if q := strings.ToLower(d.Download.URL); strings.Contains(q, "response-content-") || strings.Contains(q, "sum%c3%a9") || strings.Contains(q, "text%2fplain") {
		t.Errorf("download URL %s: want no file name or type in it", d.Download.URL)
	}
	get := func(rng string) (int, http.Header, string) {
		req, _ := http.NewRequest("GET", d.Download.URL, nil)
		for k, v := range d.Download.Headers {
			req.Header.Set(k, v)
		}
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := gw.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(body)
	}
	code, hdr, body := get("")
	sum := sha256.Sum256([]byte(body))
	if code != http.StatusOK || body != text || transfer.SHA256Digest(sum) != *d.File.Digest {
		t.Fatalf("GET: %d, %d bytes", code, len(body))
	}
	if cd := hdr.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") || !strings.Contains(cd, "filename*=UTF-8''r%C3%A9sum%C3%A9") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if ct := hdr.Get("Content-Type"); ct != "text/plain" {
		t.Errorf("Content-Type %q", ct)
	}
	if code, _, body := get("bytes=24-47"); code != http.StatusPartialContent || body != text[24:48] {
		t.Errorf("Range: %d %q", code, body)
	}
	time.Sleep(2100 * time.Millisecond) // past the download's expiry
	if code, _, _ := get(""); code != http.StatusForbidden {
		t.Errorf("GET after the expiry: %d, want 403", code)
	}
}

// s3Server returns a server whose files live in a bucket of gw, under a
// prefix of its own, set up with transfer.Register and o (Keys, Store and
// PublicURL filled in).
func s3Server(t *testing.T, gw *gateway, o transfer.Options) *mcp.Server {
	t.Helper()
	key, err := token.NewKey("k1", bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	o.Keys, _ = token.NewKeyring(key)
	o.Store = newStore(t, gw, s3store.Options{})
	o.PublicURL = "https://files.example.com/"
	s := mcp.NewServer(&mcp.Implementation{Name: "s3", Version: "v1"}, nil)
	if _, err := transfer.Register(s, o); err != nil {
		t.Fatal(err)
	}
	return s
}

// s3Client connects a client that can call files/authorize* to s in
// memory.
func s3Client(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload)
	mcp.AddSendingCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](c, transfer.MethodAuthorizeDownload)
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
