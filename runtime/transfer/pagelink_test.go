package transfer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// askLinkTool is the ask tool of a server that serves clients without
// URL-mode elicitation too: a retry that names the page's file URI in its
// file argument gets that file, resolved before the handler runs.
func askLinkTool(ctx context.Context, req *mcp.CallToolRequest, in testtypes.PageArgs) (*mcp.CallToolResult, pageAnswer, error) {
	if in.File != nil {
		return readAnswer(*in.File, pageAnswer{Action: string(runtime.Accept)})
	}
	ans, pending, err := runtime.ElicitUpload[testtypes.PageForm](ctx, req, "Please choose a picture or a text.",
		&runtime.ElicitOptions[testtypes.PageForm]{Arg: "file"})
	if pending != nil || err != nil {
		return pending, pageAnswer{}, err
	}
	return readAnswer(ans.Value.File, pageAnswer{Action: string(ans.Action)})
}

// linkOf checks that res is the link result of an upload page and returns
// the page's URL and the file URI it tells the model to send back.
func linkOf(t *testing.T, res *mcp.CallToolResult) (pageURL, fileURI string) {
	t.Helper()
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result %s (isError %v), want a text and a resource_link", mcptest.Text(t, res), res.IsError)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || link.MIMEType != "text/html" || !strings.Contains(link.URI, "/files/page/") {
		t.Fatalf("second content %#v, want a resource_link to the page", res.Content[1])
	}
	for _, want := range []string{link.URI, "image/png, text/plain", "up to 64 KiB", "Please choose a picture or a text.", "call ask_link again"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text %q lacks %q", text, want)
		}
	}
	m := regexp.MustCompile(`\{"file":"[^"]*"\}`).FindString(text)
	var arg struct{ File string }
	if err := json.Unmarshal([]byte(m), &arg); err != nil || !strings.HasPrefix(arg.File, "mcp-file:") {
		t.Fatalf("the text %q names no file URI to send back as {\"file\": …}", text)
	}
	return link.URI, arg.File
}

// callLink calls ask_link with args in cs.
func callLink(t *testing.T, cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask_link", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestUploadPageLink: a client without URL-mode elicitation gets an
// ordinary result with the page's link, what to upload and what to do
// after; a retry before the upload gets the same page, and the retry in
// the same session after it gets the file, on both protocol generations.
func TestUploadPageLink(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := pageServer(t, transfer.Options{}, nil)
			cs := inMemory(t, s, nil, version)
			page, _ := linkOf(t, callLink(t, cs, map[string]any{}))
			if again, _ := linkOf(t, callLink(t, cs, map[string]any{})); again != page {
				t.Errorf("the retry before the upload got another page: %s, then %s", page, again)
			}
			if code, html := uploadThroughPage(t, page, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
				t.Fatalf("upload through the page: %d\n%s", code, html)
			}
			res := callLink(t, cs, map[string]any{})
			if a := answerOf(t, res); a.Size != int64(len(pageText)) || a.SHA256 != digest(pageText) || a.Name != "notes.txt" {
				t.Errorf("answer %+v, want the text file", a)
			}
		})
	}
}

// TestUploadPageLinkArgument: a caller whose retry is a session of its own
// (anonymous, as on stateless HTTP) sends back the page's file URI as the
// tool's file argument. Before the upload the retry is told so at once;
// after it, the retry gets the file, once: a second call with the same URI
// is refused, as is an altered URI.
func TestUploadPageLinkArgument(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	call := func(args map[string]any) *mcp.CallToolResult { // each call a session of its own
		return callLink(t, inMemory(t, s, nil, "2026-07-28"), args)
	}
	refused := func(arg, want string) {
		t.Helper()
		res := call(map[string]any{"file": arg})
		if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, want) {
			t.Errorf("a retry with the file URI: %q (isError %v), want an error saying %q", got, res.IsError, want)
		}
	}
	page, uri := linkOf(t, call(map[string]any{}))
	refused(uri, "no file has been uploaded yet")
	png := mcptest.PNG(t, 2, 2, false)
	if code, html := uploadThroughPage(t, page, "dot.png", "image/png", png); code != http.StatusCreated {
		t.Fatalf("upload through the page: %d\n%s", code, html)
	}
	refused(alterChar(uri, len(uri)/2), "Argument 'file' is not")
	res := call(map[string]any{"file": uri})
	if a := answerOf(t, res); a.Size != int64(len(png)) || a.SHA256 != digest(png) || a.MediaType != "image/png" || a.Name != "dot.png" {
		t.Errorf("answer %+v, want the PNG", a)
	}
	refused(uri, "an earlier call took already")
}

