package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"regexp"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// noArgs are the arguments of a tool without any: a hand-written
// MCPSchema, as mcpfilegen writes for a type without files.
type noArgs struct{}

func (noArgs) MCPSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false}`)
}

// pageAnswer is what the ask tool answers: the action, and the file's
// size, digest, type and name.
type pageAnswer struct {
	Action    string `json:"action"`
	Size      int64  `json:"size,omitempty"`
	SHA256    string `json:"sha256,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	Name      string `json:"name,omitempty"`
}

// askTool asks for a testtypes.PageForm through an upload page, with
// opts, and reads the file through File.Open. calls counts its
// invocations.
func askTool(calls *atomic.Int32, opts *runtime.ElicitOptions[testtypes.PageForm]) mcp.ToolHandlerFor[noArgs, pageAnswer] {
	return func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, pageAnswer, error) {
		if calls != nil {
			calls.Add(1)
		}
		ans, pending, err := runtime.ElicitUpload[testtypes.PageForm](ctx, req, "Please choose a picture or a text.", opts)
		if pending != nil || err != nil {
			return pending, pageAnswer{}, err
		}
		out := pageAnswer{Action: string(ans.Action)}
		if ans.Action != runtime.Accept {
			return nil, out, nil
		}
		return readAnswer(ans.Value.File, out)
	}
}

// readAnswer reads f into out: its size, digest, type and name.
func readAnswer(f runtime.File, out pageAnswer) (*mcp.CallToolResult, pageAnswer, error) {
	r, err := f.Open()
	if err != nil {
		return nil, out, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return nil, out, err
	}
	out.Size, out.SHA256, out.MediaType, out.Name = n, hex.EncodeToString(h.Sum(nil)), f.MediaType, f.Name
	return nil, out, nil
}

// pageServer serves the ask tool, with uploads (and so upload pages).
func pageServer(t *testing.T, o transfer.Options, calls *atomic.Int32) *mcp.Server {
	t.Helper()
	if o.Store == nil {
		o.Store = memstore.New(nil)
	}
	s := uploadsServer(t, o)
	runtime.AddTool(s, &mcp.Tool{Name: "ask"}, askTool(calls, nil))
	runtime.AddTool(s, &mcp.Tool{Name: "ask_error"}, askTool(calls, &runtime.ElicitOptions[testtypes.PageForm]{Handover: runtime.HandoverError}))
	runtime.AddTool(s, &mcp.Tool{Name: "ask_link"}, askLinkTool)
	return s
}

// A person is the test's stand-in for a person with a browser: the URL-mode
// elicitations a client showed, and what happened on each page.
type person struct {
	mu    sync.Mutex
	asked []*mcp.ElicitParams
}

func (p *person) ask(params *mcp.ElicitParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, params)
}

func (p *person) pages() []*mcp.ElicitParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), p.asked...)
}

// urlClient returns the options of a client that declares URL-mode
// elicitation and answers each with action, after calling onPage (when
// not nil) with the elicitation.
func urlClient(action string, p *person, onPage func(*mcp.ElicitParams)) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return nil, fmt.Errorf("asked in mode %q", req.Params.Mode)
			}
			p.ask(req.Params)
			if onPage != nil {
				onPage(req.Params)
			}
			return &mcp.ElicitResult{Action: action}, nil
		},
	}
}

// pageForm is what a browser reads of an upload page: the form's action
// and its hidden token.
type pageForm struct {
	action, token string
	html          string
	header        http.Header
}

// openPage GETs an upload page, as a browser opens it.
func openPage(t *testing.T, pageURL string) (int, pageForm) {
	t.Helper()
	p, err := mcptest.OpenUploadPage(nil, pageURL)
	if err != nil {
		t.Fatal(err)
	}
	return p.Status, pageForm{action: p.Action, token: p.Token, html: p.HTML, header: p.Header}
}

// postForm posts a page's form as a browser does: the token, then the
// file named name of type mediaType ("" for none), from origin.
func postForm(t *testing.T, action, origin, tok, name, mediaType string, b []byte) (int, string) {
	t.Helper()
	code, page, err := mcptest.PagePost{Action: action, Origin: origin, Token: tok, Name: name, MediaType: mediaType, Body: b}.Post(nil)
	if err != nil {
		t.Fatal(err)
	}
	return code, page
}

