package browsertest

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// text10K is a 10 KiB text file (the page says "10 KiB").
var text10K = bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 160)

// pdf is the start of a PDF: a type the page does not take.
var pdf = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")

// TestPageWithScript: with JavaScript, the page sends the file by XHR,
// shows its progress, says the upload is complete, and the tool call
// answers the file.
func TestPageWithScript(t *testing.T) {
	protocols(t, func(t *testing.T, version string) {
		s := newSite(t, version)
		out, e, tb := s.ask(t, "ask")
		tb.do(t, "upload through the page",
			chromedp.Navigate(e.URL),
			chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, "notes.txt", text10K)}),
			chromedp.Click(chromedp.ID("send")),
			chromedp.WaitReady(chromedp.CSS(`form[data-state="done"]`)),
		)
		const want = "Upload complete (10 KiB). You can close this page and go back to the application."
		if got := tb.text(t, "#status"); got != want {
			t.Errorf("#status says %q, want %q", got, want)
		}
		bar, err := chromedp.Run(tb.ctx, chromedp.Evaluate[struct {
			Value, Max float64
			Hidden     bool
		}](`(() => { const p = document.getElementById('progress'); return {Value: p.value, Max: p.max, Hidden: p.hidden}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		// Its max is the body's size, as the XHR's progress events gave it
		// (the file and the form's other bytes), no longer the markup's 100.
		if bar.Hidden || bar.Max < float64(len(text10K)) || bar.Value != bar.Max {
			t.Errorf("<progress> %+v, want shown, at its max, which is at least the file's %d bytes", bar, len(text10K))
		}
		s.wantDelivered(t, version, out, e, text10K)
		if n := s.posts.Load(); n != 1 {
			t.Errorf("%d posts of the form, want 1", n)
		}
	})
}

// TestPageWithoutScript: without JavaScript, the plain form posts the file,
// the browser shows the "Upload complete" page, and the tool call answers
// the file. Chromium sends that post with "Origin: null", as the Fetch
// standard has it for a form on a page whose Referrer-Policy is
// no-referrer, and "Sec-Fetch-Site: same-origin": the page takes it.
func TestPageWithoutScript(t *testing.T) {
	protocols(t, func(t *testing.T, version string) {
		s := newSite(t, version)
		out, e, tb := s.ask(t, "ask")
		noScript(t, tb)
		tb.do(t, "open the page", chromedp.Navigate(e.URL), chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, "notes.txt", text10K)}))
		res, err := chromedp.RunResponse(tb.ctx, chromedp.Click(chromedp.ID("send")))
		if err != nil {
			t.Fatalf("send the form: %v", err)
		}
		if res.Status != http.StatusCreated {
			t.Errorf("the form's post: %d, want 201", res.Status)
		}
		if got := tb.text(t, "h1"); got != "Upload complete" {
			t.Errorf("<h1> %q, want \"Upload complete\"", got)
		}
		if got := tb.text(t, "#status"); !strings.Contains(got, "The file (10 KiB) has arrived.") {
			t.Errorf("#status says %q", got)
		}
		s.wantDelivered(t, version, out, e, text10K)
	})
}

// TestPageSaysWhoAsks: the page shows who asks for the file, so a person
// can tell a real request from a lure: the server's name (from its
// Implementation), the tool and the message; and nothing the person does
// not need: neither the page's token nor the elicitation's ID.
func TestPageSaysWhoAsks(t *testing.T) {
	protocols(t, func(t *testing.T, version string) {
		s := newSite(t, version)
		_, e, tb := s.ask(t, "ask")
		tb.do(t, "open the page", chromedp.Navigate(e.URL), chromedp.WaitReady(chromedp.ID("asker")))
		for sel, want := range map[string]string{
			"#server":  "browsertest",
			"#tool":    "ask",
			"#message": "Please choose a file.",
			"#asker":   "browsertest asks for a file for its tool ask:",
		} {
			if got := tb.text(t, sel); got != want {
				t.Errorf("%s says %q, want %q", sel, got, want)
			}
		}
		shown, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		tok := e.URL[strings.LastIndex(e.URL, "/")+1:]
		if strings.Contains(shown, tok) || strings.Contains(shown, e.ElicitationID) {
			t.Errorf("the page shows its token or the elicitation's ID: %q", shown)
		}
	})
}

// noScript turns JavaScript off in the tab, as a person who blocks it.
func noScript(t *testing.T, tb *tab) {
	t.Helper()
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("turning JavaScript off: %v", err)
	}
}

// TestPageChecksWithScript: with JavaScript, the page refuses a file over
// the limit and a file of a type it does not take before sending anything,
// and says why; the tool call goes on waiting, and a good file then goes
// through the same page.
func TestPageChecksWithScript(t *testing.T) {
	protocols(t, func(t *testing.T, version string) {
		s := newSite(t, version)
		out, e, tb := s.ask(t, "ask")
		tb.do(t, "open the page", chromedp.Navigate(e.URL))
		refused := []struct{ name, status string }{
			{"big.txt", "big.txt is 100 KiB, larger than the limit of 64 KiB. Choose a smaller file."},
			{"doc.pdf", "doc.pdf is not one of the accepted types. Choose another file."},
		}
		files := map[string][]byte{"big.txt": bytes.Repeat([]byte("a"), 100<<10), "doc.pdf": pdf}
		for _, r := range refused {
			tb.do(t, "choose "+r.name+" and send it",
				chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, r.name, files[r.name])}),
				chromedp.WaitReady(chromedp.CSS(`#status:not(.error)`)), // choosing a file clears the last error
				chromedp.Click(chromedp.ID("send")),
				chromedp.WaitReady(chromedp.CSS(`#status.error`)),
			)
			if got := tb.text(t, "#status"); got != r.status {
				t.Errorf("%s: #status says %q, want %q", r.name, got, r.status)
			}
		}
		if n := s.posts.Load(); n != 0 {
			t.Errorf("the page sent %d posts of refused files, want none", n)
		}
		stillWaiting(t, out, "the page refused two files")

		tb.do(t, "choose a good file and send it",
			chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, "notes.txt", text10K)}),
			chromedp.Click(chromedp.ID("send")),
			chromedp.WaitReady(chromedp.CSS(`form[data-state="done"]`)),
		)
		s.wantDelivered(t, version, out, e, text10K)
		if n := s.posts.Load(); n != 1 {
			t.Errorf("%d posts of the form, want 1", n)
		}
	})
}

