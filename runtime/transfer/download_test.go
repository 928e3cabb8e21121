package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// An authSite is a server with uploads behind bearer auth, MCP and the
// transfer endpoints alike: the token "<user>-token" is the user <user>.
// Its tool export saves a file of the text it is given; its tool analyze
// reads a testtypes.DocumentArgs document.
type authSite struct {
	url   string
	store store.Store
}

func newAuthSite(t *testing.T) *authSite {
	t.Helper()
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "auth", Version: "v1"}, nil)
	h, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: st, PublicURL: ts.URL + "/files/"})
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	type exportIn struct {
		Text string `json:"text"`
		Name string `json:"name"`
	}
	type exportOut struct {
		Report transfer.FileValue `json:"report"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, in exportIn) (*mcp.CallToolResult, exportOut, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: in.Name, MediaType: "text/plain; charset=utf-8", Data: []byte(in.Text)})
		return nil, exportOut{v}, err
	})
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		user, ok := strings.CutSuffix(tok, "-token")
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	protect := auth.RequireBearerToken(verify, nil)
	mux.Handle("/files/", protect(h))
	mux.Handle("/mcp", protect(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	return &authSite{url: ts.URL, store: st}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	tok  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.base.RoundTrip(r)
}

// client returns an HTTP client of user and an MCP session of it that can
// call files/authorize*.
func (s *authSite) client(t *testing.T, user string) (*http.Client, *mcp.ClientSession) {
	t.Helper()
	hc := &http.Client{Transport: bearer{user + "-token", http.DefaultTransport}}
	c := mcp.NewClient(&mcp.Implementation{Name: user, Version: "v1"}, nil)
	enableFiles(t, c)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return hc, cs
}

func authorizeDownload(ctx context.Context, cs *mcp.ClientSession, uri string) (*transfer.AuthorizeDownloadResult, error) {
	return mcp.CallCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](ctx, cs, transfer.MethodAuthorizeDownload, &transfer.AuthorizeDownloadParams{URI: uri})
}

// get fetches url with hc and returns the status, headers and body.
func get(t *testing.T, hc *http.Client, method, url string, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	res, err := hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// reasonOf is the machine code of a refusal's JSON body, its "reason".
func reasonOf(body []byte) string {
	var v struct{ Reason string }
	json.Unmarshal(body, &v)
	return v.Reason
}

// TestOutputAndDownload: a tool saves a file for its caller; the caller
// authorizes its download and gets the bytes, whole or by range, with
// their digest; another user can neither authorize nor use it.
func TestOutputAndDownload(t *testing.T) {
	s := newAuthSite(t)
	alice, aliceMCP := s.client(t, "alice")
	bob, bobMCP := s.client(t, "bob")

	text := strings.Repeat("quarterly numbers, all of them\n", 1000)
	res := mcptest.Call(t, aliceMCP, "export", map[string]any{"text": text, "name": "../Q3\u202ereport.txt"})
	var out struct {
		Report transfer.FileValue `json:"report"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError {
		t.Fatalf("export: %s (%v)", b, err)
	}
	v := out.Report
	sum := sha256.Sum256([]byte(text))
	if v.Size == nil || *v.Size != int64(len(text)) || *v.Digest != transfer.SHA256Digest(sum) || v.MimeType != "text/plain; charset=utf-8" || v.Name != runtime.SanitizeName("../Q3\u202ereport.txt") || !strings.HasPrefix(v.URI, "mcp-file://") {
		t.Fatalf("FileValue %+v", v)
	}

	d, err := authorizeDownload(t.Context(), aliceMCP, v.URI)
	if err != nil {
		t.Fatal(err)
	}
	if d.File.URI != v.URI || *d.File.Digest != *v.Digest || d.Download.Method != "GET" || d.Download.Transport != "https" || d.Download.ExpiresAt.IsZero() || !strings.HasPrefix(d.Download.URL, s.url+"/files/download/") {
		t.Fatalf("authorizeDownload = %+v", d)
	}
	code, hdr, body := get(t, alice, "GET", d.Download.URL, nil)
	if code != 200 || string(body) != text {
		t.Fatalf("download: %d, %d bytes", code, len(body))
	}
	if ct, cd := hdr.Get("Content-Type"), hdr.Get("Content-Disposition"); ct != "text/plain; charset=utf-8" || !strings.HasPrefix(cd, "attachment; filename=\"") || strings.ContainsAny(cd, "\u202e/") {
		t.Errorf("Content-Type %q, Content-Disposition %q", ct, cd)
	}
	if hdr.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(hdr.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("headers %v: want nosniff and a sandboxing CSP", hdr)
	}
	code, hdr, body = get(t, alice, "GET", d.Download.URL, map[string]string{"Range": "bytes=31-61"})
	if code != http.StatusPartialContent || string(body) != text[31:62] || hdr.Get("Content-Range") != "bytes 31-61/"+itoa(int64(len(text))) {
		t.Errorf("range: %d %q %v", code, body, hdr.Get("Content-Range"))
	}
	if code, _, _ := get(t, alice, "GET", d.Download.URL, map[string]string{"Range": "bytes=999999-"}); code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range past the end: %d, want 416", code)
	}
	many := "bytes=" + strings.TrimSuffix(strings.Repeat("0-10,", 500), ",")
	if code, _, body := get(t, alice, "GET", d.Download.URL, map[string]string{"Range": many}); code != http.StatusOK || string(body) != text {
		t.Errorf("500 overlapping ranges: %d with %d bytes, want the whole file once", code, len(body))
	}
	if code, _, body := get(t, alice, "HEAD", d.Download.URL, nil); code != 200 || len(body) != 0 {
		t.Errorf("HEAD: %d with %d bytes", code, len(body))
	}
	if code, _, body := get(t, alice, "POST", d.Download.URL, nil); code != http.StatusMethodNotAllowed || reasonOf(body) != transfer.ReasonMethodNotAllowed {
		t.Errorf("POST: %d %s, want 405 methodNotAllowed", code, body)
	}

	// Bob: no authorization for alice's file, no use of her download URL or her file URI.
	_, err = authorizeDownload(t.Context(), bobMCP, v.URI)
	if dd, ok := transfer.ErrorDataOf(err); !ok || dd.Reason != transfer.ReasonUnauthorized {
		t.Errorf("bob's authorizeDownload = %v, want -32602 unauthorized", err)
	}
	if code, _, body := get(t, bob, "GET", d.Download.URL, nil); code != http.StatusForbidden || reasonOf(body) != transfer.ReasonUnauthorized {
		t.Errorf("bob's download with alice's URL: %d %s, want 403 unauthorized", code, body)
	}
	res = mcptest.Call(t, bobMCP, "analyze", map[string]any{"document": v.URI})
	if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, "is not a usable file URI: this server did not issue it to this caller") {
		t.Errorf("bob's analyze with alice's file: %q", got)
	}
	// Alice may use her own output as an input.
	res = mcptest.Call(t, aliceMCP, "analyze", map[string]any{"document": v.URI})
	if got := mcptest.Text(t, res); res.IsError || !strings.HasPrefix(got, "text/plain "+itoa(int64(len(text)))+" bytes") {
		t.Errorf("alice's analyze with her file: %q", got)
	}

	// Forged and altered tokens.
	for _, u := range []string{d.Download.URL + "x", strings.Replace(d.Download.URL, "/download/", "/download/A", 1), s.url + "/files/download/not.a-token"} {
		if code, _, body := get(t, alice, "GET", u, nil); code != http.StatusForbidden && code != http.StatusBadRequest {
			t.Errorf("GET altered token: %d %s", code, body)
		}
	}
	if code, _, body := get(t, alice, "GET", s.url+"/files/elsewhere", nil); code != http.StatusNotFound || reasonOf(body) != transfer.ReasonNotFound {
		t.Errorf("GET of another path: %d %s, want 404 notFound", code, body)
	}
	// Revoked: the file deleted, the download URL finds nothing.
	ref, err := testKeys(t).ParseFileURI(v.URI, "alice", time.Now()) // the file id is sealed in the URI
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Delete(t.Context(), ref.FileID); err != nil {
		t.Fatal(err)
	}
	if code, _, body := get(t, alice, "GET", d.Download.URL, nil); code != http.StatusNotFound || reasonOf(body) != transfer.ReasonNotFound {
		t.Errorf("download after the file was deleted: %d %s, want 404 notFound", code, body)
	}
	_, err = authorizeDownload(t.Context(), aliceMCP, v.URI)
	if dd, ok := transfer.ErrorDataOf(err); !ok || dd.Reason != transfer.ReasonNotFound {
		t.Errorf("authorizeDownload after the file was deleted = %v, want -32602 notFound", err)
	}
	var je *jsonrpc.Error
	if _, err := authorizeDownload(t.Context(), aliceMCP, "mcp-file://x/../../etc/passwd"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("authorizeDownload of a path = %v, want -32602", err)
	}
}