// uploadThroughPage opens the page and posts b through its form, and
// returns the post's status and page.
func uploadThroughPage(t *testing.T, pageURL, name, mediaType string, b []byte) (int, string) {
	t.Helper()
	code, f := openPage(t, pageURL)
	if code != http.StatusOK || f.action == "" || f.token == "" {
		t.Fatalf("GET the page: %d, action %q, token %d bytes\n%s", code, f.action, len(f.token), f.html)
	}
	return postForm(t, f.action, mcptest.OriginOf(pageURL), f.token, name, mediaType, b)
}

// answerOf decodes the ask tool's structured answer.
func answerOf(t *testing.T, res *mcp.CallToolResult) pageAnswer {
	t.Helper()
	return mcptest.Structured[pageAnswer](t, res)
}

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

var pageText = []byte("Line one.\nLine two.\n")

// TestUploadPageMRTR: on protocol 2026-07-28 the tool returns the page as a
// URL-mode input request; the client shows it, and the retry waits for the
// upload and gets the file, with the page's checks behind it.
func TestUploadPageMRTR(t *testing.T) {
	var calls atomic.Int32
	s := pageServer(t, transfer.Options{}, &calls)
	var p person
	cs := inMemory(t, s, urlClient("accept", &p, func(e *mcp.ElicitParams) {
		if code, page := uploadThroughPage(t, e.URL, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
			t.Errorf("upload through the page: %d\n%s", code, page)
		}
	}), "2026-07-28")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	a := answerOf(t, res)
	if a.Action != "accept" || a.Size != int64(len(pageText)) || a.SHA256 != digest(pageText) || a.MediaType != "text/plain" || a.Name != "notes.txt" {
		t.Errorf("answer %+v, want the text file's", a)
	}
	pages := p.pages()
	if len(pages) != 1 || pages[0].ElicitationID == "" || pages[0].Message != "Please choose a picture or a text." {
		t.Errorf("elicitations %+v, want one URL-mode elicitation with an id and the message", pages)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the handler ran %d times, want 2 (the call and its retry)", n)
	}
}

// TestUploadPageProgress: the retry waits while the person uploads, and
// reports progress to a caller that gave a progress token: growing, of the
// page's limit, and one at the end with the whole file.
func TestUploadPageProgress(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	var p person
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 3000) // 51 KiB of text, under 64 KiB
	uploaded := make(chan struct{})
	var mu sync.Mutex
	var progress []mcp.ProgressNotificationParams
	opts := urlClient("accept", &p, func(e *mcp.ElicitParams) {
		go func() { // the person takes their time
			defer close(uploaded)
			time.Sleep(300 * time.Millisecond)
			slowUpload(t, e.URL, "big.txt", "text/plain", big, 8<<10, 100*time.Millisecond)
		}()
	})
	whole := make(chan struct{}) // the notification that says the whole file came
	var once sync.Once
	opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, *r.Params)
		mu.Unlock()
		if r.Params.Progress == r.Params.Total && r.Params.Progress >= float64(len(big)) {
			once.Do(func() { close(whole) })
		}
	}
	cs := inMemory(t, s, opts, "2026-07-28")
	params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}
	params.SetProgressToken("upload-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	<-uploaded
	// The client handles notifications apart from the result: the last may
	// reach the handler after CallTool has returned.
	select {
	case <-whole:
	case <-time.After(30 * time.Second):
		t.Error("no progress notification said the whole file came")
	}
	if a := answerOf(t, res); a.Size != int64(len(big)) || a.SHA256 != digest(big) {
		t.Errorf("answer %+v, want the %d-byte file", a, len(big))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) < 2 {
		t.Fatalf("%d progress notifications, want some while bytes arrive and one at the end: %+v", len(progress), progress)
	}
	// The last says the whole file: its size of its size, or one more of
	// one more when the size was reported already (progress must grow).
	last := progress[len(progress)-1]
	if last.Progress != last.Total || (last.Progress != float64(len(big)) && last.Progress != float64(len(big)+1)) {
		t.Errorf("last progress %v of %v, want %d of %d (or one more of one more)", last.Progress, last.Total, len(big), len(big))
	}
	for i, pr := range progress {
		if pr.ProgressToken != "upload-1" {
			t.Errorf("progress %d has token %v", i, pr.ProgressToken)
		}
		if i > 0 && pr.Progress <= progress[i-1].Progress {
			t.Errorf("progress did not grow: %v then %v", progress[i-1].Progress, pr.Progress)
		}
		if i < len(progress)-1 && pr.Total != 64<<10 {
			t.Errorf("progress %d total %v, want the page's limit %d", i, pr.Total, 64<<10)
		}
	}
}

