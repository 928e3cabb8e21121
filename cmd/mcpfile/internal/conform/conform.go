// Package conform is the conformance suite behind mcpfile conform: it
// connects to an MCP server as a client, reads the x-mcp-file properties
// of its tools (SEP-2356), sends each one files it makes in code, valid and
// invalid, and reports, check by check, whether the server accepts and
// refuses what the text says it must.
//
// It is internal while its checks grow (SEP-2631's are to come): the
// command's output, not a Go API, is the interface it promises.
package conform

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Versions are the protocol versions the suite speaks, one generation
// each: sessions and elicitation/create (2025-11-25), and none (2026-07-28).
var Versions = []string{"2025-11-25", "2026-07-28"}

// BigSize is the largest file the suite sends without Options.Big.
const BigSize = 64 << 20

// Options say how to reach the server and what to send it.
type Options struct {
	// Connect opens a new client session on protocol version. The suite
	// calls it once per version, and again after a server stopped
	// answering.
	Connect func(ctx context.Context, version string) (*mcp.ClientSession, error)
	// Versions are the protocol versions to check (nil: Versions). A
	// version the server negotiates down from is reported, not checked.
	Versions []string
	// Big lets the suite send files larger than BigSize (64 MiB).
	Big bool
	// CallTimeout bounds each request (0: 30 seconds).
	CallTimeout time.Duration
}

// A Check is the outcome of one check, over every file argument and
// protocol version it applied to.
type Check struct {
	ID          string `json:"id"`
	Requirement string `json:"requirement"`
	Level       string `json:"level"`  // "MUST" or "SHOULD"
	Status      string `json:"status"` // "pass", "fail" or "skip"
	Detail      string `json:"detail"`
}

// A Report is the outcome of a run.
type Report struct {
	Checks []Check `json:"checks"`
	// Notes say what was checked: the versions spoken, the file arguments
	// found, the versions the server did not speak.
	Notes []string `json:"-"`
}

// MustFailed reports whether a MUST check failed.
func (r *Report) MustFailed() bool {
	for _, c := range r.Checks {
		if c.Status == "fail" && c.Level == "MUST" {
			return true
		}
	}
	return false
}

// ErrUnreachable is returned, wrapped, when the server could not be
// checked at all.
var ErrUnreachable = errors.New("the server could not be checked")

// Run checks the server o.Connect reaches.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.CallTimeout == 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.Versions == nil {
		o.Versions = Versions
	}
	trap, err := newTrap()
	if err != nil {
		return nil, err
	}
	defer trap.close()
	res := newResults()
	rep := &Report{}
	spoken := 0
	for _, v := range o.Versions {
		r := &runner{o: o, version: v, res: res, trap: trap}
		note, err := r.run(ctx)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		if errors.Is(err, errNotSpoken) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: protocol %s: %v", ErrUnreachable, v, err)
		}
		spoken++
	}
	if spoken == 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnreachable, strings.Join(rep.Notes, "; "))
	}
	if n := trap.hits.Load(); n > 0 {
		res.add("scheme.nofetch", "fail", "", fmt.Sprintf("%d connection(s) reached the suite's loopback URLs (%s): the server dereferenced a URL it was sent", n, strings.Join(trap.paths(), ", ")))
	} else if res.ran["scheme.refuse.http"] || res.ran["scheme.refuse.https"] {
		res.add("scheme.nofetch", "pass", "", "no connection reached the suite's loopback http: and https: URLs during the run (only a server on this machine can reach them)")
	}
	rep.Checks = res.checks()
	return rep, nil
}

var errNotSpoken = errors.New("version not spoken")

// results gathers the outcomes of each check over targets.
type results struct {
	pass, fail, skip map[string][]string
	ran              map[string]bool
	forms            map[string]int
}

func newResults() *results {
	return &results{pass: map[string][]string{}, fail: map[string][]string{}, skip: map[string][]string{}, ran: map[string]bool{}, forms: map[string]int{}}
}

// add records status for check id on target, with detail.
func (r *results) add(id, status, target, detail string) {
	s := detail
	if target != "" {
		s = target + ": " + detail
	}
	switch status {
	case "pass":
		r.ran[id] = true
		if target == "" {
			target = detail
		}
		r.pass[id] = append(r.pass[id], target)
	case "fail":
		r.ran[id] = true
		r.fail[id] = append(r.fail[id], s)
	default:
		r.skip[id] = append(r.skip[id], detail)
	}
}