// TestSaveFromPathAndReader: Save takes a file the server owns, and a
// reader held to its declared size.
func TestSaveFromPathAndReader(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(p, bytes.Repeat([]byte{1, 2, 3}, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "save", Version: "v1"}, nil)
	if _, err := transfer.Register(srv, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/"}); err != nil {
		t.Fatal(err)
	}
	type in struct {
		How string `json:"how"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "save"}, func(ctx context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, transfer.FileValue, error) {
		switch in.How {
		case "path":
			v, err := transfer.Save(ctx, transfer.Output{Path: p})
			return nil, v, err
		case "short":
			v, err := transfer.Save(ctx, transfer.Output{Reader: strings.NewReader("abc"), Size: 4})
			return nil, v, err
		case "both":
			v, err := transfer.Save(ctx, transfer.Output{Data: []byte("x"), Path: p})
			return nil, v, err
		}
		v, err := transfer.Save(ctx, transfer.Output{Path: dir})
		return nil, v, err
	})
	cs := mcptest.Connect(t, srv, nil, "")
	res := mcptest.Call(t, cs, "save", map[string]any{"how": "path"})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), `"size":3000`) || !strings.Contains(string(b), `"mimeType":"application/octet-stream"`) {
		t.Errorf("save from a path: %s", b)
	}
	for how, want := range map[string]string{
		"short": "store: object smaller than its declared size",
		"both":  "exactly one of",
		"dir":   "is not a regular file",
	} {
		res := mcptest.Call(t, cs, "save", map[string]any{"how": how})
		if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, want) {
			t.Errorf("save %s: %q, want an error containing %q", how, got, want)
		}
	}
	// Outside a server with transfer.Register, Save says so.
	if _, err := transfer.Save(context.Background(), transfer.Output{Data: []byte("x")}); err == nil || !strings.Contains(err.Error(), "transfer.Register") {
		t.Errorf("Save without a server = %v", err)
	}
}

// TestFileContentBlock: the content block is the SEP's, inside a result
// the SDK writes.
func TestFileContentBlock(t *testing.T) {
	size := int64(252001)
	v := transfer.FileValue{URI: "mcp-file://server/file_01HYZA", Name: "annotated-report.pdf", MimeType: "application/pdf", Size: &size,
		Digest: &transfer.FileDigest{Algorithm: "sha-256", Value: "g_o9GvJ2c3BIHqS_oQYV-a8bW4FSYd9_gF9Eav8F8BA"}}
	res := &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Content []json.RawMessage `json:"content"`
	}
	json.Unmarshal(b, &got)
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "spec", "vectors", "sep2631-final", "content-block-file.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(got.Content[0], &g)
	json.Unmarshal(want, &w)
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("content block\n got %s\nwant %s", gb, wb)
	}
}

// TestGeneratedOutputSchema: a tool whose output type has a FileValue
// field, generated by mcpfilegen, declares the generated schema as its
// outputSchema, and its structuredContent holds the FileValue, validated
// against that schema.
func TestGeneratedOutputSchema(t *testing.T) {
	s := uploadsServer(t, transfer.Options{Store: memstore.New(nil)})
	report := []byte("line 1\nline 2\n")
	runtime.AddTool(s, &mcp.Tool{Name: "report"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, testtypes.ReportOut, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "report.txt", MediaType: "text/plain", Data: report})
		if err != nil {
			return nil, testtypes.ReportOut{}, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}, testtypes.ReportOut{Report: v, Lines: 2}, nil
	})
	cs := inMemory(t, s, nil, "2025-11-25")
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	json.Unmarshal(testtypes.ReportOut{}.MCPSchema(), &want)
	for _, tool := range tools.Tools {
		if tool.Name == "report" {
			b, _ := json.Marshal(tool.OutputSchema)
			json.Unmarshal(b, &got)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outputSchema\n got %v\nwant the generated %v", got, want)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "report", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var out testtypes.ReportOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || !strings.HasPrefix(out.Report.URI, "mcp-file://") || *out.Report.Size != int64(len(report)) || out.Lines != 2 {
		t.Errorf("structuredContent %s: %v", b, err)
	}
}

// TestDownloadExpiresAtTruncated: the download descriptor's expiresAt is
// the token's expiry, kept to the second, so the URL works until the time
// the descriptor says.
func TestDownloadExpiresAtTruncated(t *testing.T) {
	var mu sync.Mutex
	now := time.Now().Truncate(time.Second).Add(700 * time.Millisecond)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	h, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/", Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		Report transfer.FileValue `json:"report"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, out, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "r.txt", Data: []byte("report")})
		return nil, out{v}, err
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
	enableFiles(t, c)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("export: %v %v", err, res)
	}
	uri := res.StructuredContent.(map[string]any)["report"].(map[string]any)["uri"].(string)
	d, err := authorizeDownload(t.Context(), cs, uri)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = d.Download.ExpiresAt.Add(-100 * time.Millisecond) // before the advertised expiry
	mu.Unlock()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", d.Download.URL, nil))
	if w.Code != http.StatusOK {
		t.Errorf("GET 100ms before the descriptor's expiresAt %s: %d %s, want 200", d.Download.ExpiresAt.Format(time.RFC3339Nano), w.Code, w.Body)
	}
}