// slowUpload posts b through the page's form in chunks of chunk bytes,
// pausing between them, as a slow link would.
func slowUpload(t *testing.T, pageURL, name, mediaType string, b []byte, chunk int, pause time.Duration) {
	code, f := openPage(t, pageURL)
	if code != http.StatusOK {
		t.Errorf("GET the page: %d", code)
		return
	}
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	mw.WriteField("token", f.token)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", mediaType)
	mw.CreatePart(h)
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	pr, pw := io.Pipe()
	go func() {
		pw.Write(head.Bytes())
		for off := 0; off < len(b); off += chunk {
			pw.Write(b[off:min(off+chunk, len(b))])
			time.Sleep(pause)
		}
		pw.Write([]byte(tail))
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, f.action, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("slow upload: %d", res.StatusCode)
	}
}

// TestUploadPageOlderProtocol: before 2026-07-28, the handler sends
// elicitation/create with the page itself, waits for the upload, and
// tells the client the elicitation is complete.
func TestUploadPageOlderProtocol(t *testing.T) {
	var calls atomic.Int32
	s := pageServer(t, transfer.Options{}, &calls)
	var p person
	completed := make(chan string, 1)
	opts := urlClient("accept", &p, func(e *mcp.ElicitParams) {
		go func() {
			if code, page := uploadThroughPage(t, e.URL, "dot.png", "image/png", mcptest.PNG(t, 2, 2, false)); code != http.StatusCreated {
				t.Errorf("upload through the page: %d\n%s", code, page)
			}
		}()
	})
	opts.ElicitationCompleteHandler = func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
		completed <- r.Params.ElicitationID
	}
	cs := inMemory(t, s, opts, "2025-11-25")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if a := answerOf(t, res); a.Action != "accept" || a.MediaType != "image/png" || a.Name != "dot.png" {
		t.Errorf("answer %+v, want the PNG", a)
	}
	if pages := p.pages(); len(pages) != 1 {
		t.Errorf("%d pages shown, want 1", len(pages))
	} else {
		mcptest.WantCompleted(t, completed, pages[0].ElicitationID)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
}

// TestUploadPageDecline: a person who declines or cancels is the answer's
// action, on both protocol generations.
func TestUploadPageDecline(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, action := range []string{"decline", "cancel"} {
			t.Run(version+"/"+action, func(t *testing.T) {
				s := pageServer(t, transfer.Options{}, nil)
				var p person
				cs := inMemory(t, s, urlClient(action, &p, nil), version)
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				if a := answerOf(t, res); a.Action != action {
					t.Errorf("action %q, want %q", a.Action, action)
				}
			})
		}
	}
}

// TestUploadPageRequired: a client without URL-mode elicitation, of a
// tool that chose HandoverError, gets the -32042 error with the page; when
// the upload is done the server says so, and the client's retry gets the
// file. A retry before that gets the same page again, never a second one.
func TestUploadPageRequired(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := pageServer(t, transfer.Options{}, nil)
			completed := make(chan string, 1)
			opts := &mcp.ClientOptions{
				ElicitationCompleteHandler: func(_ context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
					completed <- r.Params.ElicitationID
				},
			}
			cs := inMemory(t, s, opts, version)
			call := func() (*mcp.CallToolResult, error) {
				return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask_error", Arguments: map[string]any{}})
			}
			required := func() *mcp.ElicitParams {
				t.Helper()
				_, err := call()
				return mcptest.URLElicitationRequired(t, err)
			}
			e1 := required()
			e2 := required()
			if e1.URL != e2.URL || e1.ElicitationID != e2.ElicitationID {
				t.Errorf("the retry minted a second page: %s, then %s", e1.URL, e2.URL)
			}
			if code, page := uploadThroughPage(t, e1.URL, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
				t.Fatalf("upload through the page: %d\n%s", code, page)
			}
			mcptest.WantCompleted(t, completed, e1.ElicitationID)
			res, err := call()
			if err != nil {
				t.Fatal(err)
			}
			if a := answerOf(t, res); a.Size != int64(len(pageText)) || a.SHA256 != digest(pageText) {
				t.Errorf("answer %+v, want the text file", a)
			}
			// A handler runs from the top on each retry: one that asks for
			// another file after this one finds this one again.
			if res, err := call(); err != nil || answerOf(t, res).SHA256 != digest(pageText) {
				t.Errorf("the next retry: %v, want the same file", err)
			}
		})
	}
}

