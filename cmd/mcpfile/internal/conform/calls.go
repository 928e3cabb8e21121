package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// caller sends one file argument its cases.
type caller struct {
	r *runner
	t tool
	f field
	// fill are the other arguments of a call.
	fill map[string]any
}

// others fills the tool's other required arguments, or says why it cannot.
func (c *caller) others() string {
	c.fill = map[string]any{}
	for n, s := range c.t.required {
		c.fill[n] = fill(s)
	}
	for _, o := range c.t.fields {
		if o.name == c.f.name || !o.required {
			continue
		}
		if len(o.problems) > 0 || !o.inline() {
			return "the tool also requires " + o.name + ", which the suite cannot fill with a data: URI"
		}
		v, ok := validValue(o)
		if !ok {
			return "the tool also requires " + o.name + ", for which the suite makes no file"
		}
		c.fill[o.name] = v
	}
	return ""
}

// validValue is a small valid value for a file argument f.
func validValue(f field) (any, bool) {
	k, ok := firstKind(f)
	if !ok {
		return nil, false
	}
	b := k.build(0)
	if f.maxSize >= 0 && int64(len(b)) > f.maxSize {
		return nil, false
	}
	u := b64URI(k.mediaType, b)
	if !f.array {
		return u, true
	}
	items := []any{}
	for range count(f) {
		items = append(items, u)
	}
	return items, true
}

func firstKind(f field) (kind, bool) {
	if !f.hasAccept {
		return kinds["application/octet-stream"], true
	}
	for _, a := range f.accept {
		if k, ok := kindFor(a); ok {
			if !strings.Contains(a, "*") {
				k.mediaType = a
			}
			return k, true
		}
	}
	return kind{}, false
}

// count is how many files a call puts in an array argument: two where the
// array allows (a tool of several files may want a pair), else its
// minItems, else one.
func count(f field) int {
	n := max(f.minItems, 1)
	if n < 2 && (f.maxItems < 0 || f.maxItems >= 2) {
		n = 2
	}
	return n
}

// value is the file argument's value holding uri: uri, or for an array,
// uri first, then valid files up to count.
func (c *caller) value(uri string) any {
	if !c.f.array {
		return uri
	}
	items := []any{uri}
	if v, ok := validValue(c.f); ok {
		items = append(items, v.([]any)[1:]...)
	}
	return items
}

// an answer is what a tools/call came back with.
type answer struct {
	res    *mcp.CallToolResult
	rpc    *jsonrpc.Error
	broken error // neither a result nor a JSON-RPC error: the connection failed
}

func (a answer) refused() bool { return a.rpc != nil || a.res != nil && a.res.IsError }

// text is everything the answer says, for the echo check.
func (a answer) text() string {
	var s strings.Builder
	if a.res != nil {
		for _, c := range a.res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				s.WriteString(t.Text + "\n")
			}
		}
		b, _ := json.Marshal(a.res)
		s.Write(b)
	}
	if a.rpc != nil {
		s.WriteString(a.rpc.Message + "\n")
		s.Write(a.rpc.Data)
	}
	return s.String()
}

// brief is a short quote of the answer for a detail.
func (a answer) brief() string {
	s := a.text()
	if a.res != nil {
		var t []string
		for _, c := range a.res.Content {
			if x, ok := c.(*mcp.TextContent); ok {
				t = append(t, x.Text)
			}
		}
		s = strings.Join(t, " ")
	}
	if a.rpc != nil {
		s = fmt.Sprintf("JSON-RPC error %d %q", a.rpc.Code, a.rpc.Message)
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}

// call calls the tool with v as the file argument's value.
func (c *caller) call(ctx context.Context, v any) answer {
	args := map[string]any{c.f.name: v}
	for k, x := range c.fill {
		args[k] = x
	}
	ctx, cancel := context.WithTimeout(ctx, c.r.o.CallTimeout)
	defer cancel()
	res, err := c.r.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.t.name, Arguments: args})
	if err == nil {
		return answer{res: res}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return answer{rpc: je}
	}
	return answer{broken: err}
}

