package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	mcpfile "github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// pageText is the file the tests upload through a page.
var pageText = []byte("notes from the page\n")

// pageServer is an mcp-go server with files served whose tools ask for a
// testtypes.PageForm through an upload page: fetch hands the page to a
// client without URL-mode elicitation as a link, fetch_error as the -32042
// error, both with the argument file for the retry; keep takes a file
// (testtypes.PageArgs) and asks for nothing. Each answers "<action>" or
// "accept <size> <type>". It serves mcp-go's streamable HTTP at ts/mcp.
func pageServer(t *testing.T, set func(*transfer.Options)) (*server.MCPServer, *mcpgo.Files, *httptest.Server) {
	t.Helper()
	return pageServerHTTP(t, set)
}

// pageServerHTTP is pageServer with its StreamableHTTPServer made with
// opts.
func pageServerHTTP(t *testing.T, set func(*transfer.Options), opts ...server.StreamableHTTPOption) (*server.MCPServer, *mcpgo.Files, *httptest.Server) {
	t.Helper()
	return pageServerOn(t, set, func(mux *http.ServeMux, s *server.MCPServer, files *mcpgo.Files, _ string) {
		mux.Handle("/mcp", files.HTTP(server.NewStreamableHTTPServer(s, opts...)))
	})
}

// pageServerOn is pageServer whose MCP transport mount puts on mux.
func pageServerOn(t *testing.T, set func(*transfer.Options), mount func(mux *http.ServeMux, s *server.MCPServer, files *mcpgo.Files, url string)) (*server.MCPServer, *mcpgo.Files, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	key, _ := token.NewKey("k1", bytes.Repeat([]byte{5}, 32))
	keys, _ := token.NewKeyring(key)
	s := server.NewMCPServer("pages", "v1", server.WithTitle("Page Server"))
	o := transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/", Store: memstore.New(nil)}
	if set != nil {
		set(&o)
	}
	files, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	asker := func(handover mcpfile.PageHandover) mcp.TypedToolHandlerFunc[testtypes.PageArgs] {
		return func(ctx context.Context, req mcp.CallToolRequest, in testtypes.PageArgs) (*mcp.CallToolResult, error) {
			if in.File != nil {
				return mcp.NewToolResultText(fmt.Sprintf("accept %d %s", in.File.Size(), in.File.MediaType)), nil
			}
			ans, pending, err := mcpgo.ElicitUpload[testtypes.PageForm](ctx, req, "Please choose your notes.",
				&mcpfile.ElicitOptions[testtypes.PageForm]{Arg: "file", Handover: handover})
			var required mcp.URLElicitationRequiredError
			switch {
			case errors.As(err, &required):
				return nil, err
			case err != nil:
				return mcp.NewToolResultError(err.Error()), nil
			case pending != nil:
				return pending, nil
			case ans.Action != mcpfile.Accept:
				return mcp.NewToolResultText(string(ans.Action)), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("accept %d %s", ans.Value.File.Size(), ans.Value.File.MediaType)), nil
		}
	}
	mcpgo.AddTool(s, mcp.Tool{Name: "fetch"}, asker(mcpfile.HandoverLink))
	mcpgo.AddTool(s, mcp.Tool{Name: "fetch_error"}, asker(mcpfile.HandoverError))
	mcpgo.AddTool(s, mcp.Tool{Name: "keep"}, func(_ context.Context, _ mcp.CallToolRequest, in testtypes.PageArgs) (*mcp.CallToolResult, error) {
		if in.File == nil {
			return mcp.NewToolResultText("nothing"), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("kept %d", in.File.Size())), nil
	})
	mount(mux, s, files, ts.URL)
	mux.Handle("/files/", files.Handler())
	return s, files, ts
}

// pageClient is a client's elicitation handler for URL mode: it records
// each page asked for, and answers with action, having uploaded pageText
// through the page first when action is accept and upload is set.
type pageClient struct {
	t      *testing.T
	action mcp.ElicitationResponseAction
	upload bool
	mu     sync.Mutex
	asked  []mcp.ElicitationParams
}

func (a *pageClient) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params)
	a.mu.Unlock()
	if req.Params.Mode != mcp.ElicitationModeURL || req.Params.URL == "" || req.Params.ElicitationID == "" {
		a.t.Errorf("elicitation %+v, want a URL-mode one", req.Params)
	}
	if a.action == mcp.ElicitationResponseActionAccept && a.upload {
		if code := postPage(a.t, req.Params.URL); code != http.StatusCreated {
			a.t.Errorf("post through the page: %d", code)
		}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a.action}}, nil
}

