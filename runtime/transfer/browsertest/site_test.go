package browsertest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// The protocol versions the tests run on: multi round-trip requests,
// where the client shows the page and retries the call with the answer,
// and the one before, where the server sends elicitation/create and, when
// the file has arrived, notifications/elicitation/complete.
const (
	protocolMRTR  = "2026-07-28"
	protocolOlder = "2025-11-25"
)

// protocols runs f once per protocol version, as a subtest.
func protocols(t *testing.T, f func(t *testing.T, version string)) {
	for _, version := range []string{protocolMRTR, protocolOlder} {
		t.Run(version, func(t *testing.T) { f(t, version) })
	}
}

// Bounds on waits that involve no browser action (those are bounded by
// tabTimeout).
const (
	shownTimeout = 10 * time.Second // the client is asked to show the page
	callTimeout  = 30 * time.Second // a tool call waits for its upload
)

// midUpload is how much of a page post's body the server has read when
// [site.midUpload] closes.
const midUpload = 8 << 10

// A site is a real MCP server with uploads (transfer.Register), and so
// upload pages, and two tools that ask for a file through an upload page
// and answer its size and digest: ask, for a testtypes.PageForm (one PNG
// or text file of up to 64 KiB), and ask_any, for a testtypes.ArchiveForm
// (any file of up to 2 GiB). Its MCP endpoint (/mcp) and transfer handler
// (/files/) share an httptest server. A go-sdk client, on one protocol
// version, declares URL-mode elicitation, and hands each page it is asked
// to show to the test (which opens it in the browser), accepting it.
type site struct {
	cs *mcp.ClientSession

	shown     chan *mcp.ElicitParams // the pages the client was asked to show
	completed chan string            // the elicitation IDs of notifications/elicitation/complete

	posts     atomic.Int32  // page posts (POST /files/page) that reached the server
	received  atomic.Int64  // bytes of their bodies that the server read
	midUpload chan struct{} // closed when it has read midUpload bytes
	midOnce   sync.Once

	// With holding set, the server stops reading page posts at midUpload
	// bytes until hold closes: the browser's upload stalls, as on a slow
	// link.
	holding     atomic.Bool
	hold        chan struct{}
	releaseOnce sync.Once
}

func newSite(t *testing.T, version string) *site {
	t.Helper()
	s := &site{
		shown:     make(chan *mcp.ElicitParams, 4),
		completed: make(chan string, 4),
		midUpload: make(chan struct{}),
		hold:      make(chan struct{}),
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close) // last: after the client and the browser's tab

	server := mcp.NewServer(&mcp.Implementation{Name: "browsertest", Version: "v1"}, nil)
	secret := make([]byte, 32)
	rand.Read(secret)
	key, err := token.NewKey("", secret)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	files, err := transfer.Register(server, transfer.Options{Keys: keys, Store: memstore.New(nil), PublicURL: ts.URL + "/files/"})
	if err != nil {
		t.Fatal(err)
	}
	// The handlers end with the test, before the client closes its
	// session: the SDK's server waits for them when the session closes,
	// and the client's notifications/cancelled for a call it gave up on
	// is sent in the background, so it may come too late.
	ended, end := context.WithCancel(context.Background())
	add := func(name string, h mcp.ToolHandlerFor[noArgs, answer]) {
		runtime.AddTool(server, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, in noArgs) (*mcp.CallToolResult, answer, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(ended, cancel)()
			return h(ctx, req, in)
		})
	}
	add("ask", askTool(func(f *testtypes.PageForm) runtime.File { return f.File }))
	add("ask_any", askTool(func(f *testtypes.ArchiveForm) runtime.File { return f.Archive }))
	mux.Handle("/files/", s.watch(files))
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))

	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			s.shown <- req.Params
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			s.completed <- req.Params.ElicitationID
		},
	}
	s.cs = mcptest.Client(t, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, opts, version)
	t.Cleanup(end) // before the client closes
	t.Cleanup(s.release)
	return s
}

// stallAtMidUpload makes the server stop reading page posts once it has
// read midUpload bytes of one, until release.
func (s *site) stallAtMidUpload() { s.holding.Store(true) }

// release lets the server read the rest of page posts.
func (s *site) release() { s.releaseOnce.Do(func() { close(s.hold) }) }

// watch counts the page posts that reach h and the bytes of their bodies
// that h reads.
func (s *site) watch(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/"+transfer.PagePath) {
			s.posts.Add(1)
			r.Body = &countingBody{ReadCloser: r.Body, s: s, ctx: r.Context()}
		}
		h.ServeHTTP(w, r)
	})
}

type countingBody struct {
	io.ReadCloser
	s   *site
	ctx context.Context
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.s.holding.Load() && b.s.received.Load() >= midUpload {
		select {
		case <-b.s.hold:
		case <-b.ctx.Done():
		}
	}
	n, err := b.ReadCloser.Read(p)
	if b.s.received.Add(int64(n)) >= midUpload {
		b.s.midOnce.Do(func() { close(b.s.midUpload) })
	}
	return n, err
}