// TestUploadPageLimit: MaxPages bounds the pages waiting at once; a page
// stops counting when its file is uploaded or the person declines.
func TestUploadPageLimit(t *testing.T) {
	s := pageServer(t, transfer.Options{MaxPages: 1}, nil)
	var p person
	upload := inMemory(t, s, urlClient("accept", &p, func(e *mcp.ElicitParams) {
		uploadThroughPage(t, e.URL, "notes.txt", "text/plain", pageText)
	}), "2026-07-28")
	decline := inMemory(t, s, urlClient("decline", &p, nil), "2025-11-25")
	for i, cs := range []*mcp.ClientSession{upload, upload, decline, decline, upload} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Errorf("call %d: %s", i+1, mcptest.Text(t, res))
		}
	}
	// One page waiting: the next one is refused, with the reason.
	waiting := pageServer(t, transfer.Options{MaxPages: 1}, nil)
	shown := make(chan struct{}, 1)
	held := inMemory(t, waiting, urlClient("accept", &person{}, func(*mcp.ElicitParams) { shown <- struct{}{} }), "2025-11-25")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go held.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}) // waits for an upload
	<-shown
	other := inMemory(t, waiting, urlClient("accept", &person{}, nil), "2026-07-28")
	deadline := time.Now().Add(10 * time.Second)
	for {
		octx, ocancel := context.WithTimeout(t.Context(), 5*time.Second) // a page minted would wait for ever
		res, err := other.CallTool(octx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		ocancel()
		if err != nil {
			t.Fatalf("a second page while one waits: %v, want the limit's error", err)
		}
		if res.IsError && strings.Contains(mcptest.Text(t, res), "upload pages waiting for a file, its limit") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second page while one waits: %s, want the limit's error", mcptest.Text(t, res))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pendingPage starts a call of the ask tool on protocol 2026-07-28 whose
// client accepts the page without uploading, and returns the page's URL and
// the channel of the call's outcome.
func pendingPage(t *testing.T, o transfer.Options) (string, <-chan *mcp.CallToolResult) {
	t.Helper()
	s := pageServer(t, o, nil)
	var p person
	shown := make(chan string, 1)
	cs := inMemory(t, s, urlClient("accept", &p, func(e *mcp.ElicitParams) { shown <- e.URL }), "2026-07-28")
	out := make(chan *mcp.CallToolResult, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before the session closes: a call left waiting ends
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "call failed: " + err.Error()}}}
		}
		out <- res
	}()
	select {
	case u := <-shown:
		return u, out
	case <-time.After(10 * time.Second):
		t.Fatal("the page was never shown")
		return "", nil
	}
}