// postPage uploads pageText through the page at pageURL as a browser does,
// and returns the status of the post.
func postPage(t *testing.T, pageURL string) int {
	t.Helper()
	p, err := mcptest.OpenUploadPage(nil, pageURL)
	if err != nil || p.Status != http.StatusOK {
		return p.Status
	}
	if !strings.Contains(p.HTML, "Page Server") || !strings.Contains(p.HTML, "Please choose your notes.") {
		t.Errorf("the page does not show the server's title and the message:\n%s", p.HTML)
	}
	code, _, err := mcptest.PagePost{Action: p.Action, Origin: mcptest.OriginOf(pageURL), Token: p.Token, Name: "notes.txt", MediaType: "text/plain", Body: pageText}.Post(nil)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// pageClientOf starts a client of ts's /mcp, of protocol version, that
// declares URL-mode elicitation when a is not nil, and records the
// notifications it gets.
func pageClientOf(t *testing.T, ts *httptest.Server, version string, a *pageClient) (*client.Client, *notes) {
	t.Helper()
	// Listening for what the server sends outside a call:
	// notifications/elicitation/complete of a -32042 error's page.
	var topts []transport.StreamableHTTPCOption
	if version != mcp.LATEST_PROTOCOL_VERSION { // a listening transport speaks the older protocols only
		topts = append(topts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(ts.URL+"/mcp", topts...)
	if err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if a != nil {
		opts = append(opts, client.WithElicitationHandler(a),
			client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}))
	}
	if version != mcp.LATEST_PROTOCOL_VERSION {
		opts = append(opts, client.WithLegacyProtocolOnly())
	}
	c := client.NewClient(tr, opts...)
	n := &notes{}
	c.OnNotification(n.add)
	connectVersion(t, c, version)
	if modern := c.GetSessionId() == ""; modern != (version == mcp.LATEST_PROTOCOL_VERSION) {
		t.Fatalf("the client speaks 2026-07-28: %v, want %v", modern, !modern)
	}
	return c, n
}

// notes are the notifications a client got.
type notes struct {
	mu   sync.Mutex
	list []mcp.JSONRPCNotification
	got  chan struct{}
}

func (n *notes) add(m mcp.JSONRPCNotification) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, m)
	if n.got != nil {
		select {
		case n.got <- struct{}{}:
		default:
		}
	}
}

// of returns the params of the notifications of method.
func (n *notes) of(method string) []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []map[string]any
	for _, m := range n.list {
		if m.Method == method {
			out = append(out, m.Params.AdditionalFields)
		}
	}
	return out
}

// called is a call's result, or its error.
type called struct {
	res *mcp.CallToolResult
	err error
}

// callPage calls tool with args and returns its result, or the error.
func callPage(t *testing.T, c *client.Client, tool string, args map[string]any, progressToken any) called {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	if progressToken != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: progressToken}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	return called{res, err}
}

// textOf is the text of a result's first block, and whether it is an error.
func textOf(t *testing.T, c called) (string, bool) {
	t.Helper()
	res, err := c.res, c.err
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if len(res.Content) == 0 {
		t.Fatal("call: no content")
	}
	text, _ := mcp.AsTextContent(res.Content[0])
	if text == nil {
		t.Fatalf("call: content %T, want text", res.Content[0])
	}
	return text.Text, res.IsError
}

var versions = []string{mcp.LATEST_PROTOCOL_VERSION, "2025-11-25"}

// TestElicitUpload: a client that declared elicitation.url is sent the
// page (an input request on 2026-07-28, elicitation/create before), the
// person uploads through it, and the handler gets the file; on older
// protocols the server then sends notifications/elicitation/complete.
func TestElicitUpload(t *testing.T) {
	_, _, ts := pageServer(t, nil)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			a := &pageClient{t: t, action: mcp.ElicitationResponseActionAccept, upload: true}
			c, n := pageClientOf(t, ts, version, a)
			text, isErr := textOf(t, callPage(t, c, "fetch", nil, nil))
			if want := fmt.Sprintf("accept %d text/plain", len(pageText)); isErr || text != want {
				t.Errorf("fetch: %q (isError %v), want %q", text, isErr, want)
			}
			if len(a.asked) != 1 {
				t.Fatalf("asked %d times, want 1", len(a.asked))
			}
			if version != mcp.LATEST_PROTOCOL_VERSION {
				// mcp-go v1.2.1's streamable HTTP server can drop a
				// notification sent during a call when the call ends
				// (its POST forwarder takes it off the session's channel
				// after the request is done): TestElicitUploadStdio holds
				// the server to sending it; here it is checked when it comes.
				if tryWaitFor(func() bool { return len(n.of("notifications/elicitation/complete")) == 1 }) {
					if got := n.of("notifications/elicitation/complete")[0]["elicitationId"]; got != a.asked[0].ElicitationID {
						t.Errorf("elicitation/complete for %v, want %q", got, a.asked[0].ElicitationID)
					}
				} else {
					t.Log("no notifications/elicitation/complete: dropped by mcp-go's streamable HTTP server")
				}
			}
			// The page took its one file.
			if code := postPage(t, a.asked[0].URL); code == http.StatusCreated {
				t.Error("a second post through the page: 201")
			}
		})
	}
}

