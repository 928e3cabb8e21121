package transfer_test

// Hardening: what a review of the transfer layer found, each held to the
// fixed behaviour.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestReviewUploadTokenReplayAfterSweep: with FileTTL shorter than
// AuthorizationTTL, the upload token outlives the file it made. Once the
// file has expired and been swept, the same token uploads other bytes
// under the same file ID, and the same, still unexpired, file URI then
// resolves to them: the URI does not name one immutable byte sequence.
func TestUploadTokenReplayAfterSweep(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().Unix())
	now := func() time.Time { return time.Unix(clock.Load(), 0) }
	st := memstore.New(&memstore.Options{Now: now})
	s := uploadsServer(t, transfer.Options{Store: st, Now: now, FileTTL: time.Minute}) // AuthorizationTTL: the default hour
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")

	first, second := []byte("the bytes the user meant"), []byte("other bytes, same length")
	n := int64(len(first))
	res, err := authorize(t.Context(), cs, &transfer.AuthorizeUploadParams{MimeType: "text/plain", Size: &n}) // no digest
	if err != nil {
		t.Fatal(err)
	}
	if code := send(t, res.Upload, first); code != http.StatusCreated {
		t.Fatalf("upload: %d", code)
	}
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	if out := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": res.File.URI})); !strings.Contains(out, sum(first)) {
		t.Fatalf("first call: %q", out)
	}

	clock.Add(120) // the file expires; the upload token (1 h) and the file URI (1 h + 1 min) do not
	if _, err := st.Sweep(t.Context(), now()); err != nil {
		t.Fatal(err)
	}
	if code := send(t, res.Upload, second); code != http.StatusConflict {
		t.Errorf("the same upload token again, after the sweep: %d, want 409 (the token is single use)", code)
	}
	if out := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": res.File.URI})); strings.Contains(out, sum(second)) {
		t.Errorf("the same file URI now resolves to other bytes: %q", out)
	}
}

// TestReviewExplicitHost: Options.Host given in mixed case (as a DNS name
// may well be written) makes every file URI unusable: FileURI writes the
// host lower-cased, Resolve compares it with Options.Host as given.
func TestExplicitHost(t *testing.T) {
	s := uploadsServer(t, transfer.Options{Host: "Files.Example.com"})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")
	uri := uploadFile(t, t.Context(), cs, "a.txt", "text/plain", []byte("hello"))
	res := mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})
	if res.IsError {
		t.Errorf("a file URI this server just issued: %q", mcptest.Text(t, res))
	}
}

// TestReviewMediaTypeExpandsPastTokenLimit: a declared mimeType within
// MaxMediaTypeLen whose parameter mime.FormatMediaType re-encodes (RFC
// 2231, three bytes per byte) passes every check of files/authorizeUpload
// and would then fail to sign: it is refused as malformed, -32602.
func TestMediaTypeExpandsPastTokenLimit(t *testing.T) {
	var logged strings.Builder
	s := uploadsServer(t, transfer.Options{ErrorLog: log.New(&logged, "", 0)})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")
	mt := `text/plain; title="` + strings.Repeat("é", 100) + `"` // 216 bytes
	n := int64(5)
	_, err := authorize(t.Context(), cs, &transfer.AuthorizeUploadParams{MimeType: mt, Size: &n})
	if d, ok := transfer.ErrorDataOf(err); !ok || d.Reason != transfer.ReasonMalformed || logged.Len() > 0 {
		t.Errorf("authorize(%d-byte mimeType) = %v, want -32602 malformed and nothing logged (logged %q)", len(mt), err, logged.String())
	}
}

// TestReviewAuthWithoutUserID: behind the SDK's bearer-token auth, with a
// verifier that sets no UserID (it is optional in auth.TokenInfo), every
// principal is "": a file Alice uploaded is usable by Bob, against the
// package doc ("a file belongs to the principal that authorized it ... no
// other may use it"), and all users share one quota.
func TestAuthWithoutUserID(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	files, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), PublicURL: ts.URL + "/files/", Store: memstore.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if tok != "alice" && tok != "bob" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: []string{"files"}, Expiration: time.Now().Add(time.Hour)}, nil // no UserID
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	mux.Handle("/files/", files)

	connect := func(who string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: who, Version: "v1"}, nil)
		enableFiles(t, c)
		hc := &http.Client{Transport: reviewBearer{who, http.DefaultTransport}}
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice := connect("alice")
	n := int64(5)
	_, err = authorize(t.Context(), alice, &transfer.AuthorizeUploadParams{MimeType: "text/plain", Size: &n})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "names no principal") {
		t.Errorf("authorize with token info that names nobody = %v, want -32603 saying so", err)
	}
}

