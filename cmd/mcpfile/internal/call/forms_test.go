package call

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
)

// TestFormsPages: a URL-mode elicitation of an http(s) page is printed,
// escapes made harmless, and accepted; any other address is declined.
func TestFormsPages(t *testing.T) {
	for _, tt := range []struct {
		url, action, want string
	}{
		{"https://files.example.com/page/abc", "accept", "open this page (on files.example.com) in a browser:\n  https://files.example.com/page/abc\n"},
		{"http://127.0.0.1:8080/files/page/x", "accept", "(on 127.0.0.1:8080)"},
		{"javascript:alert(1)", "decline", "not an http(s) URL; declined"},
		{"file:///etc/passwd", "decline", "not an http(s) URL; declined"},
		{"/relative/page", "decline", "not an http(s) URL; declined"},
		{"https://user:pw@example.com/", "decline", "not an http(s) URL; declined"},
		{"https://example.com/\u202egpj.exe", "accept", "https://example.com/%E2%80%AEgpj.exe"},
	} {
		var log bytes.Buffer
		f := &Forms{Options: &Options{Log: &log}}
		res, err := f.Handle(context.Background(), &mcp.ElicitRequest{Params: &mcp.ElicitParams{Mode: "url", URL: tt.url, Message: "Choose \x1b]0;title\x07 a \u202efile", ElicitationID: "e"}})
		if err != nil || res.Action != tt.action || !strings.Contains(log.String(), tt.want) || strings.ContainsAny(log.String(), "\x1b\x07\u202e") {
			t.Errorf("%s: %+v, %v, log %q; want %s and %q, no control characters", tt.url, res, err, log.String(), tt.action, tt.want)
		}
	}
}

// TestFormsRequired: a -32042 error's pages are printed and waited for
// until the server's notifications/elicitation/complete for each, which
// may come before the error is handled; then the call is to be made
// again. Other errors, and pages it declines, are not retried.
func TestFormsRequired(t *testing.T) {
	ctx := context.Background()
	var log mcptest.LockedBuffer
	f := &Forms{Options: &Options{Log: &log}}
	complete := func(id string) {
		f.complete(ctx, &mcp.ElicitationCompleteNotificationRequest{Params: &mcp.ElicitationCompleteParams{ElicitationID: id}})
	}
	if again, err := f.Required(ctx, errors.New("other")); again || err != nil {
		t.Errorf("Required(other error) = %v, %v; want false, nil", again, err)
	}
	bad := mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", URL: "file:///x", ElicitationID: "x"}})
	if again, err := f.Required(ctx, bad); again || err != nil {
		t.Errorf("Required(a file: page) = %v, %v; want false, nil", again, err)
	}
	noID := mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", URL: "https://example.com/"}})
	if again, err := f.Required(ctx, noID); again || err == nil {
		t.Errorf("Required(a page without an ID) = %v, %v; want false and why", again, err)
	}

	complete("a") // before the error is handled
	two := mcp.URLElicitationRequiredError([]*mcp.ElicitParams{
		{Mode: "url", URL: "https://a.example.com/", ElicitationID: "a", Message: "first"},
		{Mode: "url", URL: "https://b.example.com/", ElicitationID: "b", Message: "second"},
	})
	type result struct {
		again bool
		err   error
	}
	got := make(chan result, 1)
	go func() {
		again, err := f.Required(ctx, two)
		got <- result{again, err}
	}()
	select {
	case r := <-got:
		t.Fatalf("Required returned %+v before page b was done", r)
	case <-time.After(50 * time.Millisecond):
	}
	complete("b")
	select {
	case r := <-got:
		if !r.again || r.err != nil {
			t.Errorf("Required = %+v, want to call again", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Required did not return after both pages were done")
	}
	for _, want := range []string{"https://a.example.com/", "https://b.example.com/", "calling the tool again"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log %q lacks %q", log.String(), want)
		}
	}
}