func (r *results) checks() []Check {
	var out []Check
	for _, c := range checks {
		k := Check{ID: c.id, Requirement: c.requirement, Level: c.level}
		switch {
		case len(r.fail[c.id]) > 0:
			k.Status, k.Detail = "fail", summarize(r.fail[c.id])
		case len(r.pass[c.id]) > 0:
			k.Status = "pass"
			k.Detail = fmt.Sprintf("%d case(s): %s", len(r.pass[c.id]), summarize(unique(withoutVersion(r.pass[c.id]))))
			if c.id == "refusal.form" {
				k.Detail = r.formDetail()
			}
			if c.id == "scheme.nofetch" {
				k.Detail = r.pass[c.id][0]
			}
		default:
			k.Status = "skip"
			k.Detail = summarize(unique(r.skip[c.id]))
			if k.Detail == "" {
				k.Detail = "no file argument it applies to"
			}
		}
		out = append(out, k)
	}
	return out
}

func (r *results) formDetail() string {
	var parts []string
	for _, f := range []string{"isError", "-32602"} {
		if r.forms[f] > 0 {
			parts = append(parts, fmt.Sprintf("%d refusal(s) as %s", r.forms[f], f))
		}
	}
	return strings.Join(parts, ", ")
}

// withoutVersion drops the protocol version that starts each target.
func withoutVersion(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s
		for _, v := range Versions {
			if rest, ok := strings.CutPrefix(s, v+" "); ok {
				out[i] = rest
			}
		}
	}
	return out
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func summarize(ss []string) string {
	const most = 4
	if len(ss) > most {
		return strings.Join(ss[:most], "; ") + fmt.Sprintf("; and %d more", len(ss)-most)
	}
	return strings.Join(ss, "; ")
}

// trap is where the suite's http: and https: URLs point: a loopback HTTP
// server and a loopback TCP listener (for https:, whose TLS handshake it
// never answers); any connection to either is a fetch.
type trap struct {
	http  *httptest.Server
	tls   net.Listener
	hits  atomic.Int64
	seen  chan string
	files string // a directory with a file the file: and path checks name
}

func newTrap() (*trap, error) {
	t := &trap{seen: make(chan string, 1024)}
	t.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.hits.Add(1)
		select {
		case t.seen <- "http:" + r.URL.Path:
		default:
		}
		http.NotFound(w, r)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.http.Close()
		return nil, fmt.Errorf("listening on loopback for the fetch check: %v", err)
	}
	t.tls = l
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.hits.Add(1)
			select {
			case t.seen <- "https:" + l.Addr().String():
			default:
			}
			c.Close()
		}
	}()
	dir, err := os.MkdirTemp("", "mcpfile-conform-")
	if err != nil {
		t.close()
		return nil, err
	}
	t.files = dir
	if err := os.WriteFile(filepath.Join(dir, "conform.png"), pngFile(0), 0o644); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *trap) paths() []string {
	var out []string
	for {
		select {
		case p := <-t.seen:
			out = append(out, p)
		default:
			sort.Strings(out)
			return unique(out)
		}
	}
}

func (t *trap) close() {
	t.http.Close()
	t.tls.Close()
	if t.files != "" {
		os.RemoveAll(t.files)
	}
}

// runner runs the checks on one protocol version.
type runner struct {
	o       Options
	version string
	res     *results
	trap    *trap
	cs      *mcp.ClientSession
}

func (r *runner) connect(ctx context.Context) error {
	cs, err := r.o.Connect(ctx, r.version)
	if err != nil {
		return err
	}
	r.cs = cs
	return nil
}

func (r *runner) run(ctx context.Context) (string, error) {
	if err := r.connect(ctx); err != nil {
		return fmt.Sprintf("%s: could not connect: %v", r.version, err), errNotSpoken
	}
	defer func() { r.cs.Close() }()
	if got := r.cs.InitializeResult().ProtocolVersion; got != r.version {
		return fmt.Sprintf("%s: not spoken (the server negotiated %s); its checks did not run", r.version, got), errNotSpoken
	}
	schemas := map[string]json.RawMessage{}
	for t, err := range r.cs.Tools(ctx, nil) {
		if err != nil {
			return "", fmt.Errorf("tools/list: %v", err)
		}
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return "", fmt.Errorf("tool %q: input schema: %v", t.Name, err)
		}
		schemas[t.Name] = b
	}
	tools, err := readTools(schemas)
	if err != nil {
		return "", err
	}
	var names []string
	for _, t := range tools {
		for _, f := range t.fields {
			names = append(names, f.String())
		}
	}
	note := fmt.Sprintf("%s: %d tool(s), %d file argument(s): %s", r.version, len(schemas), len(names), strings.Join(names, ", "))
	if len(names) == 0 {
		note = fmt.Sprintf("%s: %d tool(s), no x-mcp-file argument", r.version, len(schemas))
	}
	for _, t := range tools {
		for _, f := range t.fields {
			if err := r.field(ctx, t, f); err != nil {
				return note, err
			}
		}
	}
	return note, nil
}

