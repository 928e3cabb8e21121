package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// page plays a client and a person against analyze_document's
// import_archive, which asks the person for a file through an upload page
// (runtime.ElicitUpload, a URL-mode elicitation), on protocol 2026-07-28:
// the page comes back as an input request, the client shows it, the
// person's browser posts the file, and the retried call waits for it,
// reporting progress.
func (t *tour) page(ctx context.Context) {
	base, stop, ok := t.serveAnalyzeDocument()
	if !ok {
		return
	}
	defer stop()

	archive := textFile(3 << 20)
	sum := sha256.Sum256(archive)
	var (
		mu       sync.Mutex
		shown    *mcp.ElicitParams
		page     mcptest.UploadPage
		posted   int
		progress []*mcp.ProgressNotificationParams
		uploaded = make(chan struct{})
		// whole is closed by the notification that reports the whole file:
		// the client may run its handler after CallTool has returned.
		whole     = make(chan struct{})
		wholeOnce sync.Once
	)
	c := mcp.NewClient(&mcp.Implementation{Name: "tour", Version: "v1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		// The client shows the page's URL to the person, who opens it in a
		// browser and sends the file (the browser's part, played here).
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			shown = req.Params
			mu.Unlock()
			go func() {
				defer close(uploaded)
				p, err := mcptest.OpenUploadPage(nil, req.Params.URL)
				if err != nil {
					return
				}
				code, _, _ := mcptest.PagePost{Action: p.Action, Origin: mcptest.OriginOf(req.Params.URL), Token: p.Token,
					Name: "archive.txt", MediaType: "text/plain", Body: archive}.Post(nil)
				mu.Lock()
				page, posted = p, code
				mu.Unlock()
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params)
			mu.Unlock()
			if r.Params.Total > 0 && r.Params.Progress == r.Params.Total {
				wholeOnce.Do(func() { close(whole) })
			}
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + analyzedoc.MCPPath}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.check(false, "connect to analyze_document: %v", err)
		return
	}
	defer cs.Close()

	t.printf("   ans, pending, err := runtime.ElicitUpload[ArchiveUpload](ctx, req, \"Please choose the archive…\", nil)\n")
	t.printf("   (ArchiveUpload has one runtime.File field tagged maxSize=2GiB; the client declares elicitation.url)\n\n")
	t.printf("   tools/call import_archive {} with a progress token\n")
	params := &mcp.CallToolParams{Name: analyzedoc.ImportTool.Name, Arguments: map[string]any{}}
	params.SetProgressToken("tour")
	res, err := cs.CallTool(ctx, params)
	<-uploaded
	if err == nil {
		select { // the last notification, if it is still on its way
		case <-whole:
		case <-time.After(5 * time.Second):
		}
	}
	if err != nil {
		t.check(false, "tools/call import_archive: %v", err)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if shown == nil {
		t.check(false, "the client was never shown a page")
		return
	}
	u := shown.URL
	t.printf("   → an input request, mode \"url\": %q\n     url: %s<token, %d characters>\n",
		shown.Message, u[:strings.LastIndexByte(u, '/')+1], len(u)-strings.LastIndexByte(u, '/')-1)
	t.check(shown.Mode == "url" && strings.HasPrefix(u, base+"/files/page/"), "the page comes back as a URL-mode input request, served beside the MCP endpoint")

	rules := regexp.MustCompile(`<p id="rules"[^>]*>([^<]*)</p>`).FindStringSubmatch(page.HTML)
	csp := page.Header.Get("Content-Security-Policy")
	if rules != nil {
		t.printf("\n   the person's browser opens it: a form with one file input; it says %q\n", rules[1])
	}
	t.printf("   Content-Security-Policy: %.60s…\n", csp)
	t.check(page.Status == http.StatusOK && page.Token != "" && strings.Contains(csp, "default-src 'none'"),
		"the page is one form, its token in a hidden field, under a policy that runs only its own script")
	t.printf("   POST %s (the token field, then the file part, %d bytes) → %d\n", page.Action, len(archive), posted)
	t.check(posted == http.StatusCreated, "the page's post stored the file (201), through the upload endpoint's checks")

	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	t.printf("\n   the client retries the call with the person's answer; it waits for the upload, then:\n   %s\n", text)
	t.check(!res.IsError && strings.Contains(text, fmt.Sprintf("%d bytes, sha256:%s", len(archive), hex.EncodeToString(sum[:]))),
		"the handler read the uploaded bytes through File.Open: same size, same SHA-256")
	if n := len(progress); n > 0 {
		last := progress[n-1]
		t.printf("   %d progress notification(s); the last: %.0f of %.0f bytes\n", n, last.Progress, last.Total)
		t.check(last.Progress == last.Total && last.Progress >= float64(len(archive)), "progress reported, one at the end with the whole file")
	} else {
		t.check(false, "no progress notification")
	}

	again, _ := mcptest.OpenUploadPage(nil, u)
	t.printf("\n   the page once more: %d\n", again.Status)
	t.check(again.Status == http.StatusConflict, "the page is single use: a second upload is refused (409)")
}

// pageLink plays a chat host that declared no elicitation at all, and its
// model, against import_archive on protocol 2026-07-28, where each request
// stands alone: the call answers with the page's link for the model to
// pass on, the person uploads through it, and the model calls again with
// what the result told it to send back.
func (t *tour) pageLink(ctx context.Context) {
	base, stop, ok := t.serveAnalyzeDocument()
	if !ok {
		return
	}
	defer stop()
	c := mcp.NewClient(&mcp.Implementation{Name: "tour", Version: "v1"}, nil) // no elicitation
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + analyzedoc.MCPPath}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.check(false, "connect to analyze_document: %v", err)
		return
	}
	defer cs.Close()

	t.printf("   the client declared no elicitation, so ElicitUpload answers with an ordinary result:\n")
	t.printf("   tools/call import_archive {}\n")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: analyzedoc.ImportTool.Name, Arguments: map[string]any{}})
	if err != nil || len(res.Content) != 2 {
		t.check(false, "tools/call import_archive: %v", err)
		return
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	link, _ := res.Content[1].(*mcp.ResourceLink)
	if text == nil || link == nil {
		t.check(false, "the result is not a text and a resource_link")
		return
	}
	sendBack := regexp.MustCompile(`\{"archive":"(mcp-file:[^"]*)"\}`).FindStringSubmatch(text.Text)
	shown := strings.ReplaceAll(text.Text, link.URI, link.URI[:strings.LastIndexByte(link.URI, '/')+1]+"<token>")
	if sendBack != nil {
		shown = strings.ReplaceAll(shown, sendBack[1], "mcp-file://…<sealed>")
	}
	t.printf("   → text: %s\n", indent(shown, "     ")[5:])
	t.printf("   → resource_link %s (%s)\n", link.Name, link.MIMEType)
	t.check(!res.IsError && strings.HasPrefix(link.URI, base+"/files/page/") && strings.Contains(text.Text, link.URI) && sendBack != nil,
		"a result the model can act on: the page's link, what to upload, and what to send back when it calls again")
	if sendBack == nil {
		return
	}

	page, err := mcptest.OpenUploadPage(nil, link.URI)
	if err != nil {
		t.check(false, "open the page: %v", err)
		return
	}
	asker := regexp.MustCompile(`<p id="asker">(.*?)</p>`).FindStringSubmatch(page.HTML)
	if asker != nil {
		t.printf("\n   the person opens the link; the page says: %s\n", regexp.MustCompile(`<[^>]*>`).ReplaceAllString(asker[1], ""))
	}
	t.check(asker != nil && strings.Contains(asker[1], "analyze_document</strong> asks for a file for its tool <code id=\"tool\">import_archive"),
		"the page names the server (from its Implementation) and the tool that ask")
	archive := textFile(1 << 20)
	sum := sha256.Sum256(archive)
	code, _, err := mcptest.PagePost{Action: page.Action, Origin: mcptest.OriginOf(link.URI), Token: page.Token,
		Name: "archive.txt", MediaType: "text/plain", Body: archive}.Post(nil)
	t.printf("   POST %s (%d bytes) → %d\n", page.Action, len(archive), code)
	t.check(err == nil && code == http.StatusCreated, "the person's browser uploaded the file through the page")

	t.printf("\n   the model calls again, as the result said: tools/call import_archive {\"archive\": \"mcp-file://…\"}\n")
	args := map[string]any{"archive": sendBack[1]}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: analyzedoc.ImportTool.Name, Arguments: args})
	if err != nil {
		t.check(false, "the retry: %v", err)
		return
	}
	t.printf("   → %s\n", textOf(res))
	t.check(!res.IsError && strings.Contains(textOf(res), fmt.Sprintf("%d bytes, sha256:%s", len(archive), hex.EncodeToString(sum[:]))),
		"a request of its own (stateless) got the file through the URI it sent back: same size, same SHA-256")
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: analyzedoc.ImportTool.Name, Arguments: args})
	t.printf("   the same once more → %s\n", textOf(res))
	t.check(err == nil && res.IsError && strings.Contains(textOf(res), "earlier call took already"), "the URI gets the file once")
}

// textOf is the text of a tool result's text blocks.
func textOf(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}