type reviewBearer struct {
	tok string
	rt  http.RoundTripper
}

func (b reviewBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.rt.RoundTrip(r)
}

// TestReviewRegisterTwice: a second Register on the same server is
// accepted; files/authorizeUpload then issues URIs under the second
// Options while the first Register's resolver, innermost in the
// middleware chain, checks them with the first keys: no upload resolves.
func TestRegisterTwice(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	st := memstore.New(nil)
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), PublicURL: ts.URL + "/files/", Store: st}); err != nil {
		t.Fatal(err)
	}
	_, err := transfer.Register(s, transfer.Options{Keys: testKeysByte(t, 9), PublicURL: ts.URL + "/files/", Store: st})
	if err == nil || !strings.Contains(err.Error(), "once per server") {
		t.Errorf("second Register = %v, want an error saying to call it once", err)
	}
	_ = mux
}

func testKeysByte(t *testing.T, b byte) *token.Keyring {
	t.Helper()
	k, err := token.NewKeyring(key(t, b))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestReviewDefaultStorePerServerLeaks: Register without a Store starts a
// sweeper goroutine that runs until Options.Context is done (by default,
// never) and whose closure holds the config, and so the server. A program
// that makes a server per session (mcp.NewStreamableHTTPHandler's
// getServer) and calls Register on each keeps every one of them alive,
// with a goroutine, a ticker and a diskstore whose index New built by
// reading every object on disk, and whose quota is its own.
func TestDefaultStorePerServerLeaks(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	keys := testKeys(t)
	before := goruntime.NumGoroutine()
	const n = 20
	var servers []weak.Pointer[mcp.Server]
	for range n {
		s := mcp.NewServer(&mcp.Implementation{Name: "per-session", Version: "v1"}, nil)
		if _, err := transfer.Register(s, transfer.Options{Keys: keys, PublicURL: "https://example.com/files/"}); err != nil {
			t.Fatal(err)
		}
		servers = append(servers, weak.Make(s))
	}
	for range 5 {
		goruntime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	alive := 0
	for _, w := range servers {
		if w.Value() != nil {
			alive++
		}
	}
	if alive > 0 {
		t.Errorf("%d of %d dropped servers are still alive after GC (the default store's sweeper holds each)", alive, n)
	}
	if g := goruntime.NumGoroutine() - before; g >= n {
		t.Errorf("%d goroutines more after %d servers were registered and dropped", g, n)
	}
}

// TestReviewUploadedReaderAfterClose: File.Open's FileReader promises
// fs.ErrClosed from Read after Close; the reader of an uploaded file is
// the store's own, and memstore's reads on.
func TestUploadedReaderAfterClose(t *testing.T) {
	s := uploadsServer(t, transfer.Options{})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BigArgs) (*mcp.CallToolResult, any, error) {
		r, err := in.Blob.Open()
		if err != nil {
			return nil, nil, err
		}
		r.Close()
		_, err = r.Read(make([]byte, 1))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(errors.Is(err, fs.ErrClosed))}}}, nil, nil
	})
	cs := inMemory(t, s, nil, "")
	uri := uploadFile(t, t.Context(), cs, "a.txt", "text/plain", []byte("hello"))
	if got := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})); got != "true" {
		t.Errorf("Read after Close of an uploaded file's reader: errors.Is(err, fs.ErrClosed) = %s, want true", got)
	}
}

// TestReviewWildcardMediaType: files/authorizeUpload takes a wildcard as
// the file's media type (mime.ParseMediaType allows '*' in a token), the
// content check knows no signature for it, and the handler gets
// File.MediaType "*/*" or "image/*" over bytes of any kind; a data: URI
// with such a media type is refused as malformed.
func TestWildcardMediaType(t *testing.T) {
	s := uploadsServer(t, transfer.Options{})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")
	for _, mt := range []string{"*/*", "image/*", "*/png"} {
		n := int64(5)
		_, err := authorize(t.Context(), cs, &transfer.AuthorizeUploadParams{MimeType: mt, Size: &n})
		if d, ok := transfer.ErrorDataOf(err); !ok || d.Reason != transfer.ReasonMalformed {
			t.Errorf("authorize(mimeType %q) = %v, want -32602 malformed", mt, err)
		}
	}
}