// TestElicitUploadDeclined: the person declines or cancels; the handler
// hears which, and the page takes no upload after.
func TestElicitUploadDeclined(t *testing.T) {
	_, _, ts := pageServer(t, nil)
	for _, version := range versions {
		for _, action := range []mcp.ElicitationResponseAction{mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel} {
			t.Run(version+"/"+string(action), func(t *testing.T) {
				a := &pageClient{t: t, action: action}
				c, _ := pageClientOf(t, ts, version, a)
				text, isErr := textOf(t, callPage(t, c, "fetch", nil, nil))
				if isErr || text != string(action) {
					t.Errorf("fetch: %q (isError %v), want %q", text, isErr, action)
				}
				if len(a.asked) != 1 {
					t.Fatalf("asked %d times, want 1", len(a.asked))
				}
				if code := postPage(t, a.asked[0].URL); code == http.StatusCreated {
					t.Error("a post through the declined page: 201")
				}
			})
		}
	}
}

// TestElicitUploadProgress: a call with a progress token hears of the
// upload's bytes while it waits, the last with the whole file.
func TestElicitUploadProgress(t *testing.T) {
	_, _, ts := pageServer(t, nil)
	big := bytes.Repeat([]byte("0123456789abcdef"), 2<<10) // 32 KiB of text
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			var finish func([]byte)
			var posted <-chan int
			started := make(chan struct{})
			a := &pageElicitFunc{f: func(p mcp.ElicitationParams) {
				posted, finish = mcptest.StartPagePost(t, p.URL, "big.txt", "text/plain", big[:8<<10])
				close(started)
			}}
			tr, _ := transport.NewStreamableHTTP(ts.URL + "/mcp")
			opts := []client.ClientOption{client.WithElicitationHandler(a),
				client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}})}
			if version != mcp.LATEST_PROTOCOL_VERSION {
				opts = append(opts, client.WithLegacyProtocolOnly())
			}
			c := client.NewClient(tr, opts...)
			n := &notes{got: make(chan struct{}, 1)}
			c.OnNotification(n.add)
			connectVersion(t, c, version)
			go func() {
				<-started
				// The rest once the call has heard of the first bytes.
				deadline := time.After(20 * time.Second)
				for len(n.of("notifications/progress")) == 0 {
					select {
					case <-n.got:
					case <-deadline:
						finish(big[8<<10:])
						return
					}
				}
				finish(big[8<<10:])
			}()
			text, isErr := textOf(t, callPage(t, c, "fetch", nil, "tok"))
			if want := fmt.Sprintf("accept %d text/plain", len(big)); isErr || text != want {
				t.Errorf("fetch: %q (isError %v), want %q", text, isErr, want)
			}
			if code := <-posted; code != http.StatusCreated {
				t.Errorf("post: %d", code)
			}
			// mcp-go's streamable HTTP server may drop a notification
			// queued just before the result (its forwarder takes it, then
			// finds the request done): the one at the upload's end, sent
			// as the wait ends, is not asserted.
			ps := n.of("notifications/progress")
			if len(ps) == 0 {
				t.Fatal("no progress notification while the upload ran")
			}
			last := -1.0
			for _, p := range ps {
				v, _ := p["progress"].(float64)
				total, _ := p["total"].(float64)
				if p["progressToken"] != "tok" || v <= last || v > float64(len(big)) || total < v || p["message"] != "file upload: bytes received" {
					t.Errorf("progress %v after %v: want token tok, growing, at most the file, with the message", p, last)
				}
				last = v
			}
		})
	}
}

