package call

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// Forms answers what a tool asks for during a call (elicitation).
//
// A form (form mode; SEP-2356's file fields included) is answered from
// the command line's -answer arguments, which have the grammar of a
// call's (name=@path, name=value, name:=json): files are checked against
// the field's x-mcp-file and sent inline or uploaded, as for a tool
// argument (client.FormContent). It answers the first form it can fill,
// once; a form asked again (the server refused the answer: its message
// says why) or one it cannot fill is declined, with the server's message
// logged.
//
// A page (URL mode: an upload page of runtime.ElicitUpload, a sign-in)
// is printed, with the server's message and the page's host, and
// accepted: the person opens it in a browser, and the call goes on when
// the server has what it asked for, which the call's result (or, on
// protocol 2025-11-25, notifications/elicitation/complete first) says.
// The command never opens the page itself, nor posts a file to it: a
// page is for a person, and its form's checks (the browser's origin) are
// not the command's to imitate. A URL that is not an absolute http(s)
// address is declined.
type Forms struct {
	// Answers are the -answer arguments.
	Answers []Arg
	// Options say how files travel (as Arguments uses them), and Log
	// where the questions are printed.
	Options *Options

	mu       sync.Mutex
	answered bool
	pages    map[string]string // elicitation ID → the page's host, while it is open
}

// Handle is a go-sdk ElicitationHandler.
func (f *Forms) Handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	o := f.Options
	if o == nil {
		o = new(Options)
	}
	p := req.Params
	if p == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if p.Mode == "url" {
		return f.page(o, p), nil
	}
	logf(o, "the server asks: %s", oneLine(p.Message))
	f.mu.Lock()
	again := f.answered
	f.answered = true
	f.mu.Unlock()
	switch {
	case len(f.Answers) == 0:
		logf(o, "declined: give the form's fields with -answer name=@path or -answer name=value")
		return &mcp.ElicitResult{Action: "decline"}, nil
	case again:
		logf(o, "declined: the -answer arguments were given once already")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	values, files, err := split(p.RequestedSchema, f.Answers)
	if err == nil {
		var content map[string]any
		content, err = client.FormContent(ctx, req.Session, p.RequestedSchema, values, files, o.callOptions())
		if err == nil {
			logf(o, "answered the form")
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		}
	}
	if msg, ok := Usage(err); ok {
		logf(o, "declined: %s", msg)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return nil, err
}

// page prints the page p asks the person to open and accepts, or
// declines a URL that is no web page.
func (f *Forms) page(o *Options, p *mcp.ElicitParams) *mcp.ElicitResult {
	u, err := url.Parse(p.URL)
	if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		logf(o, "the server asks you to open a page whose address is not an http(s) URL; declined: %s", oneLine(p.Message))
		return &mcp.ElicitResult{Action: "decline"}
	}
	logf(o, "the server asks: %s", oneLine(p.Message))
	logf(o, "open this page (on %s) in a browser:\n  %s", printable(u.Host), printable(u.String()))
	if len(f.Answers) > 0 {
		logf(o, "(-answer fills forms, not pages: choose the file on the page)")
	}
	logf(o, "waiting until the server has what it asked for (Ctrl-C stops the call)")
	if p.ElicitationID != "" {
		f.mu.Lock()
		if f.pages == nil {
			f.pages = map[string]string{}
		}
		if len(f.pages) < maxPages {
			f.pages[p.ElicitationID] = u.Host
		}
		f.mu.Unlock()
	}
	return &mcp.ElicitResult{Action: "accept"}
}

// maxPages bounds the pages remembered for their completion notices.
const maxPages = 64

// complete is a go-sdk ElicitationCompleteHandler: it says that the page
// of an elicitation this command accepted is done with.
func (f *Forms) complete(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	if req.Params == nil {
		return
	}
	f.mu.Lock()
	host, ok := f.pages[req.Params.ElicitationID]
	delete(f.pages, req.Params.ElicitationID)
	f.mu.Unlock()
	if !ok {
		return
	}
	o := f.Options
	if o == nil {
		o = new(Options)
	}
	logf(o, "the page on %s is done: the server has what it asked for", printable(host))
}

// oneLine is a server's message on one line, without control characters,
// cut at 300 characters.
func oneLine(s string) string {
	s = printable(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// printable is s with each control character (an escape sequence would
// drive the terminal) replaced by U+FFFD.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '\uFFFD'
		}
		return r
	}, s)
}