// TestUploadPageRejections: what the page refuses, it refuses with a 4xx
// page that says why, before storing anything, and the person can choose
// another file on the same page; the tool call goes on waiting.
func TestUploadPageRejections(t *testing.T) {
	pageURL, out := pendingPage(t, transfer.Options{})
	code, f := openPage(t, pageURL)
	if code != http.StatusOK {
		t.Fatalf("GET the page: %d", code)
	}
	origin := mcptest.OriginOf(pageURL)
	pdf := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
	cases := []struct {
		name                         string
		tok, origin, file, mediaType string
		body                         []byte
		want                         int
		reason                       string
		code                         string // the JSON answer's "reason"
	}{
		{"a type the page does not take", f.token, origin, "a.pdf", "application/pdf", pdf, http.StatusUnsupportedMediaType, "the accepted types are image/png, text/plain", transfer.ReasonMimeTypeNotAccepted},
		{"a PDF that says it is text", f.token, origin, "a.txt", "text/plain", pdf, http.StatusUnsupportedMediaType, "the accepted types are", transfer.ReasonMimeTypeNotAccepted},
		{"over the limit", f.token, origin, "big.txt", "text/plain", bytes.Repeat([]byte("a"), 64<<10+1), http.StatusRequestEntityTooLarge, "larger than the limit of 64 KiB", transfer.ReasonMaxSizeExceeded},
		{"no file chosen", f.token, origin, "", "application/octet-stream", nil, http.StatusBadRequest, "No file was chosen", transfer.ReasonNoFile},
		{"another site's form, without the token", "", "https://evil.example", "a.txt", "text/plain", pageText, http.StatusForbidden, "sent from another site", transfer.ReasonCrossSite},
		{"another site's form, with the token", f.token, "https://evil.example", "a.txt", "text/plain", pageText, http.StatusForbidden, "sent from another site", transfer.ReasonCrossSite},
		{"a post without the token", "", "", "a.txt", "text/plain", pageText, http.StatusBadRequest, "no token field", transfer.ReasonMalformed},
		{"an altered token", alterChar(f.token, len(f.token)-10), origin, "a.txt", "text/plain", pageText, http.StatusForbidden, "not an upload page of this server", transfer.ReasonUnauthorized},
	}
	for _, c := range cases {
		code, page := postForm(t, f.action, c.origin, c.tok, c.file, c.mediaType, c.body)
		if code != c.want || !strings.Contains(page, html.EscapeString(c.reason)) {
			t.Errorf("%s: %d\n%s\nwant %d with %q", c.name, code, page, c.want, c.reason)
		}
		if strings.Contains(page, "Location") || code/100 == 3 {
			t.Errorf("%s: a redirect", c.name)
		}
		// The page's script asks for JSON: the same refusal, with its code.
		p := mcptest.PagePost{Action: f.action, Origin: c.origin, Token: c.tok, Name: c.file, MediaType: c.mediaType, Body: c.body, JSON: true}
		code, body, err := p.Post(nil)
		var got struct{ Error, Reason string }
		if err != nil || json.Unmarshal([]byte(body), &got) != nil || code != c.want || got.Reason != c.code || !strings.Contains(got.Error, c.reason) {
			t.Errorf("%s, as JSON: %d %s (%v), want %d with reason %q", c.name, code, body, err, c.want, c.code)
		}
	}
	select {
	case res := <-out:
		t.Fatalf("the call ended after refused uploads: %s", mcptest.Text(t, res))
	default:
	}

	// The genuine file still goes through the same page, once.
	if code, page := postForm(t, f.action, origin, f.token, "ok.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("the genuine upload after the refused ones: %d\n%s", code, page)
	}
	res := <-out
	if a := answerOf(t, res); a.Size != int64(len(pageText)) {
		t.Errorf("answer %+v", a)
	}
	if code, page := postForm(t, f.action, origin, f.token, "again.txt", "text/plain", pageText); code != http.StatusConflict || !strings.Contains(page, "uploaded through this page already") {
		t.Errorf("a second upload through the page: %d\n%s", code, page)
	}
	if code, f2 := openPage(t, pageURL); code != http.StatusConflict || f2.token != "" {
		t.Errorf("the page after its upload: %d, form shown %v", code, f2.token != "")
	}
}