// TestUploadPageLinkWaits: a retry that sends back the page's file URI
// while the upload runs waits for it, reporting progress.
func TestUploadPageLinkWaits(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	page, uri := linkOf(t, callLink(t, inMemory(t, s, nil, "2026-07-28"), map[string]any{}))
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 3000) // 51 KiB of text
	var mu sync.Mutex
	var progress []float64
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Progress)
		mu.Unlock()
	}}
	cs := inMemory(t, s, opts, "2026-07-28")
	done := make(chan struct{})
	go func() {
		defer close(done)
		slowUpload(t, page, "big.txt", "text/plain", big, 4<<10, 100*time.Millisecond)
	}()
	// Until the upload has begun, the retry is told no file arrived yet.
	var res *mcp.CallToolResult
	for {
		params := &mcp.CallToolParams{Name: "ask_link", Arguments: map[string]any{"file": uri}}
		params.SetProgressToken("p")
		r, err := cs.CallTool(t.Context(), params)
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsError || !strings.Contains(mcptest.Text(t, r), "no file has been uploaded yet") {
			res = r
			break
		}
		select {
		case <-done:
			t.Fatal("the upload ended before a retry saw it running")
		case <-time.After(10 * time.Millisecond):
		}
	}
	<-done
	if a := answerOf(t, res); a.Size != int64(len(big)) || a.SHA256 != digest(big) {
		t.Errorf("answer %+v, want the %d-byte file", a, len(big))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 || progress[len(progress)-1] < float64(len(big)) {
		t.Errorf("progress %v, want it to end with the whole file, %d bytes", progress, len(big))
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Errorf("progress did not grow: %v", progress)
		}
	}
}

// TestUploadPageLinkSessionWaits: the retry in the same session, without
// arguments, waits for an upload that runs, as the URL-mode path does.
func TestUploadPageLinkSessionWaits(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	cs := inMemory(t, s, nil, "2025-11-25")
	page, _ := linkOf(t, callLink(t, cs, map[string]any{}))
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 3000) // 51 KiB of text
	done := make(chan struct{})
	go func() {
		defer close(done)
		slowUpload(t, page, "big.txt", "text/plain", big, 4<<10, 100*time.Millisecond)
	}()
	// Until the upload has begun, the retry gets the same link again.
	for {
		res := callLink(t, cs, map[string]any{})
		if len(res.Content) == 2 && !res.IsError {
			if again, _ := linkOf(t, res); again != page {
				t.Fatalf("the retry got another page: %s, then %s", page, again)
			}
			select {
			case <-done:
				t.Fatal("the upload ended before a retry saw it running")
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		if a := answerOf(t, res); a.Size != int64(len(big)) || a.SHA256 != digest(big) {
			t.Errorf("answer %+v, want the %d-byte file", a, len(big))
		}
		break
	}
	<-done
}

// TestUploadPageLinkPrincipal: with auth, the retry of the same principal
// in another session, without arguments, finds the page and gets the
// file; another principal's call does not.
func TestUploadPageLinkPrincipal(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	files, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), PublicURL: ts.URL + "/files/", Store: memstore.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "ask_link"}, askLinkTool)
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tok, Expiration: time.Now().Add(time.Hour)}, nil // the token names the user
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	mux.Handle("/files/", files) // a browser has no bearer token
	session := func(user string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil)
		hc := &http.Client{Transport: bearer{user, http.DefaultTransport}}
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	page, _ := linkOf(t, callLink(t, session("alice"), map[string]any{}))
	if code, html := uploadThroughPage(t, page, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("upload through the page: %d\n%s", code, html)
	}
	if other, _ := linkOf(t, callLink(t, session("bob"), map[string]any{})); other == page {
		t.Error("another principal's call found alice's page")
	}
	res := callLink(t, session("alice"), map[string]any{})
	if a := answerOf(t, res); a.Size != int64(len(pageText)) || a.SHA256 != digest(pageText) {
		t.Errorf("alice's retry in another session: %+v, want the text file", a)
	}
}

