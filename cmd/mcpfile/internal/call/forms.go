package call

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Forms answers the forms a tool asks for during a call (elicitation,
// SEP-2356's file fields included) from the command line's -answer
// arguments, which have the grammar of a call's (name=@path,
// name=value, name:=json): files are checked against the field's
// x-mcp-file and sent inline or uploaded, as for a tool argument.
//
// It answers the first form it can fill once; a form asked again (the
// server refused the answer: its message says why) or one it cannot fill
// is declined, with the server's message logged. A URL-mode elicitation
// (a page to open in a browser) is logged and declined: the command has
// no browser.
type Forms struct {
	// Answers are the -answer arguments.
	Answers []Arg
	// Options say how files travel (as Arguments uses them).
	Options *Options

	mu       sync.Mutex
	answered bool
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
		logf(o, "the server asks you to open %s: %s (declined: call opens no browser)", p.URL, oneLine(p.Message))
		return &mcp.ElicitResult{Action: "decline"}, nil
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
	content, err := build(ctx, req.Session, "the form", p.RequestedSchema, f.Answers, o)
	if err != nil {
		logf(o, "declined: %s", strings.TrimPrefix(err.Error(), ErrUsage.Error()+": "))
		if errors.Is(err, ErrUsage) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return nil, err
	}
	logf(o, "answered the form")
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// oneLine is a server's message on one line, cut at 300 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}