// TestPageRefusalsWithoutScript: without JavaScript, the server's checks
// refuse what the page's script would have: a file of another type gets
// the 415 "Upload not accepted" page with the reason, and a file over the
// limit the 413 one, also when the browser is still sending the file as
// the server answers (Chromium shows the page, not a connection error).
// Nothing is stored, the tool call goes on waiting, and each refusal page
// links back to the upload page, where a good file then goes through.
func TestPageRefusalsWithoutScript(t *testing.T) {
	protocols(t, func(t *testing.T, version string) {
		s := newSite(t, version)
		out, e, tb := s.ask(t, "ask")
		noScript(t, tb)
		tb.do(t, "open the page", chromedp.Navigate(e.URL))
		refused := []struct {
			name   string
			body   []byte
			status int64
			reason string
		}{
			{"doc.pdf", pdf, http.StatusUnsupportedMediaType, "This file's type is"},
			{"limit.txt", bytes.Repeat([]byte("a"), 64<<10+1), http.StatusRequestEntityTooLarge, "The file is larger than the limit of 64 KiB. Choose a smaller file."},
			// The server stops reading at the limit, answers, and closes
			// the connection while the browser is still sending.
			{"huge.txt", bytes.Repeat([]byte("a"), 8<<20), http.StatusRequestEntityTooLarge, "The file is larger than the limit of 64 KiB. Choose a smaller file."},
		}
		for _, r := range refused {
			tb.do(t, "choose "+r.name, chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, r.name, r.body)}))
			res, err := chromedp.RunResponse(tb.ctx, chromedp.Click(chromedp.ID("send")))
			if err != nil {
				t.Fatalf("%s: send the form: %v", r.name, err)
			}
			h1, reason := tb.text(t, "h1"), tb.text(t, "#reason")
			if res.Status != r.status || h1 != "Upload not accepted" || !strings.Contains(reason, r.reason) {
				t.Errorf("%s: %d, <h1> %q, #reason %q; want %d, \"Upload not accepted\", a reason with %q", r.name, res.Status, h1, reason, r.status, r.reason)
			}
			if r.name == "doc.pdf" && !strings.Contains(reason, "the accepted types are image/png, text/plain") {
				t.Errorf("%s: #reason %q does not name the accepted types", r.name, reason)
			}
			if code := pageStatus(t, e.URL); code != http.StatusOK {
				t.Errorf("%s: GET the page after the refusal: %d, want 200 (nothing stored)", r.name, code)
			}
			stillWaiting(t, out, "a refused "+r.name)
			if _, err := chromedp.RunResponse(tb.ctx, chromedp.Click(chromedp.ID("again"))); err != nil {
				t.Fatalf("%s: follow the link back to the page: %v", r.name, err)
			}
		}

		tb.do(t, "choose a good file", chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, "notes.txt", text10K)}))
		res, err := chromedp.RunResponse(tb.ctx, chromedp.Click(chromedp.ID("send")))
		if err != nil {
			t.Fatalf("send the form: %v", err)
		}
		if h1 := tb.text(t, "h1"); res.Status != http.StatusCreated || h1 != "Upload complete" {
			t.Errorf("the good file: %d, <h1> %q; want 201, \"Upload complete\"", res.Status, h1)
		}
		s.wantDelivered(t, version, out, e, text10K)
	})
}