// accept sends a valid file: the check passes when the call succeeds.
func (c *caller) accept(ctx context.Context, id, what, uri string) error {
	r := c.r
	a := c.call(ctx, c.value(uri))
	tg := r.target(c.f, what)
	switch {
	case a.broken != nil:
		r.res.add(id, "fail", tg, "the call failed: "+a.broken.Error())
		return c.alive(ctx, tg)
	case a.refused():
		r.res.add(id, "fail", tg, "refused a valid file: "+a.brief())
	default:
		r.res.add(id, "pass", tg, "")
	}
	return nil
}

// refuse sends a file the server must refuse, then checks the refusal's
// form, that it does not echo payload, and that the server still serves.
func (c *caller) refuse(ctx context.Context, id, what, uri string, payload []byte) error {
	return c.refuseValue(ctx, id, what, c.value(uri), payload)
}

// refuseValue is refuse with the argument's whole value.
func (c *caller) refuseValue(ctx context.Context, id, what string, v any, payload []byte) error {
	r := c.r
	a := c.call(ctx, v)
	tg := r.target(c.f, what)
	if a.broken != nil {
		r.res.add(id, "fail", tg, "the call failed: "+a.broken.Error())
		return c.alive(ctx, tg)
	}
	if !a.refused() {
		r.res.add(id, "fail", tg, "accepted: "+a.brief())
		return nil
	}
	r.res.add(id, "pass", tg, "")
	r.form(a, tg, c.f.name)
	if payload != nil {
		if run := echoes(a.text(), payload); run != "" {
			r.res.add("refusal.noecho", "fail", tg+" ["+id+"]", fmt.Sprintf("the refusal repeats %q of the file", run))
		} else {
			r.res.add("refusal.noecho", "pass", tg, "")
		}
	}
	return c.alive(ctx, tg+" ["+id+"]")
}

// form checks the shape of a refusal.
func (r *runner) form(a answer, tg, name string) {
	switch {
	case a.res != nil:
		text := a.brief()
		if !strings.Contains(text, name) {
			r.res.add("refusal.form", "fail", tg, fmt.Sprintf("the isError result does not name the argument %q: %s", name, text))
			return
		}
		r.res.forms["isError"]++
	case a.rpc.Code != -32602:
		r.res.add("refusal.form", "fail", tg, fmt.Sprintf("a JSON-RPC error %d (want an isError result, or -32602 with data.reason): %q", a.rpc.Code, a.rpc.Message))
		return
	default:
		var d struct {
			Reason string `json:"reason"`
		}
		if json.Unmarshal(a.rpc.Data, &d) != nil || d.Reason == "" {
			r.res.add("refusal.form", "fail", tg, fmt.Sprintf("a -32602 error without data.reason: %q", a.rpc.Message))
			return
		}
		r.res.forms["-32602"]++
	}
	r.res.add("refusal.form", "pass", tg, "")
}

// alive checks that the server answers after a refusal, and reconnects
// when it does not.
func (c *caller) alive(ctx context.Context, tg string) error {
	r := c.r
	pctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	defer cancel()
	_, err := r.cs.ListTools(pctx, nil)
	if err == nil {
		r.res.add("refusal.alive", "pass", r.version+" "+c.f.String(), "")
		return nil
	}
	r.res.add("refusal.alive", "fail", tg, "the server did not answer tools/list after it: "+err.Error())
	r.cs.Close()
	if err := r.connect(ctx); err != nil {
		return fmt.Errorf("reconnecting after the server stopped answering: %v", err)
	}
	return nil
}

// echoes returns a run of 16 characters of payload, or of its base64, that
// text contains, or "".
func echoes(text string, payload []byte) string {
	const run = 16
	if len(text) < run {
		return ""
	}
	windows := make(map[string]struct{}, len(text))
	for i := 0; i+run <= len(text); i++ {
		windows[text[i:i+run]] = struct{}{}
	}
	for _, s := range [][]byte{payload, []byte(enc(payload))} {
		for i := 0; i+run <= len(s); i++ {
			if _, ok := windows[string(s[i:i+run])]; ok {
				return string(s[i : i+run])
			}
		}
	}
	return ""
}
