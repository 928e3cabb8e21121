package transfer_test

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// TestQuota: files/authorizeUpload and the upload endpoint hold each owner
// to the quota of outstanding bytes; other owners are not affected.
func TestQuota(t *testing.T) {
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := uploadsServer(t, transfer.Options{Store: st, Quota: 10000})
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs := inMemory(t, s, nil, "")
	six := bytes.Repeat([]byte("x"), 6000)
	uploadFile(t, t.Context(), cs, "a.txt", "text/plain", six)
	_, err = authorize(t.Context(), cs, declare("b.txt", "text/plain", six))
	d, ok := transfer.ErrorDataOf(err)
	if !ok || d.Reason != transfer.ReasonQuotaExceeded || *d.MaxSize != 10000 || *d.ActualSize != 12000 {
		t.Fatalf("authorize past the quota = %v (data %+v), want -32602 quotaExceeded with maxSize 10000, actualSize 12000", err, d)
	}
	// Two authorizations that each fit, uploaded one after the other: the second upload is refused.
	st2, _ := diskstore.New(t.TempDir(), nil)
	s2 := uploadsServer(t, transfer.Options{Store: st2, Quota: 10000})
	runtime.AddTool(s2, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs2 := inMemory(t, s2, nil, "")
	r1, err1 := authorize(t.Context(), cs2, declare("a.txt", "text/plain", six))
	r2, err2 := authorize(t.Context(), cs2, declare("b.txt", "text/plain", six))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if code := send(t, r1.Upload, six); code != http.StatusCreated {
		t.Fatalf("first upload: %d", code)
	}
	if code := send(t, r2.Upload, six); code != http.StatusInsufficientStorage {
		t.Errorf("second upload past the quota: %d, want 507", code)
	}
}

// TestOneQuota: Options.Upload.Quota cannot set the upload endpoint
// another quota than files/authorizeUpload's and the pages': Register
// refuses one that differs from Options.Quota, and takes one that is the
// same.
func TestOneQuota(t *testing.T) {
	for _, tc := range []struct {
		quota, upload int64
		ok            bool
	}{
		{0, 0, true},
		{10000, 0, true},
		{10000, 10000, true},
		{0, transfer.DefaultQuota, true},
		{10000, 5000, false},
		{0, 5000, false},
		{-1, 5000, false},
	} {
		s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
		_, err := transfer.Register(s, transfer.Options{
			Keys: testKeys(t), PublicURL: "https://example.com/files/", Store: memstore.New(nil),
			Quota: tc.quota, Upload: transfer.UploadOptions{Quota: tc.upload},
		})
		if ok := err == nil; ok != tc.ok || (err != nil && !strings.Contains(err.Error(), "Options.Upload.Quota")) {
			t.Errorf("Register with Quota %d, Upload.Quota %d: %v, want ok %v", tc.quota, tc.upload, err, tc.ok)
		}
	}
}

// TestQuotaPerAnonymousSession: without auth, the callers of a protocol
// with sessions (2025-11-25 over streamable HTTP) whose address the server
// was not told each have a quota of their own, and one cannot use
// another's file: one anonymous client that holds its quota does not lock
// out the next. (Where the address is told, see
// TestQuotaPerAnonymousSessionAddress.)
func TestQuotaPerAnonymousSession(t *testing.T) {
	connect := sessionsServer(t, transfer.Options{Quota: 10000})
	a, b := connect(), connect()
	six := bytes.Repeat([]byte("x"), 6000)
	uri := uploadFile(t, t.Context(), a, "a.txt", "text/plain", six)
	if _, err := authorize(t.Context(), a, declare("b.txt", "text/plain", six)); !isQuotaExceeded(err) {
		t.Errorf("the first session's second 6000 bytes under a quota of 10000: %v, want quotaExceeded", err)
	}
	if _, err := authorize(t.Context(), b, declare("b.txt", "text/plain", six)); err != nil {
		t.Errorf("another anonymous session's first 6000 bytes: %v, want a quota of its own", err)
	}
	text, isErr := callText(t, b, "analyze", map[string]any{"document": uri})
	if !isErr || !strings.Contains(text, "did not issue it to this caller") {
		t.Errorf("another session's file URI = %q (isError %v), want it refused as not this caller's", text, isErr)
	}
	if text, isErr := callText(t, a, "analyze", map[string]any{"document": uri}); isErr {
		t.Errorf("the uploading session's own file URI: %s", text)
	}
}

// TestAnonymousQuotaTogether: callers without auth, each within its own
// quota, are refused together once the store holds AnonymousQuota, with
// an error that says the limit is shared; by default that is four quotas.
func TestAnonymousQuotaTogether(t *testing.T) {
	connect := sessionsServer(t, transfer.Options{Quota: 10000, AnonymousQuota: 15000})
	six := bytes.Repeat([]byte("x"), 6000)
	uploadFile(t, t.Context(), connect(), "a.txt", "text/plain", six)
	uploadFile(t, t.Context(), connect(), "b.txt", "text/plain", six)
	_, err := authorize(t.Context(), connect(), declare("c.txt", "text/plain", six))
	d, ok := transfer.ErrorDataOf(err)
	if !ok || d.Reason != transfer.ReasonQuotaExceeded || *d.MaxSize != 15000 || *d.ActualSize != 18000 || !strings.Contains(err.Error(), "callers without auth share a limit") {
		t.Errorf("a third anonymous session past AnonymousQuota 15000: %v (data %+v), want quotaExceeded of the shared limit", err, d)
	}

	connect = sessionsServer(t, transfer.Options{Quota: 10000})
	for i := range 4 {
		uploadFile(t, t.Context(), connect(), "a.txt", "text/plain", bytes.Repeat([]byte("x"), 9000+i))
	}
	if _, err := authorize(t.Context(), connect(), declare("e.txt", "text/plain", six)); !isQuotaExceeded(err) {
		t.Errorf("a fifth anonymous session past four quotas held: %v, want quotaExceeded", err)
	}
}

// sessionsServer starts a server of o (its Keys, PublicURL and Store, a
// diskstore, set here) with the analyze tool over streamable HTTP with
// sessions, and returns what connects a new anonymous client session on
// 2025-11-25. Its MCP endpoint is not wrapped with
// transfer.KeepCallerAddress: the transfer layer knows no session's address.
func sessionsServer(t *testing.T, o transfer.Options) func() *mcp.ClientSession {
	t.Helper()
	connect := sessionsServerFrom(t, o, false)
	return func() *mcp.ClientSession { return connect("") }
}

// sessionsServerFrom is sessionsServer, its MCP endpoint wrapped with
// transfer.KeepCallerAddress when keep, whose sessions connect from an
// address (see fromAddress).
func sessionsServerFrom(t *testing.T, o transfer.Options, keep bool) func(ip string) *mcp.ClientSession {
	t.Helper()
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	o.Keys, o.PublicURL, o.Store = testKeys(t), ts.URL+"/files/", st
	h, err := transfer.Register(s, o)
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	mux.Handle("/files/", h)
	var endpoint http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if keep {
		endpoint = testRemoteAddr(transfer.KeepCallerAddress(endpoint))
	}
	mux.Handle("/mcp", endpoint)
	return func(ip string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
		enableFiles(t, c)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: fromAddress(ip)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if cs.ID() == "" {
			t.Fatal("the streamable HTTP session has no ID")
		}
		return cs
	}
}

// TestQuotaPerAnonymousSessionAddress: anonymous sessions (2025-11-25
// over HTTP), each an owner of its own, also count against the address
// they call from once the server knows it (transfer.KeepCallerAddress):
// one client that opens session after session from one address holds one
// Quota between them, not a Quota each, and the refusal names the address
// and auth; a session from another address still uploads. A file URI
// still works in the session that uploaded the file only.
func TestQuotaPerAnonymousSessionAddress(t *testing.T) {
	connect := sessionsServerFrom(t, transfer.Options{Quota: 10000, AnonymousQuota: 100000}, true)
	six := bytes.Repeat([]byte("x"), 6000)
	a := connect("")
	uri := uploadFile(t, t.Context(), a, "a.txt", "text/plain", six)
	for i := range 3 {
		_, err := authorize(t.Context(), connect(""), declare("b.txt", "text/plain", six))
		if !isQuotaExceeded(err) || !strings.Contains(err.Error(), "callers without auth from this address") || !strings.Contains(err.Error(), "authenticate") {
			t.Errorf("new session %d's 6000 bytes from an address that holds 6000 of a quota of 10000: %v, want quotaExceeded naming the address and auth", i+1, err)
		}
	}
	b := connect("127.0.0.2")
	uploadFile(t, t.Context(), b, "b.txt", "text/plain", six)
	if text, isErr := callText(t, connect(""), "analyze", map[string]any{"document": uri}); !isErr || !strings.Contains(text, "did not issue it to this caller") {
		t.Errorf("another session's file URI, from the same address = %q (isError %v), want it refused as not this caller's", text, isErr)
	}
	if text, isErr := callText(t, a, "analyze", map[string]any{"document": uri}); isErr || !strings.Contains(text, "6000 bytes") {
		t.Errorf("the uploading session's own file URI: %q (isError %v), want the file", text, isErr)
	}
}

// TestQuotaPerAnonymousNetwork: an IPv6 caller that holds a /48 holds
// 65,536 /64s; callers without auth hold the quota per /48, its /64s
// together, so that one such network cannot take more of AnonymousQuota
// than one IPv4 address: a new /64 of a /48 that holds its quota is
// refused, saying so, and another /48 still uploads.
func TestQuotaPerAnonymousNetwork(t *testing.T) {
	connect, _ := statelessServer(t, t.TempDir(), transfer.Options{Quota: 10000, AnonymousQuota: 100000})
	six := bytes.Repeat([]byte("x"), 6000)
	uploadFile(t, t.Context(), connect("2001:db8:1::1"), "a.txt", "text/plain", six)
	_, err := authorize(t.Context(), connect("2001:db8:1:1::1"), declare("b.txt", "text/plain", six))
	if !isQuotaExceeded(err) || !strings.Contains(err.Error(), "callers without auth from this IPv6 network (a /48") || !strings.Contains(err.Error(), "authenticate") {
		t.Errorf("6000 bytes from a new /64 of a /48 that holds 6000 of a quota of 10000: %v, want quotaExceeded naming the network and auth", err)
	}
	uploadFile(t, t.Context(), connect("2001:db8:2::1"), "b.txt", "text/plain", six)
}

// TestQuotaPerAnonymousAddress: callers without auth and without a
// session (2026-07-28 over HTTP, each request a session of its own) hold
// Quota per address, not one Quota for all of them: a client from one
// address that holds its quota is refused, saying so, while a client from
// another address uploads; all of them together stop at AnonymousQuota.
// A file URI stays a capability: a caller from another address that has
// it reads the file and downloads it. The store holds no address.
func TestQuotaPerAnonymousAddress(t *testing.T) {
	dir := t.TempDir()
	connect, files := statelessServer(t, dir, transfer.Options{Quota: 10000, AnonymousQuota: 15000})
	six := bytes.Repeat([]byte("x"), 6000)
	a := connect("")
	uri := uploadFile(t, t.Context(), a, "a.txt", "text/plain", six)
	_, err := authorize(t.Context(), a, declare("b.txt", "text/plain", six))
	if !isQuotaExceeded(err) || !strings.Contains(err.Error(), "callers without auth from this address") || !strings.Contains(err.Error(), "authenticate") {
		t.Errorf("a second 6000 bytes from one address under a quota of 10000: %v, want quotaExceeded naming the address and auth", err)
	}
	b := connect("127.0.0.2")
	uploadFile(t, t.Context(), b, "b.txt", "text/plain", six)
	if text, isErr := callText(t, b, "analyze", map[string]any{"document": uri}); isErr || !strings.Contains(text, "6000 bytes") {
		t.Errorf("the file URI of another address's upload: %q (isError %v), want the file", text, isErr)
	}
	res, err := authorizeDownload(t.Context(), b, uri)
	if err != nil {
		t.Fatalf("authorizeDownload of another address's upload: %v", err)
	}
	if code, _, body := get(t, files, "GET", res.Download.URL, nil); code != http.StatusOK || !bytes.Equal(body, six) {
		t.Errorf("download: %d, %d bytes, want 200 and the file", code, len(body))
	}
	_, err = authorize(t.Context(), connect("127.0.0.3"), declare("c.txt", "text/plain", six))
	if !isQuotaExceeded(err) || !strings.Contains(err.Error(), "callers without auth share a limit") {
		t.Errorf("a third address past AnonymousQuota 15000: %v, want quotaExceeded of the shared limit", err)
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && (bytes.Contains(b, []byte("127.0.0.")) || bytes.Contains(b, []byte("127%2E0"))) {
			t.Errorf("the store's %s holds a caller's address", filepath.Base(path))
		}
		return nil
	})
}

// statelessServer starts a server of o (its Keys, PublicURL and Store, a
// diskstore in dir, set here) with the analyze tool over streamable HTTP without
// sessions, as protocol 2026-07-28 is served, its MCP endpoint wrapped
// with transfer.KeepCallerAddress; it returns what connects a client
// without auth from a loopback address (see fromAddress), and an HTTP
// client for the transfer endpoints.
func statelessServer(t *testing.T, dir string, o transfer.Options) (func(ip string) *mcp.ClientSession, *http.Client) {
	t.Helper()
	st, err := diskstore.New(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	o.Keys, o.PublicURL, o.Store = testKeys(t), ts.URL+"/files/", st
	h, err := transfer.Register(s, o)
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	mux.Handle("/files/", h)
	mux.Handle("/mcp", testRemoteAddr(transfer.KeepCallerAddress(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))))
	return func(ip string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
		enableFiles(t, c)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: fromAddress(ip)}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}, ts.Client()
}