// pageElicitFunc accepts every URL-mode elicitation, after f.
type pageElicitFunc struct{ f func(mcp.ElicitationParams) }

func (a *pageElicitFunc) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.f(req.Params)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
}

// linkOf returns the page's link and the file URI for the argument file
// that a link result tells the model to send back ("" for none).
func linkOf(t *testing.T, c called) (pageURL, fileURI string) {
	t.Helper()
	res := c.res
	text, isErr := textOf(t, c)
	if isErr || len(res.Content) != 2 {
		t.Fatalf("link result: %q (isError %v, %d blocks), want a text and a resource_link", text, isErr, len(res.Content))
	}
	link, ok := res.Content[1].(mcp.ResourceLink)
	if !ok || link.MIMEType != "text/html" || link.Name != "upload-page" || link.Title != "Upload page" || !strings.Contains(text, link.URI) {
		t.Fatalf("link result's second block %#v, want a resource_link to the page the text names", res.Content[1])
	}
	for _, want := range []string{"Give the person this link to open", "image/png, text/plain, up to 64 KiB", `"Please choose your notes."`} {
		if !strings.Contains(text, want) {
			t.Errorf("link text %q lacks %q", text, want)
		}
	}
	if i := strings.Index(text, `{"file":"`); i >= 0 {
		var v struct{ File string }
		json.NewDecoder(strings.NewReader(text[i:])).Decode(&v)
		fileURI = v.File
	}
	return link.URI, fileURI
}

// TestElicitUploadLink: a client without elicitation.url gets the page as
// a link; after the upload, the retry gets the file: from the same
// session on 2025-11-25, through the argument file (the page's file URI)
// on 2026-07-28, where requests stand alone. That URI gives its file once,
// and to no other tool.
func TestElicitUploadLink(t *testing.T) {
	_, _, ts := pageServer(t, nil)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, _ := pageClientOf(t, ts, version, nil)
			pageURL, fileURI := linkOf(t, callPage(t, c, "fetch", nil, nil))
			if fileURI == "" {
				t.Fatal("the link result names no value for the argument file")
			}
			// Before the upload: the same page again.
			if text, _ := textOf(t, callPage(t, c, "fetch", nil, nil)); version != mcp.LATEST_PROTOCOL_VERSION && !strings.Contains(text, "No file has been uploaded through the page yet") {
				t.Errorf("retry before the upload: %q, want the same page again", text)
			}
			if code := postPage(t, pageURL); code != http.StatusCreated {
				t.Fatalf("post through the page: %d", code)
			}
			// Another tool may not take the page's file.
			if text, isErr := textOf(t, callPage(t, c, "keep", map[string]any{"file": fileURI}, nil)); !isErr || !strings.Contains(text, "Argument 'file'") {
				t.Errorf("keep with the page's file URI: %q (isError %v), want a refusal", text, isErr)
			}
			want := fmt.Sprintf("accept %d text/plain", len(pageText))
			var retry called
			if version == mcp.LATEST_PROTOCOL_VERSION {
				retry = callPage(t, c, "fetch", map[string]any{"file": fileURI}, nil)
			} else {
				retry = callPage(t, c, "fetch", nil, nil)
			}
			if text, isErr := textOf(t, retry); isErr || text != want {
				t.Errorf("retry: %q (isError %v), want %q", text, isErr, want)
			}
			// Replay: the page's file URI gives its file once.
			if version == mcp.LATEST_PROTOCOL_VERSION {
				if text, isErr := textOf(t, callPage(t, c, "fetch", map[string]any{"file": fileURI}, nil)); !isErr || !strings.Contains(text, "an earlier call took already") {
					t.Errorf("replay: %q (isError %v), want a refusal", text, isErr)
				}
			}
		})
	}
}