// TestDownloadRanges: a Range that asks for no byte of the file, or is no
// range, is refused with 416 and the file's length; one that overlaps it
// gets its bytes; several get the whole file.
func TestDownloadRanges(t *testing.T) {
	s := newAuthSite(t)
	alice, aliceMCP := s.client(t, "alice")
	text := strings.Repeat("0123456789", 250) // 2500 bytes
	res := mcptest.Call(t, aliceMCP, "export", map[string]any{"text": text, "name": "digits.txt"})
	var out struct {
		Report transfer.FileValue `json:"report"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError {
		t.Fatalf("export: %s (%v)", b, err)
	}
	d, err := authorizeDownload(t.Context(), aliceMCP, out.Report.URI)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rng, ifRange string
		code         int
		body         string // of a 200 or 206
	}{
		{rng: "bytes=-0", code: 416},
		{rng: "bytes=5-4", code: 416},
		{rng: "bytes=-", code: 416},
		{rng: "bytes=a-b", code: 416},
		{rng: "bytes=", code: 416},
		{rng: "bytes=2500-", code: 416},
		{rng: "bytes=2500-2600", code: 416},
		{rng: "bytes=99999999999999999999-", code: 416},
		{rng: "bytes=2500-,3000-3100,-0", code: 416},
		{rng: "bytes=0-1,5-4", code: 416},
		{rng: "bytes=-10", code: 206, body: text[2490:]},
		{rng: "bytes=2499-", code: 206, body: text[2499:]},
		{rng: "bytes=10-19", code: 206, body: text[10:20]},
		{rng: "bytes=2490-99999", code: 206, body: text[2490:]},
		{rng: "bytes=2500-,0-1", code: 200, body: text},
		{rng: "items=0-1", code: 200, body: text},
		{rng: "bytes=-0", ifRange: `"sha256-other"`, code: 200, body: text},
	} {
		hdr := map[string]string{"Range": tt.rng}
		if tt.ifRange != "" {
			hdr["If-Range"] = tt.ifRange
		}
		code, h, body := get(t, alice, "GET", d.Download.URL, hdr)
		switch {
		case code != tt.code:
			t.Errorf("Range %q (If-Range %q): %d %q, want %d", tt.rng, tt.ifRange, code, h.Get("Content-Range"), tt.code)
		case code == 416 && (h.Get("Content-Range") != "bytes */2500" || reasonOf(body) != transfer.ReasonRangeNotSatisfiable):
			t.Errorf("Range %q: 416 with Content-Range %q and %s, want bytes */2500 and reason %s", tt.rng, h.Get("Content-Range"), body, transfer.ReasonRangeNotSatisfiable)
		case code != 416 && string(body) != tt.body:
			t.Errorf("Range %q: %d with %d bytes, want %d", tt.rng, code, len(body), len(tt.body))
		}
	}
}