// TestPageBrowserClosed: a tab closed in the middle of an upload ends the
// tool call with an error that says the upload broke off, and stores
// nothing. The tool asks for any file of up to 2 GiB, the file is far
// larger than the sockets' buffers hold, and the server stops reading at
// midUpload bytes, as on a slow link: the browser is still sending when
// the tab closes.
func TestPageBrowserClosed(t *testing.T) {
	protocols(t, func(t *testing.T, version string) {
		s := newSite(t, version)
		s.stallAtMidUpload()
		out, e, tb := s.ask(t, "ask_any")
		const size = 64 << 20
		tb.do(t, "start the upload",
			chromedp.Navigate(e.URL),
			chromedp.SetUploadFiles(chromedp.ID("file"), []string{sparseFile(t, "big.bin", size)}),
			chromedp.Click(chromedp.ID("send")),
		)
		select {
		case <-s.midUpload:
		case <-time.After(tabTimeout):
			t.Fatal("the server never received the first bytes of the upload")
		}
		if err := tb.close(); err != nil {
			t.Fatalf("closing the tab: %v", err)
		}
		s.release() // the server reads what the browser sent before it went
		res := result(t, out)
		if !res.IsError || !strings.Contains(mcptest.Text(t, res), "broke off") {
			t.Errorf("result %s, want an error that says the upload broke off", mcptest.Text(t, res))
		}
		if n := s.received.Load(); n >= size {
			t.Errorf("the server read %d bytes of the post, the whole file (%d) at least", n, size)
		}
		if code := pageStatus(t, e.URL); code != http.StatusGone {
			t.Errorf("GET the page after the broken upload: %d, want 410 (the call it was for is over)", code)
		}
	})
}

// TestPageContentSecurityPolicy: the page's own script and style run under
// its Content-Security-Policy, and the browser reports no violation of it
// while the page takes a file. The check is not blind: a script the page
// did not bring, added to it afterwards, is refused, and the refusal is the
// first violation the console reports.
func TestPageContentSecurityPolicy(t *testing.T) {
	s := newSite(t, protocolMRTR)
	out, e, tb := s.ask(t, "ask")
	tb.do(t, "upload through the page",
		chromedp.Navigate(e.URL),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{tempFile(t, "notes.txt", text10K)}),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitReady(chromedp.CSS(`form[data-state="done"]`)), // the page's script ran
	)
	wantFile(t, result(t, out), text10K)
	color, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById('send')).backgroundColor`))
	if err != nil {
		t.Fatal(err)
	}
	if color != "rgb(11, 87, 208)" {
		t.Errorf("the button's background is %s, want the page's style's #0b57d0", color)
	}

	tb.expectViolations()
	injected, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`(() => {
		const s = document.createElement('script');
		s.textContent = "document.body.dataset.injected = 'ran'";
		document.body.appendChild(s);
		return document.body.dataset.injected || '';
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if injected != "" {
		t.Error("a script the page did not bring ran")
	}
	ctx, cancel := context.WithTimeout(tb.ctx, queryTimeout)
	defer cancel()
	msgs, err := tb.console.waitFor(ctx, isCSPViolation)
	if err != nil {
		t.Fatalf("the console reported no violation of the Content-Security-Policy for the added script: %v (console: %v)", err, tb.console.messages())
	}
	if v := msgs[len(msgs)-1]; !strings.Contains(v.Text, "inline script") {
		t.Errorf("the first violation the console reports is not the added script's: %s", v)
	}
}
