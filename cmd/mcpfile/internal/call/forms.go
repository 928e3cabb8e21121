package call

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
// A tools/call refused with -32042 (URL elicitation required), the other
// way a server asks for pages, is handled by Required: the pages are
// printed, and once the server has said each is done
// (notifications/elicitation/complete), the call is made again.
//
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
	// Input, when not nil, is the person's terminal: a line typed there
	// (Enter) says the pages a -32042 error asked for are done, for a
	// server whose notification cannot arrive (see Required).
	Input io.Reader

	mu       sync.Mutex
	answered bool
	pages    map[string]*openPage // by elicitation ID, while it is open
	finished map[string]bool      // IDs completed before their page was printed
	lines    chan struct{}        // a line of Input; nil until read
}

// An openPage is a page the command printed and accepted.
type openPage struct {
	host string
	done chan struct{} // closed by notifications/elicitation/complete
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
		res, _ := f.page(o, p)
		return res, nil
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
// declines a URL that is no web page. done is closed when the server says
// the page is done with (nil when p has no elicitation ID, or too many
// pages are open).
func (f *Forms) page(o *Options, p *mcp.ElicitParams) (res *mcp.ElicitResult, done <-chan struct{}) {
	u, err := url.Parse(p.URL)
	if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		logf(o, "the server asks you to open a page whose address is not an http(s) URL; declined: %s", oneLine(p.Message))
		return &mcp.ElicitResult{Action: "decline"}, nil
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
			f.pages = map[string]*openPage{}
		}
		if op := f.pages[p.ElicitationID]; op != nil {
			done = op.done
		} else if len(f.pages) < maxPages {
			op := &openPage{host: u.Host, done: make(chan struct{})}
			f.pages[p.ElicitationID], done = op, op.done
			if f.finished[p.ElicitationID] { // the notice came first
				delete(f.finished, p.ElicitationID)
				delete(f.pages, p.ElicitationID)
				close(op.done)
			}
		}
		f.mu.Unlock()
	}
	return &mcp.ElicitResult{Action: "accept"}, done
}

// Required handles err, the error of a tools/call: when it is -32042 (URL
// elicitation required) carrying URL-mode elicitations, it prints each
// page as Handle does and waits until the server has sent
// notifications/elicitation/complete for every one, or a line arrives on
// Input, then reports that the call is to be made again. It reports
// false, and the reason when there is one, for any other error, for a
// page it declines, and for an elicitation without an ID (nothing would
// say when it is done).
//
// The line is there because the notification may not arrive: sent after
// the call ended, it needs a way to the client outside any call (the
// streamable HTTP transport's standalone stream), which a server need not
// offer.
func (f *Forms) Required(ctx context.Context, err error) (bool, error) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired {
		return false, nil
	}
	o := f.Options
	if o == nil {
		o = new(Options)
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(je.Data, &data) != nil || len(data.Elicitations) == 0 || len(data.Elicitations) > maxPages {
		return false, errors.New("the server requires pages to be opened (-32042), but its error does not list them (want data.elicitations, 1 to 64 of them)")
	}
	var waits []<-chan struct{}
	for _, p := range data.Elicitations {
		if p == nil || p.Mode != "url" || p.ElicitationID == "" {
			return false, errors.New("the server requires a page to be opened (-32042), but does not give it as a URL-mode elicitation with an elicitationId")
		}
		res, done := f.page(o, p)
		if res.Action != "accept" {
			return false, nil
		}
		if done == nil {
			return false, errors.New("too many pages are open")
		}
		waits = append(waits, done)
	}
	lines := f.input()
	if lines != nil {
		logf(o, "press Enter here once you are done on the page, if the call does not go on by itself")
	}
wait:
	for _, done := range waits {
		select {
		case <-done:
		case <-lines:
			logf(o, "done, you say")
			break wait
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	logf(o, "calling the tool again")
	return true, nil
}

// maxPages bounds the pages remembered for their completion notices,
// and the notices remembered before their pages.
const maxPages = 64

// input returns the channel of Input's lines, read by one goroutine for
// the life of the command; nil without Input.
func (f *Forms) input() <-chan struct{} {
	if f.Input == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lines == nil {
		f.lines = make(chan struct{})
		go func(lines chan<- struct{}) {
			sc := bufio.NewScanner(f.Input)
			for sc.Scan() {
				lines <- struct{}{}
			}
		}(f.lines)
	}
	return f.lines
}

// complete is a go-sdk ElicitationCompleteHandler: it says that the page
// of an elicitation this command accepted is done with.
func (f *Forms) complete(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	if req.Params == nil {
		return
	}
	id := req.Params.ElicitationID
	f.mu.Lock()
	op, ok := f.pages[id]
	delete(f.pages, id)
	if !ok && id != "" && len(f.finished) < maxPages {
		if f.finished == nil {
			f.finished = map[string]bool{}
		}
		f.finished[id] = true
	}
	f.mu.Unlock()
	if !ok {
		return
	}
	close(op.done)
	o := f.Options
	if o == nil {
		o = new(Options)
	}
	logf(o, "the page on %s is done: the server has what it asked for", printable(op.host))
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
// drive the terminal) and each bidirectional control (which would show
// an address other than the one it is) replaced by U+FFFD.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0),
			r == 0x200e || r == 0x200f || r == 0x061c || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return '\uFFFD'
		}
		return r
	}, s)
}