// TestUploadPageBrowserClosed: a browser closed halfway through the upload
// ends the tool call with an error that says so, stores nothing, and
// leaves no goroutine of the server's behind.
func TestUploadPageBrowserClosed(t *testing.T) {
	// Cut within the first bytes (read before the store is touched), and after.
	for _, sent := range []int{100, 20000} {
		t.Run(fmt.Sprint(sent), func(t *testing.T) {
			pageURL, out := pendingPage(t, transfer.Options{})
			_, f := openPage(t, pageURL)
			http.DefaultClient.CloseIdleConnections()
			before := goruntime.NumGoroutine() // the waiting call's included
			u, _ := url.Parse(f.action)
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			mw.WriteField("token", f.token)
			fw, _ := mw.CreateFormFile("file", "half.txt")
			fw.Write(bytes.Repeat([]byte("t"), sent))
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", u.Path, u.Host, mw.FormDataContentType(), body.Len()+60000)
			conn.Write(body.Bytes()) // and never the rest
			time.Sleep(100 * time.Millisecond)
			conn.Close()
			select {
			case res := <-out:
				if !res.IsError || !strings.Contains(mcptest.Text(t, res), fmt.Sprintf("broke off after %d bytes", sent)) {
					t.Errorf("result %s, want an error that says the upload broke off after %d bytes", mcptest.Text(t, res), sent)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not end when the browser went away")
			}
			deadline := time.Now().Add(10 * time.Second)
			for goruntime.NumGoroutine() >= before && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := goruntime.NumGoroutine(); n >= before {
				t.Errorf("%d goroutines after the call ended, %d while it waited: the upload or the wait left some behind", n, before)
			}
			// The call is over: so is the page.
			if code, f := openPage(t, pageURL); code != http.StatusGone || !strings.Contains(f.html, "no longer waiting") {
				t.Errorf("GET the page after the broken upload: %d, want 410\n%s", code, f.html)
			}
		})
	}
}

// TestUploadPageExpired: an expired page says so, and a call waiting for
// it ends with an error that says what to do.
func TestUploadPageExpired(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().Unix())
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	pageURL, out := pendingPage(t, transfer.Options{Now: clock, PageTTL: 2 * time.Second})
	now.Add(3)
	if code, f := openPage(t, pageURL); code != http.StatusForbidden || !strings.Contains(f.html, "expired") {
		t.Errorf("GET an expired page: %d\n%s", code, f.html)
	}
	select {
	case res := <-out:
		if !res.IsError || !strings.Contains(mcptest.Text(t, res), "before it expired") {
			t.Errorf("result %s, want an error that says the page expired", mcptest.Text(t, res))
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the call did not end when the page expired")
	}
}

// TestUploadPageMarkup: the page states what it takes, posts the token
// before the file, runs nothing but its own script and style, and sends
// its address (which holds the token) nowhere.
func TestUploadPageMarkup(t *testing.T) {
	pageURL, _ := pendingPage(t, transfer.Options{})
	code, f := openPage(t, pageURL)
	if code != http.StatusOK {
		t.Fatalf("GET: %d", code)
	}
	for _, want := range []string{
		`accept="image/png,text/plain"`, "Accepted: image/png, text/plain. Up to 64 KiB.",
		`data-max-size="65536"`, `enctype="multipart/form-data"`, "Please choose a picture or a text.",
		`<label for="file">`, `role="status"`,
		// Who asks: the server's name (its Implementation's), the tool.
		`<strong id="server">uploads</strong> asks for a file for its tool <code id="tool">ask</code>`,
	} {
		if !strings.Contains(f.html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(f.html, `name="token"`) > strings.Index(f.html, `name="file"`) {
		t.Error("the token field comes after the file field: the form would send the file first")
	}
	for _, bad := range []string{"src=", "http://", "https://"} {
		rest := strings.Replace(f.html, f.action, "", 1)
		if strings.Contains(rest, bad) {
			t.Errorf("the page refers to something outside it: %q", bad)
		}
	}
	csp := f.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'sha256-", "form-action 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	// The page's own script and style are the ones the policy allows.
	for _, el := range []struct{ tag, directive string }{{"script", "script-src"}, {"style", "style-src"}} {
		m := regexp.MustCompile(`(?s)<` + el.tag + `>(.*?)</` + el.tag + `>`).FindStringSubmatch(f.html)
		if m == nil {
			t.Errorf("the page has no <%s>", el.tag)
			continue
		}
		sum := sha256.Sum256([]byte(m[1]))
		if want := el.directive + " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q does not allow the page's <%s> (want %q)", csp, el.tag, want)
		}
	}
	if f.header.Get("Referrer-Policy") != "no-referrer" || f.header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", f.header)
	}
}