// TestUploadPageLinkOtherTool: the page's file URI is good only for the
// tool whose page it is: the page told the person which tool asks, so a
// call of another tool of the server that names it is refused, and does
// not take the file from the tool that asked.
func TestUploadPageLinkOtherTool(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "other"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.PageArgs) (*mcp.CallToolResult, pageAnswer, error) {
		if in.File == nil {
			return nil, pageAnswer{}, nil
		}
		return readAnswer(*in.File, pageAnswer{Action: "other"})
	})
	call := func(tool string, args map[string]any) *mcp.CallToolResult {
		res, err := inMemory(t, s, nil, "2026-07-28").CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	page, uri := linkOf(t, call("ask_link", map[string]any{}))
	if code, html := uploadThroughPage(t, page, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("upload through the page: %d\n%s", code, html)
	}
	res := call("other", map[string]any{"file": uri})
	if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, "another tool of this server asked for") || strings.Contains(got, "mcp-file:") {
		t.Errorf("another tool's call with the page's file URI: %q (isError %v), want it refused", got, res.IsError)
	}
	if a := answerOf(t, call("ask_link", map[string]any{"file": uri})); a.Size != int64(len(pageText)) || a.SHA256 != digest(pageText) {
		t.Errorf("the asking tool's retry after another tool's: %+v, want the text file", a)
	}
}

// TestUploadPageLinkTakenOnceRace: retries that send back the page's file
// URI at the same time get the file once between them.
func TestUploadPageLinkTakenOnceRace(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	page, uri := linkOf(t, callLink(t, inMemory(t, s, nil, "2026-07-28"), map[string]any{}))
	if code, html := uploadThroughPage(t, page, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("upload through the page: %d\n%s", code, html)
	}
	const n = 8
	sessions := make([]*mcp.ClientSession, n)
	for i := range sessions {
		sessions[i] = inMemory(t, s, nil, "2026-07-28")
	}
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, n)
	for i := range n {
		wg.Go(func() { results[i] = callLink(t, sessions[i], map[string]any{"file": uri}) })
	}
	wg.Wait()
	got := 0
	for _, res := range results {
		switch text := mcptest.Text(t, res); {
		case !res.IsError:
			got++
		case !strings.Contains(text, "an earlier call took already"):
			t.Errorf("a losing retry: %q, want it told the file was taken", text)
		}
	}
	if got != 1 {
		t.Errorf("%d of %d concurrent retries got the file, want 1", got, n)
	}
}

// TestUploadPageLinkAgain: a retry before the upload is told that no file
// has arrived yet and that the page it gave may already be open, not only
// to hand the link over as if for the first time.
func TestUploadPageLinkAgain(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	cs := inMemory(t, s, nil, "2025-11-25")
	first := callLink(t, cs, map[string]any{})
	linkOf(t, first)
	if text := first.Content[0].(*mcp.TextContent).Text; strings.Contains(text, "yet") {
		t.Errorf("the first link result %q speaks of an earlier one", text)
	}
	again := callLink(t, cs, map[string]any{})
	linkOf(t, again)
	if text := again.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "No file has been uploaded through the page yet") {
		t.Errorf("the retry's link result %q does not say that no file has arrived yet", text)
	}
}

