package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

// TestTwoReplicas: two servers sharing a key and a store directory, as
// replicas behind one public name: authorize on one, upload to the other,
// call the tool on either.
func TestTwoReplicas(t *testing.T) {
	dir := t.TempDir()
	keys := testKeys(t)
	var servers [2]*mcp.Server
	var uploadURLs [2]string
	for i := range servers {
		st, err := diskstore.New(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		s := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "v1"}, nil)
		h, err := transfer.Register(s, transfer.Options{Keys: keys, Store: st, PublicURL: ts.URL + "/files/", Host: "files.example.com"})
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("/files/", h)
		runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
		servers[i], uploadURLs[i] = s, ts.URL+"/files/upload"
	}
	a, b := inMemory(t, servers[0], nil, ""), inMemory(t, servers[1], nil, "")
	text := bytes.Repeat([]byte("shared by two replicas\n"), 1000)
	res, err := authorize(t.Context(), a, declare("r.txt", "text/plain", text))
	if err != nil {
		t.Fatal(err)
	}
	up := res.Upload
	up.URL = uploadURLs[1] // the load balancer sent the upload to the other replica
	if code := send(t, up, text); code != http.StatusCreated {
		t.Fatalf("upload to replica 2: %d", code)
	}
	sum := sha256.Sum256(text)
	want := "text/plain " + itoa(int64(len(text))) + " bytes sha256:" + hex.EncodeToString(sum[:]) + " name:r.txt"
	for i, cs := range []*mcp.ClientSession{a, b} {
		if out := mcptest.Text(t, mcptest.Call(t, cs, "analyze", map[string]any{"document": res.File.URI})); out != want {
			t.Errorf("replica %d answered %q, want %q", i+1, out, want)
		}
	}
	// The token is spent on both: replica 1 refuses the replay.
	up.URL = uploadURLs[0]
	if code := send(t, up, text); code != http.StatusConflict {
		t.Errorf("replay on replica 1: %d, want 409", code)
	}
}

// pageReplicas is two servers of the ask tool sharing a key and a store
// directory, behind one public URL: a load balancer that sends each
// request to the replica target names (0 or 1).
func pageReplicas(t *testing.T) (servers [2]*mcp.Server, target *atomic.Int32) {
	t.Helper()
	dir := t.TempDir()
	keys := testKeys(t)
	target = new(atomic.Int32)
	var handlers [2]http.Handler
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers[target.Load()].ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	for i := range servers {
		st, err := diskstore.New(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "v1"}, nil)
		h, err := transfer.Register(s, transfer.Options{Keys: keys, Store: st, PublicURL: lb.URL + "/files/"})
		if err != nil {
			t.Fatal(err)
		}
		runtime.AddTool(s, &mcp.Tool{Name: "ask"}, askTool(nil, nil))
		servers[i], handlers[i] = s, h
	}
	return servers, target
}

// waitGone GETs the page until it answers 410 Gone, for a minute at most.
func waitGone(t *testing.T, pageURL string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		code, f := openPage(t, pageURL)
		if code == http.StatusGone && strings.Contains(f.html, "no longer waiting") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET the page on the other replica: %d, want 410\n%s", code, f.html)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReplicasEndPages: a page whose call ends on one replica (the person
// declined or cancelled, or the call was cancelled) answers 410 on the
// other too, which serves it and takes its posts.
func TestReplicasEndPages(t *testing.T) {
	for _, how := range []string{"decline", "cancel", "call cancelled"} {
		t.Run(how, func(t *testing.T) {
			servers, target := pageReplicas(t)
			var p person
			action := how
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if how == "call cancelled" {
				action = "accept"
			}
			cs := inMemory(t, servers[0], urlClient(action, &p, func(*mcp.ElicitParams) {
				if how == "call cancelled" {
					cancel() // the client gives up once the page is shown
				}
			}), "2025-11-25")
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			switch {
			case how == "call cancelled" && err == nil:
				t.Fatalf("the cancelled call answered %+v", res)
			case how != "call cancelled" && err != nil:
				t.Fatal(err)
			case how != "call cancelled" && answerOf(t, res).Action != action:
				t.Fatalf("answer %+v, want %s", answerOf(t, res), action)
			}
			pages := p.pages()
			if len(pages) != 1 {
				t.Fatalf("%d pages shown", len(pages))
			}
			target.Store(1)
			waitGone(t, pages[0].URL)
			tok := pageToken(t, pages[0].URL)
			postURL := strings.TrimSuffix(pages[0].URL, "/"+tok)
			if code, page := postForm(t, postURL, mcptest.OriginOf(pages[0].URL), tok, "late.txt", "text/plain", pageText); code != http.StatusGone {
				t.Errorf("post through the other replica: %d, want 410\n%s", code, page)
			}
		})
	}
}

// pageToken is the token at the end of a page's URL.
func pageToken(t *testing.T, pageURL string) string {
	t.Helper()
	i := strings.LastIndex(pageURL, "/")
	if i < 0 {
		t.Fatalf("page URL %q has no token", pageURL)
	}
	return pageURL[i+1:]
}

// TestReplicasPageUploadElsewhere: the replica running a call that waits
// for a page learns from the store what happens to an upload that the
// other replica takes: its progress while the bytes arrive, and that it
// broke off.
func TestReplicasPageUploadElsewhere(t *testing.T) {
	t.Run("progress", func(t *testing.T) {
		servers, target := pageReplicas(t)
		target.Store(1)
		var p person
		shown := make(chan string, 1)
		progressed := make(chan float64, 64)
		opts := urlClient("accept", &p, func(e *mcp.ElicitParams) { shown <- e.URL })
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progressed <- r.Params.Progress
		}
		cs := inMemory(t, servers[0], opts, "2025-11-25")
		params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}
		params.SetProgressToken("far")
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(t.Context(), params)
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "call failed: " + err.Error()}}}
			}
			out <- res
		}()
		pageURL := <-shown
		text := bytes.Repeat([]byte("a line that travels through the other replica\n"), 1200) // 55 KiB
		mcptest.PostInHalves(t, pageURL, "far.txt", "text/plain", text, progressed, out)
		res := <-out
		if a := answerOf(t, res); a.Size != int64(len(text)) || a.SHA256 != digest(text) {
			t.Errorf("answer %+v, want the %d-byte file", a, len(text))
		}
	})
	t.Run("broke off", func(t *testing.T) {
		servers, target := pageReplicas(t)
		target.Store(1)
		var p person
		shown := make(chan string, 1)
		cs := inMemory(t, servers[0], urlClient("accept", &p, func(e *mcp.ElicitParams) { shown <- e.URL }), "2025-11-25")
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "call failed: " + err.Error()}}}
			}
			out <- res
		}()
		pageURL := <-shown
		post, abort := mcptest.StartPagePost(t, pageURL, "half.txt", "text/plain", bytes.Repeat([]byte("t"), 20000))
		abort(nil)
		<-post
		select {
		case res := <-out:
			if !res.IsError || !strings.Contains(mcptest.Text(t, res), "broke off") {
				t.Errorf("result %s, want an error that says the upload broke off", mcptest.Text(t, res))
			}
		case <-time.After(time.Minute):
			t.Fatal("the call did not end a minute after its upload broke off on the other replica")
		}
		waitGone(t, pageURL)
	})
}
