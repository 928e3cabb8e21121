package transfer_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// TestKeepFilesExperimentalNull: an initialize request whose capabilities
// hold "files" and "experimental": null (valid, and taken by the SDK) is
// rewritten, not a panic that would drop the connection (HTTP) or the
// whole server (stdio).
func TestKeepFilesExperimentalNull(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	ts := httptest.NewServer(transfer.KeepFilesCapability(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"},` +
		`"capabilities":{"files":{"download":true},"experimental":null}}}`
	r, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("initialize with experimental: null through KeepFilesCapability: %v (the handler panicked)", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
		t.Errorf("initialize: %d %s", res.StatusCode, b)
	}
}

// chunking sends every POST body chunked, with no Content-Length, as
// clients that stream their bodies do (and as HTTP/2 requests arrive when
// the client sends no content-length).
type chunking struct{ http.RoundTripper }

func (c chunking) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Body != nil {
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(r.Body)
		r.ContentLength = -1
		r.GetBody = nil
	}
	return c.RoundTripper.RoundTrip(r)
}

// TestKeepFilesChunked: a small initialize sent without Content-Length
// (chunked, ContentLength -1) keeps its files capability too.
func TestKeepFilesChunked(t *testing.T) {
	s := exportServer(t, transfer.Options{})
	ts := httptest.NewServer(transfer.KeepFilesCapability(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	defer ts.Close()
	hc := &http.Client{Transport: chunking{http.DefaultTransport}}
	d := &declaring{Transport: &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}}
	cs := clientOn(t, d, "2025-11-25")
	cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{"n": 10}})
	types, _ := contentTypes(t, d.last(t, `"structuredContent"`))
	if got := strings.Join(types, ","); got != "text,file" {
		t.Errorf("chunked initialize through KeepFilesCapability: content types %s, want text,file", got)
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

// TestFallbackLeavesResult: the fallback for a client without
// files.download is a copy of the handler's result: a handler that keeps
// its result (a cached answer) still gives the next client, which
// declared files.download, its file block.
func TestFallbackLeavesResult(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/"}); err != nil {
		t.Fatal(err)
	}
	var (
		once   sync.Once
		cached *mcp.CallToolResult
	)
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		var err error
		once.Do(func() {
			var v transfer.FileValue
			v, err = transfer.Save(ctx, transfer.Output{Name: "r.txt", MediaType: "text/plain", Data: []byte("report")})
			cached = &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}
		})
		return cached, nil, err
	})
	connect := func(tr mcp.Transport) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		if tr == nil {
			tr = ct
		} else {
			tr.(*declaring).Transport = ct
		}
		return clientOn(t, tr, "2026-07-28")
	}
	plain := connect(nil)
	if _, err := plain.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	d := &declaring{}
	capable := connect(d)
	capable.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}})
	types, _ := contentTypes(t, d.last(t, `"content"`))
	if got := strings.Join(types, ","); got != "file" {
		t.Errorf("a files.download client after a plain one: content types %s, want file", got)
	}
}

// TestSaveDropsMediaTypeParams: a media type with a parameter that
// mime.ParseMediaType reads under the empty name (an RFC 2231
// continuation "*0=x"), which mime.FormatMediaType cannot write back, is
// refused rather than stored without its parameters.
func TestSaveDropsMediaTypeParams(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/"}); err != nil {
		t.Fatal(err)
	}
	const declared = "text/plain; charset=utf-16le; *0=x"
	var got transfer.FileValue
	var saveErr error
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		got, saveErr = transfer.Save(ctx, transfer.Output{Name: "u16.txt", MediaType: declared, Data: []byte("h\x00i\x00")})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs := clientOn(t, ct, "2025-11-25")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if saveErr == nil && !strings.Contains(got.MimeType, "charset=utf-16le") {
		t.Errorf("Save(MediaType %q) = MimeType %q: the charset was dropped without an error", declared, got.MimeType)
	}
}
