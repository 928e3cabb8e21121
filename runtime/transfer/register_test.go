package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
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
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// A site is a server with uploads, over streamable HTTP on 127.0.0.1:
// MCP at /mcp, the transfer handler at /files/.
type site struct {
	url    string
	store  store.Store
	keys   *token.Keyring
	clock  *atomic.Int64 // Unix seconds of the server's Now
	server *mcp.Server
}

// newSite starts a server whose describe tool takes testtypes.ImageArgs
// (a PNG or JPEG of at most 1 KiB, no transferModes: inline or upload) and
// answers with the size and SHA-256 of the bytes it read through Open; with
// blob set, it also has the tool blob, which takes testtypes.BigArgs (any
// file of up to 5 MiB, unsniffed).
func newSite(t *testing.T, st store.Store, keys *token.Keyring, blob bool) *site {
	t.Helper()
	return newSiteWith(t, st, keys, blob, nil)
}

// newSiteWith is newSite, with the Options edit changes (when not nil).
func newSiteWith(t *testing.T, st store.Store, keys *token.Keyring, blob bool, edit func(*transfer.Options)) *site {
	t.Helper()
	s := &site{store: st, keys: keys, clock: new(atomic.Int64)}
	s.clock.Store(time.Now().Unix())
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.url = ts.URL
	s.server = mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	o := transfer.Options{
		Keys: keys, PublicURL: ts.URL + "/files/", Store: st,
		Now: func() time.Time { return time.Unix(s.clock.Load(), 0) },
	}
	if edit != nil {
		edit(&o)
	}
	h, err := transfer.Register(s.server, o)
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s.server, &mcp.Tool{Name: "describe"}, readAll[testtypes.ImageArgs](func(in testtypes.ImageArgs) runtime.File { return in.Image }))
	if blob {
		runtime.AddTool(s.server, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	}
	mux.Handle("/files/", h)
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, nil))
	return s
}

// readAll is a handler that reads the file pick returns through Open and
// answers "<media type> <size> bytes sha256:<hex>".
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
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: f.MediaType + " " + itoa(n) + " bytes sha256:" + hex.EncodeToString(h.Sum(nil)) + " name:" + f.Name,
		}}}, nil, nil
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// enableFiles makes c able to send files/authorizeUpload and
// files/authorizeDownload (before it connects).
func enableFiles(tb testing.TB, c *mcp.Client) {
	tb.Helper()
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		tb.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeDownloadParams, *transfer.AuthorizeDownloadResult](c, transfer.MethodAuthorizeDownload); err != nil {
		tb.Fatal(err)
	}
}

// connect returns a client of s that can call files/authorizeUpload.
func (s *site) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
	enableFiles(t, c)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func authorize(ctx context.Context, cs *mcp.ClientSession, p *transfer.AuthorizeUploadParams) (*transfer.AuthorizeUploadResult, error) {
	return mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](ctx, cs, transfer.MethodAuthorizeUpload, p)
}

// declare returns the params that declare b as mediaType.
func declare(name, mediaType string, b []byte) *transfer.AuthorizeUploadParams {
	n := int64(len(b))
	d := transfer.SHA256Digest(sha256.Sum256(b))
	return &transfer.AuthorizeUploadParams{Name: name, MimeType: mediaType, Size: &n, Digest: &d}
}