// TestElicitUploadRequiredError: with HandoverError, a 2025-11-25 client
// without elicitation.url gets the -32042 error carrying the page; once
// the upload is done the server sends notifications/elicitation/complete,
// and the retry gets the file. A 2026-07-28 client, to which mcp-go
// answers that error as an internal error, gets the link.
func TestElicitUploadRequiredError(t *testing.T) {
	_, _, ts := pageServer(t, nil)
	c, n := pageClientOf(t, ts, "2025-11-25", nil)
	err := callPage(t, c, "fetch_error", nil, nil).err
	var required mcp.URLElicitationRequiredError
	if !errors.As(err, &required) || len(required.Elicitations) != 1 {
		t.Fatalf("fetch_error: %v, want the -32042 error with one elicitation", err)
	}
	e := required.Elicitations[0]
	if e.Mode != mcp.ElicitationModeURL || e.URL == "" || e.ElicitationID == "" || e.Message != "Please choose your notes." {
		t.Fatalf("elicitation %+v, want the URL-mode page", e)
	}
	if code := postPage(t, e.URL); code != http.StatusCreated {
		t.Fatalf("post through the page: %d", code)
	}
	waitFor(t, func() bool { return len(n.of("notifications/elicitation/complete")) == 1 })
	if got := n.of("notifications/elicitation/complete")[0]["elicitationId"]; got != e.ElicitationID {
		t.Errorf("elicitation/complete for %v, want %q", got, e.ElicitationID)
	}
	if text, isErr := textOf(t, callPage(t, c, "fetch_error", nil, nil)); isErr || text != fmt.Sprintf("accept %d text/plain", len(pageText)) {
		t.Errorf("retry: %q (isError %v)", text, isErr)
	}

	modern, _ := pageClientOf(t, ts, mcp.LATEST_PROTOCOL_VERSION, nil)
	linkOf(t, callPage(t, modern, "fetch_error", nil, nil))
}

// TestElicitUploadStdio: over mcp-go's stdio server, a client with
// elicitation.url is sent the page, and one without gets the link, whose
// retry gets the file (stdio's one client is one caller).
func TestElicitUploadStdio(t *testing.T) {
	// mcp-go's stdio session has one ID: one stdio server per MCPServer.
	start := func(opts ...client.ClientOption) *client.Client {
		s, files, _ := pageServer(t, nil)
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			in, out := files.Stdio(ctx, toServer, fromServer)
			server.NewStdioServer(s).Listen(ctx, in, out)
			fromServer.Close()
		}()
		t.Cleanup(func() { fromClient.Close(); cancel(); <-done })
		c := client.NewClient(transport.NewIO(toClient, fromClient, nil), append(opts, client.WithLegacyProtocolOnly())...)
		connectVersion(t, c, "2025-11-25")
		return c
	}
	a := &pageClient{t: t, action: mcp.ElicitationResponseActionAccept, upload: true}
	c := start(client.WithElicitationHandler(a),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}))
	n := &notes{}
	c.OnNotification(n.add)
	want := fmt.Sprintf("accept %d text/plain", len(pageText))
	if text, isErr := textOf(t, callPage(t, c, "fetch", nil, nil)); isErr || text != want || len(a.asked) != 1 {
		t.Fatalf("fetch: %q (isError %v, asked %d times), want %q", text, isErr, len(a.asked), want)
	}
	// Once the upload is in, the server says the page is done.
	waitFor(t, func() bool { return len(n.of("notifications/elicitation/complete")) == 1 })
	if got := n.of("notifications/elicitation/complete")[0]["elicitationId"]; got != a.asked[0].ElicitationID {
		t.Errorf("elicitation/complete for %v, want %q", got, a.asked[0].ElicitationID)
	}

	plain := start()
	pageURL, _ := linkOf(t, callPage(t, plain, "fetch", nil, nil))
	if code := postPage(t, pageURL); code != http.StatusCreated {
		t.Fatalf("post through the page: %d", code)
	}
	if text, isErr := textOf(t, callPage(t, plain, "fetch", nil, nil)); isErr || text != want {
		t.Errorf("retry: %q (isError %v), want %q", text, isErr, want)
	}
}

// TestElicitUploadBounds: the pages one caller may have waiting are
// bounded, with the go-sdk server's text.
func TestElicitUploadBounds(t *testing.T) {
	_, _, ts := pageServer(t, func(o *transfer.Options) { o.MaxPagesPerCaller = 1 })
	c, _ := pageClientOf(t, ts, "2025-11-25", nil)
	linkOf(t, callPage(t, c, "fetch", nil, nil))
	text, isErr := textOf(t, callPage(t, c, "fetch_error", nil, nil))
	if !isErr || !strings.Contains(text, "this caller has 1 upload pages waiting for a file, the limit per caller") {
		t.Errorf("a second page: %q (isError %v), want the per-caller bound", text, isErr)
	}
}