// TestUploadPageLinkNotAnInputResponse: the page's file URI, which the
// link result shows the model, is taken once through the argument; a call
// that sends it back as the requestState of an answered URL-mode input
// request instead is refused, before and after the file was taken, and
// its decline does not close the page.
func TestUploadPageLinkNotAnInputResponse(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	page, uri := linkOf(t, callLink(t, inMemory(t, s, nil, "2026-07-28"), map[string]any{}))
	answer := func(action string) *mcp.CallToolResult {
		res, err := inMemory(t, s, nil, "2026-07-28").CallTool(t.Context(), &mcp.CallToolParams{
			Name: "ask_link", Arguments: map[string]any{}, RequestState: "mcpfile.upload/file/" + uri,
			InputResponses: mcp.InputResponseMap{"file": &mcp.ElicitResult{Action: action}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	answer("decline")
	if code, html := uploadThroughPage(t, page, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("upload through the page after a forged decline: %d\n%s", code, html)
	}
	for _, when := range []string{"before", "after"} {
		if res := answer("accept"); !res.IsError {
			t.Errorf("the page's file URI as requestState %s the file was taken: %s, want it refused", when, mcptest.Text(t, res))
		}
		if when == "before" {
			if a := answerOf(t, callLink(t, inMemory(t, s, nil, "2026-07-28"), map[string]any{"file": uri})); a.SHA256 != digest(pageText) {
				t.Errorf("the retry with the argument: %+v, want the text file", a)
			}
		}
	}
}

// TestUploadPageLinkTwiceInOneCall: for a list argument the link result
// says to send the page's file URI as a list of one. A call that names it
// in two items gets the file in both: the call takes it, once, and does
// not refuse itself (which would end the call and lose the file for good);
// the next call is refused. A call refused for another of its arguments
// takes nothing.
func TestUploadPageLinkTwiceInOneCall(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "ask_list"}, func(ctx context.Context, req *mcp.CallToolRequest, in testtypes.BulkArgs) (*mcp.CallToolResult, pageAnswer, error) {
		if len(in.Files) > 0 {
			return nil, pageAnswer{Action: "files", Size: int64(len(in.Files))}, nil
		}
		_, pending, err := runtime.ElicitUpload[testtypes.PageForm](ctx, req, "Please choose a text.", &runtime.ElicitOptions[testtypes.PageForm]{Arg: "files"})
		return pending, pageAnswer{}, err
	})
	call := func(args map[string]any) *mcp.CallToolResult {
		res, err := inMemory(t, s, nil, "2026-07-28").CallTool(t.Context(), &mcp.CallToolParams{Name: "ask_list", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call(map[string]any{})
	m := regexp.MustCompile(`\{"files":\["(mcp-file:[^"]*)"\]\}`).FindStringSubmatch(res.Content[0].(*mcp.TextContent).Text)
	if m == nil {
		t.Fatalf("the link result %q does not tell the model to send the page's file URI as a list of one", mcptest.Text(t, res))
	}
	uri := m[1]
	if code, html := uploadThroughPage(t, res.Content[1].(*mcp.ResourceLink).URI, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("upload through the page: %d\n%s", code, html)
	}
	// A call whose other argument is refused does not take the file.
	if res := call(map[string]any{"files": []string{uri, alterChar(uri, len(uri)/2)}}); !res.IsError || !strings.Contains(mcptest.Text(t, res), "Argument 'files[1]'") {
		t.Errorf("a call with an altered URI besides the page's: %s, want the altered one refused", mcptest.Text(t, res))
	}
	if a := answerOf(t, call(map[string]any{"files": []string{uri, uri}})); a.Size != 2 {
		t.Errorf("a call naming the page twice: %+v, want its two files", a)
	}
	if res := call(map[string]any{"files": []string{uri}}); !res.IsError || !strings.Contains(mcptest.Text(t, res), "an earlier call took already") {
		t.Errorf("the next call: %s, want it refused", mcptest.Text(t, res))
	}
}

// TestUploadPageLinkArgChecked: an ElicitOptions.Arg that names no file
// argument of the tool fails the call with a text for the server's author,
// instead of telling the model to send what the tool refuses.
func TestUploadPageLinkArgChecked(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "ask_typo"}, func(ctx context.Context, req *mcp.CallToolRequest, in testtypes.PageArgs) (*mcp.CallToolResult, pageAnswer, error) {
		_, pending, err := runtime.ElicitUpload[testtypes.PageForm](ctx, req, "Please.", &runtime.ElicitOptions[testtypes.PageForm]{Arg: "fiel"})
		return pending, pageAnswer{}, err
	})
	res, err := inMemory(t, s, nil, "2026-07-28").CallTool(t.Context(), &mcp.CallToolParams{Name: "ask_typo", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mcptest.Text(t, res), `names "fiel", which is no file argument of the tool "ask_typo"`; !res.IsError || !strings.Contains(got, want) {
		t.Errorf("%q, want an error saying %q", got, want)
	}
}