// target names a case in a check's detail.
func (r *runner) target(f field, what string) string {
	s := r.version + " " + f.String()
	if what != "" {
		s += " (" + what + ")"
	}
	return s
}

// skipFiles records reason as the skip of every check that sends f a file.
func (r *runner) skipFiles(f field, reason string) {
	for _, c := range checks {
		if c.id != "schema.shape" && c.id != "scheme.nofetch" {
			r.res.add(c.id, "skip", "", f.String()+": "+reason)
		}
	}
}

// field runs every check on one file argument.
func (r *runner) field(ctx context.Context, t tool, f field) error {
	if len(f.problems) > 0 {
		r.res.add("schema.shape", "fail", r.target(f, ""), strings.Join(f.problems, "; "))
		r.skipFiles(f, "its x-mcp-file is malformed, so clients ignore it")
		return nil
	}
	r.res.add("schema.shape", "pass", f.String(), "")
	if !f.inline() {
		r.skipFiles(f, "upload only (transferModes "+strings.Join(f.modes, ", ")+"): SEP-2631's checks are not built yet")
		return nil
	}
	c := caller{r: r, t: t, f: f}
	if reason := c.others(); reason != "" {
		r.skipFiles(f, reason)
		return nil
	}

	// The types the suite can make, in accept's order; the first is the
	// one the other checks send.
	var ks []kind
	seen := map[string]bool{}
	for _, a := range f.accept {
		if strings.HasPrefix(a, ".") {
			continue
		}
		k, ok := kindFor(a)
		if !ok {
			r.res.add("inline.accept.base64", "skip", "", f.String()+": the suite makes no "+a+" file")
			continue
		}
		if !strings.Contains(a, "*") {
			k.mediaType = a
		}
		if !seen[strings.ToLower(k.mediaType)] {
			seen[strings.ToLower(k.mediaType)] = true
			ks = append(ks, k)
		}
	}
	if !f.hasAccept {
		ks = append(ks, kinds["application/octet-stream"])
	}
	if len(ks) == 0 {
		r.skipFiles(f, "accept names no type the suite can make")
		return nil
	}
	base := ks[0]
	small := func(k kind) ([]byte, bool) {
		b := k.build(0)
		return b, f.maxSize < 0 || int64(len(b)) <= f.maxSize
	}

	for _, k := range ks {
		b, ok := small(k)
		if !ok {
			r.res.add("inline.accept.base64", "skip", "", fmt.Sprintf("%s: maxSize %d is smaller than the suite's smallest %s", f, f.maxSize, k.mediaType))
			continue
		}
		if err := c.accept(ctx, "inline.accept.base64", k.mediaType, b64URI(k.mediaType, b)); err != nil {
			return err
		}
	}
	b, ok := small(base)
	if !ok {
		r.skipFiles(f, fmt.Sprintf("maxSize %d is smaller than the suite's smallest %s", f.maxSize, base.mediaType))
		return nil
	}
	steps := []func() error{
		func() error { return c.accept(ctx, "inline.accept.percent", base.mediaType, pctURI(base.mediaType, b)) },
		func() error {
			mt := strings.ToUpper(base.mediaType)
			return c.accept(ctx, "inline.accept.mediatype-case", mt, b64URI(mt, b))
		},
		func() error {
			mt := base.mediaType + ";x-conform=1"
			if strings.HasPrefix(base.mediaType, "text/") || base.mediaType == "application/json" {
				mt = base.mediaType + ";charset=utf-8"
			}
			return c.accept(ctx, "inline.accept.mediatype-params", mt, b64URI(mt, b))
		},
		func() error { return c.maxSize(ctx, base) },
		func() error { return c.outsideAccept(ctx) },
		func() error { return c.mismatch(ctx, base) },
		func() error { return c.schemes(ctx) },
		func() error {
			return c.refuse(ctx, "uri.refuse.nocomma", "no comma", "data:"+base.mediaType+";base64"+enc(b), b)
		},
		func() error {
			e := enc(b)
			return c.refuse(ctx, "uri.refuse.badbase64", "not base64", "data:"+base.mediaType+";base64,"+e[:len(e)/2]+"*!*"+e[len(e)/2:], b)
		},
		func() error { return c.items(ctx, base) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func enc(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func b64URI(mt string, b []byte) string { return "data:" + mt + ";base64," + enc(b) }

// pctURI is the percent-encoded data: URI of b: every byte but RFC 3986's
// unreserved characters escaped.
func pctURI(mt string, b []byte) string {
	var s strings.Builder
	s.WriteString("data:" + mt + ",")
	const hex = "0123456789ABCDEF"
	for _, c := range b {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			s.WriteByte(c)
		} else {
			s.WriteByte('%')
			s.WriteByte(hex[c>>4])
			s.WriteByte(hex[c&15])
		}
	}
	return s.String()
}

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

func (c *caller) maxSize(ctx context.Context, k kind) error {
	f := c.f
	switch {
	case f.maxSize < 0:
		c.r.res.add("inline.accept.maxsize", "skip", "", f.String()+": no maxSize")
		c.r.res.add("inline.refuse.maxsize", "skip", "", f.String()+": no maxSize")
		return nil
	case f.maxSize+1 > BigSize && !c.r.o.Big:
		why := fmt.Sprintf("%s: maxSize %d is over 64 MiB (run with -big)", f, f.maxSize)
		c.r.res.add("inline.accept.maxsize", "skip", "", why)
		c.r.res.add("inline.refuse.maxsize", "skip", "", why)
		return nil
	}
	exact, ok := k.sized(f.maxSize)
	if !ok {
		why := fmt.Sprintf("%s: maxSize %d is smaller than the suite's smallest %s", f, f.maxSize, k.mediaType)
		c.r.res.add("inline.accept.maxsize", "skip", "", why)
		c.r.res.add("inline.refuse.maxsize", "skip", "", why)
		return nil
	}
	if err := c.accept(ctx, "inline.accept.maxsize", fmt.Sprintf("%s of %d bytes", k.mediaType, f.maxSize), b64URI(k.mediaType, exact)); err != nil {
		return err
	}
	over, _ := k.sized(f.maxSize + 1)
	return c.refuse(ctx, "inline.refuse.maxsize", fmt.Sprintf("%s of %d bytes", k.mediaType, f.maxSize+1), b64URI(k.mediaType, over), over)
}

// outsideAccept sends a real file of a type accept does not allow.
func (c *caller) outsideAccept(ctx context.Context) error {
	for _, mt := range []string{"application/pdf", "image/png", "text/plain", "application/zip", "application/json"} {
		if c.f.matches(mt) {
			continue
		}
		b := kinds[mt].build(0)
		return c.refuse(ctx, "inline.refuse.type", mt, b64URI(mt, b), b)
	}
	c.r.res.add("inline.refuse.type", "skip", "", c.f.String()+": accept allows every type the suite makes")
	return nil
}

// mismatch sends bytes of another format declared as k's type.
func (c *caller) mismatch(ctx context.Context, k kind) error {
	if strings.EqualFold(k.mediaType, "application/octet-stream") {
		c.r.res.add("inline.refuse.content", "skip", "", c.f.String()+": no bytes contradict application/octet-stream")
		return nil
	}
	other, name := pngFile(0), "PNG bytes"
	if strings.EqualFold(k.mediaType, "image/png") {
		other, name = pdfFile(0), "PDF bytes"
	}
	return c.refuse(ctx, "inline.refuse.content", name+" declared "+k.mediaType, b64URI(k.mediaType, other), other)
}

// schemes sends URIs of other schemes, which point where the suite sees
// any fetch.
func (c *caller) schemes(ctx context.Context) error {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(c.r.version + "-" + c.f.String())
	abs := filepath.Join(c.r.trap.files, "conform.png")
	for _, s := range []struct{ id, what, uri string }{
		{"scheme.refuse.https", "https:", "https://" + c.r.trap.tls.Addr().String() + "/conform/" + name + ".png"},
		{"scheme.refuse.http", "http:", c.r.trap.http.URL + "/conform/" + name + ".png"},
		{"scheme.refuse.file", "file:", "file://" + filepath.ToSlash(abs)},
		{"scheme.refuse.path", "absolute path", abs},
		{"scheme.refuse.path", "relative path", "conform.png"},
	} {
		if err := c.refuse(ctx, s.id, s.what, s.uri, nil); err != nil {
			return err
		}
	}
	return nil
}

// items checks the array's bounds with valid files.
func (c *caller) items(ctx context.Context, k kind) error {
	f := c.f
	if !f.array {
		c.r.res.add("array.refuse.maxitems", "skip", "", f.String()+": not an array")
		c.r.res.add("array.refuse.minitems", "skip", "", f.String()+": not an array")
		return nil
	}
	b := k.build(0)
	u := b64URI(k.mediaType, b)
	send := func(id string, n int) error {
		items := make([]any, n)
		for i := range items {
			items[i] = u
		}
		return c.refuseValue(ctx, id, fmt.Sprintf("%d files", n), items, b)
	}
	if f.maxItems < 0 {
		c.r.res.add("array.refuse.maxitems", "skip", "", f.String()+": no maxItems")
	} else if err := send("array.refuse.maxitems", f.maxItems+1); err != nil {
		return err
	}
	if f.minItems < 1 {
		c.r.res.add("array.refuse.minitems", "skip", "", f.String()+": no minItems")
		return nil
	}
	return send("array.refuse.minitems", f.minItems-1)
}