// TestUploadPageForgedState: a retry whose requestState names a page the
// server did not give this caller gets an error, not another's file.
func TestUploadPageForgedState(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	cs := inMemory(t, s, urlClient("accept", &person{}, nil), "2026-07-28")
	for _, state := range []string{"", "mcpfile.upload/file/mcp-file://127.0.0.1/file_x.k.1.AAAA", "something else"} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{
			Name: "ask", Arguments: map[string]any{}, RequestState: state,
			InputResponses: mcp.InputResponseMap{"file": &mcp.ElicitResult{Action: "accept"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(mcptest.Text(t, res), "requestState") {
			t.Errorf("state %q: %s, want an error about requestState", state, mcptest.Text(t, res))
		}
	}
}

// TestElicitUploadMisuse: ElicitUpload says what is wrong with a form that
// is not one file, and with a server that serves no upload pages.
func TestElicitUploadMisuse(t *testing.T) {
	cases := []struct {
		name     string
		register bool
		ask      func(context.Context, *mcp.CallToolRequest) error
		want     string
	}{
		{"several properties", true, func(ctx context.Context, req *mcp.CallToolRequest) error {
			_, _, err := runtime.ElicitUpload[testtypes.HostArgs](ctx, req, "m", nil)
			return err
		}, "must have one property, a runtime.File"},
		{"not a file", true, func(ctx context.Context, req *mcp.CallToolRequest) error {
			_, _, err := runtime.ElicitUpload[testtypes.NestedForm](ctx, req, "m", nil)
			return err
		}, "must have one property, a runtime.File"},
		{"no transfer.Register", false, func(ctx context.Context, req *mcp.CallToolRequest) error {
			_, _, err := runtime.ElicitUpload[testtypes.PageForm](ctx, req, "m", nil)
			return err
		}, "call transfer.Register"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s *mcp.Server
			if c.register {
				s = uploadsServer(t, transfer.Options{})
			} else {
				s = mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
			}
			runtime.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				return nil, nil, c.ask(ctx, req)
			})
			cs := inMemory(t, s, urlClient("accept", &person{}, nil), "2026-07-28")
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(mcptest.Text(t, res), c.want) {
				t.Errorf("%s, want an error with %q", mcptest.Text(t, res), c.want)
			}
		})
	}
}

// TestUploadPageOrigin: the page's own plain form post comes with "Origin:
// null" (its Referrer-Policy is no-referrer) and is taken; a post that the
// browser says came from another site is refused, whatever its Origin.
func TestUploadPageOrigin(t *testing.T) {
	cases := []struct {
		origin, site string
		want         int
	}{
		{"null", "cross-site", http.StatusForbidden},
		{"null", "same-site", http.StatusForbidden},
		{"https://evil.example", "", http.StatusForbidden},
		{"null", "same-origin", http.StatusCreated},
	}
	pageURL, out := pendingPage(t, transfer.Options{})
	_, f := openPage(t, pageURL)
	for _, c := range cases {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("token", f.token)
		fw, _ := mw.CreateFormFile("file", "notes.txt")
		fw.Write(pageText)
		mw.Close()
		req, _ := http.NewRequest(http.MethodPost, f.action, &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Origin", c.origin)
		if c.site != "" {
			req.Header.Set("Sec-Fetch-Site", c.site)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Origin %s, Sec-Fetch-Site %q: %d, want %d", c.origin, c.site, res.StatusCode, c.want)
		}
	}
	if a := answerOf(t, <-out); a.Size != int64(len(pageText)) {
		t.Errorf("answer %+v", a)
	}
}

// TestUploadPageStateBinding: a retry's requestState must name a page of
// this tool and input request: every page the server mints does (their
// IDs hold any of their characters), and an uploaded file's URI does not.
func TestUploadPageStateBinding(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, ignore[testtypes.DocumentArgs]) // takes uploads
	var p person
	cs := inMemory(t, s, urlClient("accept", &p, func(e *mcp.ElicitParams) {
		uploadThroughPage(t, e.URL, "notes.txt", "text/plain", pageText)
	}), "2026-07-28")
	for i := range 30 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if a := answerOf(t, res); a.SHA256 != digest(pageText) {
			t.Fatalf("call %d: %+v", i, a)
		}
	}
	askState := func(tool, state string) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{
			Name: tool, Arguments: map[string]any{}, RequestState: "mcpfile.upload/file/" + state,
			InputResponses: mcp.InputResponseMap{"file": &mcp.ElicitResult{Action: "accept"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return mcptest.Text(t, res)
	}
	uploaded := uploadFile(t, t.Context(), cs, "notes.txt", "text/plain", pageText)
	if got := askState("ask", uploaded); !strings.Contains(got, "requestState") {
		t.Errorf("an uploaded file's URI as the page's state: %s, want a refusal", got)
	}
}

// TestUploadPageEnds: a page whose call no longer waits for it (the person
// declined, or the client could not show it) takes no file: 410.
func TestUploadPageEnds(t *testing.T) {
	for _, c := range []struct {
		name, version string
		opts          *mcp.ClientOptions
	}{
		{"declined, 2026-07-28", "2026-07-28", nil},
		{"declined, 2025-11-25", "2025-11-25", nil},
		{"not shown, 2025-11-25", "2025-11-25", &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := pageServer(t, transfer.Options{}, nil)
			var p person
			opts := urlClient("decline", &p, nil)
			if c.opts != nil {
				opts = c.opts
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					p.ask(req.Params)
					return nil, errors.New("the client could not open a browser")
				}
			}
			cs := inMemory(t, s, opts, c.version)
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}); err != nil && c.opts == nil {
				t.Fatal(err)
			}
			pages := p.pages()
			if len(pages) != 1 {
				t.Fatalf("%d pages shown", len(pages))
			}
			if code, f := openPage(t, pages[0].URL); code != http.StatusGone || !strings.Contains(f.html, "no longer waiting") {
				t.Errorf("GET the page: %d\n%s", code, f.html)
			}
		})
	}
}