// send uploads b as the descriptor says, and returns the status.
func send(t *testing.T, d transfer.FileTransferDescriptor, b []byte) int {
	t.Helper()
	var body bytes.Buffer
	var ct string
	switch {
	case d.Method == "POST" && d.Multipart != nil:
		mw := multipart.NewWriter(&body)
		for k, v := range d.Multipart.Fields {
			mw.WriteField(k, v)
		}
		fw, _ := mw.CreateFormFile(d.Multipart.FileField, "upload")
		fw.Write(b)
		mw.Close()
		ct = mw.FormDataContentType()
	default:
		body.Write(b)
	}
	r, err := http.NewRequest(d.Method, d.URL, &body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range d.Headers {
		r.Header.Set(k, v)
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func testKeys(t *testing.T) *token.Keyring {
	t.Helper()
	k, err := token.NewKeyring(key(t, 7))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestUploadThenCall: authorize, upload, call the tool with the file URI;
// the handler reads the uploaded bytes, and the result echoes the
// declaration exactly.
func TestUploadThenCall(t *testing.T) {
	s := newSite(t, memstore.New(nil), testKeys(t), false)
	cs := s.connect(t)
	png := mcptest.PNG(t, 4, 4, false)
	p := declare("../../etc/cat\u202e.png", "image/png", png)
	res, err := authorize(t.Context(), cs, p)
	if err != nil {
		t.Fatal(err)
	}
	f := res.File
	if !strings.HasPrefix(f.URI, "mcp-file://127.0.0.1:") || f.MimeType != "image/png" || *f.Size != int64(len(png)) || *f.Digest != *p.Digest {
		t.Errorf("file %+v: want the declaration echoed under an mcp-file URI of this host", f)
	}
	if f.Name != runtime.SanitizeName(p.Name) || strings.ContainsAny(f.Name, "/\u202e") {
		t.Errorf("name %q, want it sanitized", f.Name)
	}
	u := res.Upload
	if u.Transport != "https" || u.Method != "POST" || u.URL != s.url+"/files/upload" || u.Multipart == nil || u.Multipart.FileField != "file" || u.Multipart.Fields["token"] == "" || u.ExpiresAt.IsZero() {
		t.Errorf("upload descriptor %+v", u)
	}

	// Before the upload, the URI names nothing.
	wantToolError(t, cs, f.URI, "Argument 'image' is not a usable file URI: no upload has completed under it")

	if code := send(t, u, png); code != http.StatusCreated {
		t.Fatalf("upload: %d", code)
	}
	out := mcptest.Text(t, mcptest.Call(t, cs, "describe", map[string]any{"image": f.URI}))
	sum := sha256.Sum256(png)
	if want := "image/png " + itoa(int64(len(png))) + " bytes sha256:" + hex.EncodeToString(sum[:]) + " name:" + f.Name; out != want {
		t.Errorf("tool answered %q, want %q", out, want)
	}
	// The same URI again: a file is used as often as the caller likes until it expires.
	if out2 := mcptest.Text(t, mcptest.Call(t, cs, "describe", map[string]any{"image": f.URI})); out2 != out {
		t.Errorf("second call answered %q", out2)
	}
	// Inline still works beside it.
	if out := mcptest.Text(t, mcptest.Call(t, cs, "describe", map[string]any{"image": mcptest.DataURI("image/png", png)})); !strings.HasPrefix(out, "image/png "+itoa(int64(len(png)))) {
		t.Errorf("inline call answered %q", out)
	}
	// The token is single use.
	if code := send(t, u, png); code != http.StatusConflict {
		t.Errorf("second upload: %d, want 409", code)
	}
}

// wantToolError calls describe with uri and wants an isError result that
// starts with want and holds nothing of the URI's signature.
func wantToolError(t *testing.T, cs *mcp.ClientSession, uri, want string) {
	t.Helper()
	res := mcptest.Call(t, cs, "describe", map[string]any{"image": uri})
	got := mcptest.Text(t, res)
	if !res.IsError || !strings.HasPrefix(got, want) {
		t.Errorf("describe(%.40s…) = %q (isError %v), want an error starting %q", uri, got, res.IsError, want)
	}
	if i := strings.LastIndexByte(uri, '.'); i > 0 && len(uri)-i > 8 && strings.Contains(got, uri[i+1:]) {
		t.Errorf("error %q quotes the URI's mac", got)
	}
}

// TestAuthorizeUploadRefusals: the declaration is checked against the
// program's upload-capable fields, with -32602 and data.reason.
func TestAuthorizeUploadRefusals(t *testing.T) {
	s := newSite(t, memstore.New(nil), testKeys(t), false)
	cs := s.connect(t)
	size := func(n int64) *int64 { return &n }
	tests := []struct {
		name   string
		p      *transfer.AuthorizeUploadParams
		reason string
		msg    string
	}{
		{"no size", &transfer.AuthorizeUploadParams{MimeType: "image/png"}, transfer.ReasonMalformed, "size is required"},
		{"negative size", &transfer.AuthorizeUploadParams{MimeType: "image/png", Size: size(-1)}, transfer.ReasonMalformed, "negative"},
		{"bad media type", &transfer.AuthorizeUploadParams{MimeType: "png", Size: size(1)}, transfer.ReasonMalformed, "not a media type"},
		{"bad digest", &transfer.AuthorizeUploadParams{MimeType: "image/png", Size: size(1), Digest: &transfer.FileDigest{Algorithm: "md5", Value: "x"}}, transfer.ReasonMalformed, "algorithm"},
		{"type nobody takes", &transfer.AuthorizeUploadParams{MimeType: "application/x-msdownload", Size: size(1)}, transfer.ReasonMimeTypeNotAccepted, "not accepted"},
		{"larger than any field", &transfer.AuthorizeUploadParams{MimeType: "image/png", Size: size(1 << 40)}, transfer.ReasonMaxSizeExceeded, "exceeds maxSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := authorize(t.Context(), cs, tt.p)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, tt.msg) {
				t.Fatalf("authorize = %v, want -32602 saying %q", err, tt.msg)
			}
			d, ok := transfer.ErrorDataOf(err)
			if !ok || d.Reason != tt.reason {
				t.Errorf("data %+v, want reason %s", d, tt.reason)
			}
			if tt.reason == transfer.ReasonMaxSizeExceeded && (d.MaxSize == nil || d.ActualSize == nil || *d.ActualSize != 1<<40) {
				t.Errorf("data %+v, want maxSize and actualSize", d)
			}
		})
	}
}

// TestFileURIRefusals: URIs that are altered, expired, of another server,
// or whose file breaks the argument's rules are refused with the rule and
// a reason, never resolved.
func TestFileURIRefusals(t *testing.T) {
	st := memstore.New(nil)
	keys := testKeys(t)
	s := newSite(t, st, keys, true)
	cs := s.connect(t)
	png := mcptest.PNG(t, 4, 4, false)

	upload := func(mediaType string, b []byte) string {
		t.Helper()
		res, err := authorize(t.Context(), cs, declare("f", mediaType, b))
		if err != nil {
			t.Fatal(err)
		}
		if code := send(t, res.Upload, b); code != http.StatusCreated {
			t.Fatalf("upload: %d", code)
		}
		return res.File.URI
	}
	good := upload("image/png", png)

	// The sealed file id and expiry altered, or cut by three bytes: the
	// URI no longer opens.
	altered := []byte(good)
	if altered[len(altered)-10] = 'A'; good[len(good)-10] == 'A' {
		altered[len(altered)-10] = 'B'
	}
	wantToolError(t, cs, string(altered), "Argument 'image' is not a usable file URI: this server did not issue it to this caller, or it was altered.")
	wantToolError(t, cs, good[:len(good)-8]+good[len(good)-4:], "Argument 'image' is not a usable file URI: this server did not issue it to this caller, or it was altered.")
	// Garbage is told what to send, not what the parser found wrong.
	for _, bad := range []string{"mcp-file://127.0.0.1/../../etc/passwd", "mcp-file://127.0.0.1/%2e%2e%2fx.k.1.m", "mcp-file:///etc/passwd", "mcp-file://127.0.0.1/a\x00b.k.1.m", "mcp-file://127.0.0.1/file_X.k1.1.garbage", "mcp-file:garbage"} {
		wantToolError(t, cs, bad, "Argument 'image' is not a usable file URI: it is not a file URI this server issued; send the uri that files/authorizeUpload returned, unchanged, or upload the file again.")
	}
	// Without auth, the caller is its session.
	anon := transfer.SessionOwner(cs.ID())
	other, _ := keys.FileURI(token.FileRef{Host: "elsewhere.example", FileID: "file_X", Owner: anon, Expires: time.Now().Add(time.Hour)})
	wantToolError(t, cs, other, "Argument 'image' is not a usable file URI: it was issued by another server")

	// A PDF (authorized for the blob tool) sent to the image field breaks its accept.
	pdf := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
	wantToolError(t, cs, upload("application/pdf", pdf), "Argument 'image' has a media type that accept does not allow: received \"application/pdf\", allowed are image/png, image/jpeg.")
	// A PNG of 2 KiB (authorized for blob) breaks the image field's maxSize of 1 KiB.
	big := mcptest.PNG(t, 40, 40, true)
	wantToolError(t, cs, upload("image/png", big), "Argument 'image' exceeds maxSize: received "+itoa(int64(len(big)))+" bytes, limit is 1024.")
	// Text stored as a PNG by a path that does not sniff (a presigned
	// upload straight to the backend) fails the image field's content check.
	text := []byte("not a png at all, just text")
	w, err := st.Create(t.Context(), "file_TEXT", store.Meta{Size: int64(len(text)), MediaType: "image/png", Owner: anon})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(text)
	if err := w.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	uri, _ := keys.FileURI(token.FileRef{Host: "127.0.0.1:" + s.url[strings.LastIndexByte(s.url, ':')+1:], FileID: "file_TEXT", Owner: anon, Expires: time.Now().Add(time.Hour)})
	wantToolError(t, cs, uri, "Argument 'image' fails the content check: declared \"image/png\" but the bytes are text")

	// Expired: two days later the URI is past its expiry.
	s.clock.Add(int64((48 * time.Hour).Seconds()))
	wantToolError(t, cs, good, "Argument 'image' is not a usable file URI: it has expired")
}

// TestUploadOnServerWithoutTransfer: a server that did not call Register
// refuses file URIs with the transfer-mode rule.
func TestUploadOnServerWithoutTransfer(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "inline-only", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "describe"}, readAll[testtypes.ImageArgs](func(in testtypes.ImageArgs) runtime.File { return in.Image }))
	cs := mcptest.Connect(t, s, nil, "")
	res := mcptest.Call(t, cs, "describe", map[string]any{"image": "mcp-file://server/file_01HXYZ.k.1776794400.drAfHvSAlmWtsoOvTYbGEw"})
	want := "Argument 'image' is an uploaded file's URI (mcp-file:), but this server takes no uploaded files: send the file inline, as a data: URI."
	if got := mcptest.Text(t, res); !res.IsError || got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestExplicitHost: Options.Host given in mixed case (as a DNS name may
// well be written) is compared lower-cased, as FileURI writes it: the
// file URIs the server issues resolve.
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

// TestAuthWithoutUserID: behind the SDK's bearer-token auth, with a
// verifier that sets no UserID (it is optional in auth.TokenInfo), a
// request is refused (-32603, saying why) rather than given the principal
// "", which every such user would share with their files and quota.
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
		hc := &http.Client{Transport: bearerAs{who, http.DefaultTransport}}
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

// bearerAs is a transport that sends every request with the bearer token
// tok.
type bearerAs struct {
	tok string
	rt  http.RoundTripper
}

func (b bearerAs) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.rt.RoundTrip(r)
}

// TestRegisterTwice: a second Register on the same server is refused,
// since its URIs would be checked by the first Register's resolver, with
// the first keys, and no upload would resolve.
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

// TestDefaultStorePerServerLeaks: servers registered without a Store
// share the process's one default store and its one sweeper, which holds
// none of them: a program that makes a server per session
// (mcp.NewStreamableHTTPHandler's getServer) and calls Register on each
// leaves neither the servers nor a goroutine each behind.
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

// uploadsServer returns a server that serves uploads, its transfer
// handler on an httptest server, for clients connected in memory.
func uploadsServer(t *testing.T, o transfer.Options) *mcp.Server {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	if o.Keys == nil {
		o.Keys = testKeys(t)
	}
	if o.Store == nil {
		o.Store = memstore.New(nil)
	}
	o.PublicURL = ts.URL + "/files/"
	h, err := transfer.Register(s, o)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/files/", h)
	return s
}

// inMemory connects a client that can call files/authorizeUpload to s in
// memory, on protocol version (the SDK's latest when "").
func inMemory(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts)
	enableFiles(t, c)
	cs, err := c.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// uploadFile authorizes and uploads b, and returns its file URI.
func uploadFile(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name, mediaType string, b []byte) string {
	t.Helper()
	res, err := authorize(ctx, cs, declare(name, mediaType, b))
	if err != nil {
		t.Fatalf("authorize %s: %v", name, err)
	}
	if code := send(t, res.Upload, b); code != http.StatusCreated {
		t.Fatalf("upload %s: %d", name, code)
	}
	return res.File.URI
}