// call calls the tool in the background and returns the channel of its
// result; a failed call is an isError result that says so.
func (s *site) call(t *testing.T, tool string) <-chan *mcp.CallToolResult {
	t.Helper()
	out := make(chan *mcp.CallToolResult, 1)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel) // before the client closes: a call left waiting ends
	go func() {
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "call failed: " + err.Error()}}}
		}
		out <- res
	}()
	return out
}

// ask calls tool and waits for the upload page it asks for: it returns
// the call's result to come, the page's elicitation, and a tab to open
// the page in.
func (s *site) ask(t *testing.T, tool string) (<-chan *mcp.CallToolResult, *mcp.ElicitParams, *tab) {
	t.Helper()
	out := s.call(t, tool)
	return out, s.page(t), newTab(t)
}

// wantDelivered checks that the call answered the file b and, on the
// older protocol, that the server told the client the page e is done.
func (s *site) wantDelivered(t *testing.T, version string, out <-chan *mcp.CallToolResult, e *mcp.ElicitParams, b []byte) {
	t.Helper()
	wantFile(t, result(t, out), b)
	s.wantCompleted(t, version, e)
}

// page waits for the client to be asked to show an upload page, and
// returns the elicitation.
func (s *site) page(t *testing.T) *mcp.ElicitParams {
	t.Helper()
	select {
	case e := <-s.shown:
		if e.Mode != "url" || e.URL == "" || e.ElicitationID == "" {
			t.Fatalf("elicitation %+v, want a URL-mode one with an id", e)
		}
		return e
	case <-time.After(shownTimeout):
		t.Fatal("the client was never asked to show an upload page")
		return nil
	}
}

// pageStatus GETs the upload page as a browser would: 200 while the page
// takes a file, 409 once one was stored through it.
func pageStatus(t *testing.T, pageURL string) int {
	t.Helper()
	res, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// result waits for the tool call's result.
func result(t *testing.T, out <-chan *mcp.CallToolResult) *mcp.CallToolResult {
	t.Helper()
	select {
	case res := <-out:
		return res
	case <-time.After(callTimeout):
		t.Fatal("the tool call did not end")
		return nil
	}
}

// stillWaiting fails the test when the tool call has ended.
func stillWaiting(t *testing.T, out <-chan *mcp.CallToolResult, after string) {
	t.Helper()
	select {
	case res := <-out:
		t.Fatalf("the tool call ended after %s: %s", after, mcptest.Text(t, res))
	default:
	}
}

// wantFile checks that the tool call answered the file b.
func wantFile(t *testing.T, res *mcp.CallToolResult, b []byte) {
	t.Helper()
	a := mcptest.Structured[answer](t, res)
	if a.Action != "accept" || a.Size != int64(len(b)) || a.SHA256 != digest(b) {
		t.Errorf("answer %+v, want accept, size %d, sha-256 %s", a, len(b), digest(b))
	}
}

// wantCompleted checks, on the older protocol, that the server told the
// client the elicitation e is complete.
func (s *site) wantCompleted(t *testing.T, version string, e *mcp.ElicitParams) {
	t.Helper()
	if version != protocolOlder {
		return
	}
	mcptest.WantCompleted(t, s.completed, e.ElicitationID)
}

// answer is what the ask tool answers.
type answer struct {
	Action string `json:"action"`
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// askTool returns the handler of a tool that asks for a T (a PageForm or
// an ArchiveForm) through an upload page, and answers the file's size and
// digest, read through File.Open.
func askTool[T any, P runtime.Generated[T]](file func(*T) runtime.File) mcp.ToolHandlerFor[noArgs, answer] {
	return func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, answer, error) {
		ans, pending, err := runtime.ElicitUpload[T, P](ctx, req, "Please choose a file.", nil)
		if pending != nil || err != nil {
			return pending, answer{}, err
		}
		out := answer{Action: string(ans.Action)}
		if ans.Action != runtime.Accept {
			return nil, out, nil
		}
		r, err := file(&ans.Value).Open()
		if err != nil {
			return nil, out, err
		}
		defer r.Close()
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			return nil, out, err
		}
		out.Size, out.SHA256 = n, hex.EncodeToString(h.Sum(nil))
		return nil, out, nil
	}
}

// noArgs are the arguments of a tool without any, with the schema
// mcpfilegen writes for such a type.
type noArgs struct{}

func (noArgs) MCPSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false}`)
}

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// tempFile writes b to a file named name in a directory of the test's, for
// the browser to choose, and returns its path.
func tempFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// sparseFile makes a file of size zero bytes, which takes no room on
// disk, for the browser to choose, and returns its path.
func sparseFile(t *testing.T, name string, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err == nil {
		err = f.Truncate(size)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}