// TestElicitUploadMisuse: a type that is not one file, and a server
// without ServeFiles, are errors that say so.
func TestElicitUploadMisuse(t *testing.T) {
	s := server.NewMCPServer("plain", "v1")
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, _, err := mcpgo.ElicitUpload[testtypes.PageForm](ctx, req, "file?", nil)
		_, _, err2 := mcpgo.ElicitUpload[testtypes.DocsArgs](ctx, req, "files?", nil)
		return mcp.NewToolResultText(fmt.Sprint(err, "\n", err2)), nil
	})
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	connect(t, c)
	text, _ := callText(t, c, "ask")
	for _, want := range []string{"serves no upload pages: set it up with mcpgo.ServeFiles", "testtypes.DocsArgs must have one property"} {
		if !strings.Contains(text, want) {
			t.Errorf("errors %q lack %q", text, want)
		}
	}
}

// waitFor waits, up to ten seconds, until ok.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	if !tryWaitFor(ok) {
		t.Fatal("timed out")
	}
}

// tryWaitFor reports whether ok became true within ten seconds.
func tryWaitFor(ok func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// TestElicitUploadPerAddress: callers without auth whose requests stand
// alone (2026-07-28 over HTTP) hold the pages they have waiting per
// address, with the go-sdk server's text.
func TestElicitUploadPerAddress(t *testing.T) {
	_, _, ts := pageServer(t, func(o *transfer.Options) { o.MaxPagesPerAddress = 1 })
	c, _ := pageClientOf(t, ts, mcp.LATEST_PROTOCOL_VERSION, nil)
	linkOf(t, callPage(t, c, "fetch", nil, nil))
	other, _ := pageClientOf(t, ts, mcp.LATEST_PROTOCOL_VERSION, nil)
	text, isErr := textOf(t, callPage(t, other, "fetch", nil, nil))
	if !isErr || !strings.Contains(text, "callers without auth from this address have 1 upload pages waiting for a file, the limit per address") {
		t.Errorf("a second page from the address: %q (isError %v), want the per-address bound", text, isErr)
	}
}

// TestElicitUploadLinkStateless: on a stateless mcp-go server
// (WithStateLess), whose 2025-11-25 sessions have no ID, callers without
// auth are not one caller: a link's page found again by its key is the
// caller's own, and another client's call of the same tool gets a page of
// its own, not the file uploaded through the first one's.
func TestElicitUploadLinkStateless(t *testing.T) {
	_, _, ts := pageServerHTTP(t, nil, server.WithStateLess(true))
	legacy := func() *client.Client {
		tr, err := transport.NewStreamableHTTP(ts.URL + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr, client.WithLegacyProtocolOnly())
		connectVersion(t, c, "2025-11-25")
		return c
	}
	a, b := legacy(), legacy()
	ownPages(t, a, b)
}

// ownPages uploads through the page client a's call shows, then checks
// that client b's call of the same tool gets a page of its own, not the
// file uploaded through a's.
func ownPages(t *testing.T, a, b *client.Client) {
	t.Helper()
	pageURL, _ := linkOf(t, callPage(t, a, "fetch", nil, nil))
	if code := postPage(t, pageURL); code != http.StatusCreated {
		t.Fatalf("post through the page: %d", code)
	}
	other := callPage(t, b, "fetch", nil, nil)
	if text, _ := textOf(t, other); strings.HasPrefix(text, "accept") {
		t.Fatalf("another client's call: %q, the file uploaded through the first client's page", text)
	}
	if otherURL, _ := linkOf(t, other); otherURL == pageURL {
		t.Errorf("another client's call got the first client's page")
	}
}

// TestElicitUploadLinkSSE: over mcp-go's SSE transport, whose clients
// each have a session of their own, a link's page found again by its key
// is its session's: another client's call of the same tool gets a page of
// its own, not the file uploaded through the first one's.
func TestElicitUploadLinkSSE(t *testing.T) {
	_, _, ts := pageServerOn(t, nil, func(mux *http.ServeMux, s *server.MCPServer, _ *mcpgo.Files, url string) {
		sse := server.NewSSEServer(s, server.WithBaseURL(url))
		mux.Handle("/sse", sse)
		mux.Handle("/message", sse)
	})
	sseClient := func() *client.Client {
		c, err := client.NewSSEMCPClient(ts.URL + "/sse")
		if err != nil {
			t.Fatal(err)
		}
		connectVersion(t, c, "2025-11-25")
		return c
	}
	a, b := sseClient(), sseClient()
	ownPages(t, a, b)
	want := fmt.Sprintf("accept %d text/plain", len(pageText))
	if text, isErr := textOf(t, callPage(t, a, "fetch", nil, nil)); isErr || text != want {
		t.Errorf("the first client's retry: %q (isError %v), want %q", text, isErr, want)
	}
}