// TestUploadPagePerCaller: one caller cannot hold more than
// MaxPagesPerCaller pages waiting; another caller still gets one.
func TestUploadPagePerCaller(t *testing.T) {
	s := pageServer(t, transfer.Options{MaxPagesPerCaller: 2}, nil)
	shown := make(chan struct{}, 8)
	hold := func() *mcp.ClientSession {
		return inMemory(t, s, urlClient("accept", &person{}, func(*mcp.ElicitParams) { shown <- struct{}{} }), "2025-11-25")
	}
	greedy := hold()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for range 2 {
		go greedy.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}) // wait for uploads
		<-shown
	}
	tctx, tcancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer tcancel()
	res, err := greedy.CallTool(tctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(mcptest.Text(t, res), "the limit per caller") {
		t.Errorf("a third page for the same caller: %v %v, want the per-caller limit", err, res)
	}
	go hold().CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	select {
	case <-shown:
	case <-time.After(5 * time.Second):
		t.Error("another caller got no page")
	}
}

// TestUploadPageLimitAboveQuota: a form whose file may be larger than the
// quota lets a caller hold is refused when it is asked, not at the upload.
func TestUploadPageLimitAboveQuota(t *testing.T) {
	s := pageServer(t, transfer.Options{Quota: 32 << 10}, nil) // the page takes up to 64 KiB
	cs := inMemory(t, s, urlClient("accept", &person{}, nil), "2026-07-28")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(mcptest.Text(t, res), "raise the quota, or lower the form's maxSize") {
		t.Errorf("%v %v, want an error that names the quota", err, res)
	}
}

// TestUploadPageURLHidesWho: a page's URL, which people see and browsers
// keep, holds neither the caller's principal nor the message in clear; the
// page, opened without the caller's credentials, shows the message.
func TestUploadPageURLHidesWho(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
	files, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), PublicURL: ts.URL + "/files/", Store: memstore.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddTool(s, &mcp.Tool{Name: "ask"}, askTool(nil, nil))
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: "alice.smith@example.com", Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	mux.Handle("/files/", files) // a browser has no bearer token
	var p person
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, urlClient("decline", &p, nil))
	hc := &http.Client{Transport: bearer{"x", http.DefaultTransport}}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	pages := p.pages()
	if len(pages) != 1 {
		t.Fatalf("%d pages", len(pages))
	}
	u := pages[0].URL
	tok := u[strings.LastIndex(u, "/")+1:]
	payload, err := base64.RawURLEncoding.DecodeString(strings.SplitN(tok, ".", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"alice", "example.com", "picture"} {
		if bytes.Contains(payload, []byte(secret)) || strings.Contains(u, secret) {
			t.Errorf("the page URL holds %q in clear", secret)
		}
	}
}

// alterChar returns s with its byte at i replaced by another base64url
// character: a whole character in the middle of a sealed text changes the
// bytes it decodes to, whatever the (random) text is, which the last
// characters, with their padding bits, do not always.
func alterChar(s string, i int) string {
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
