package inline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

// formSchema is a form whose field "f" takes a text file of up to 1 MiB.
const formSchema = `{"type":"object","properties":{"f":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/plain"],"maxSize":1048576}}}}`

func formFiles(t testing.TB) map[string]*descriptor.Prop {
	d, err := descriptor.For(json.RawMessage(formSchema))
	if err != nil {
		t.Fatal(err)
	}
	return d.Props
}

// request is the elicitation/create request of el with the id id.
func request(el *inline.Elicitation, id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{},"_meta":{"io.mcpfile/inline":"` + el.Key() + `"}}}`)
}

// response is a client's response to the request id with result.
func response(id, result string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`)
}

// bigSize is the size of the file of bigURI.
const bigSize = 10000

var accepted = `{"action":"accept","content":{"f":` + bigURI + `,"n":1}}`

// refIn returns the one reference in out.
func refIn(t *testing.T, out []byte) string {
	t.Helper()
	s := string(out)
	if strings.Count(s, inline.Scheme) != 1 {
		t.Fatalf("%d references in %.300s, want 1", strings.Count(s, inline.Scheme), s)
	}
	i := strings.Index(s, inline.Scheme)
	return s[i : i+len(inline.Scheme)+26]
}

// TestElicitationAnswer: the response to an Elicitation's request, in the
// session it was sent in, reaches the SDK with its file replaced by a
// reference that resolves for that Elicitation and field only, once; a
// response in another session, a second response, one that does not
// accept the form or whose file is refused, and one to a closed
// Elicitation reach the SDK as they came.
func TestElicitationAnswer(t *testing.T) {
	held := inline.Held()
	files, tools := formFiles(t), files(t)
	el, other := inline.Ask(files), inline.Ask(files)
	defer other.Close()
	a := inline.NewAsked()
	if out, want := a.Sent("s1", request(el, "5")), `"_meta":{}}}`; !strings.HasSuffix(string(out), want) || !json.Valid(out) {
		t.Errorf("Sent(%s) = %s, want it without the key", request(el, "5"), out)
	}
	if msg := response("5", "{}"); &a.Sent("s1", msg)[0] != &msg[0] {
		t.Errorf("Sent changed a message that is no elicitation/create")
	}
	a.Sent("s1", request(other, `"x"`))
	conn := func(session string) inline.Conn {
		return inline.Conn{Files: tools.Files, Asked: a, Session: session}
	}

	unchanged := func(what string, msg []byte, c inline.Conn) {
		t.Helper()
		out, sc, _ := inline.Rewrite(msg, c)
		if sc != nil || string(out) != string(msg) {
			t.Errorf("%s: rewritten: %.300s", what, out)
		}
	}
	unchanged("another session", response("5", accepted), conn("s2"))
	unchanged("another id", response("6", accepted), conn("s1"))

	out, sc, _ := inline.Rewrite(response("5", accepted), conn("s1"))
	if sc != nil || !json.Valid(out) || len(out) > 300 || !strings.Contains(string(out), `"n":1`) {
		t.Fatalf("answer: scope %v, %.300s", sc != nil, out)
	}
	ref := refIn(t, out)
	if inline.Held() != held+1 {
		t.Errorf("%d references held, want %d", inline.Held(), held+1)
	}
	unchanged("a second response", response("5", accepted), conn("s1"))

	ctx := context.Background()
	call := inline.Bind(ctx, mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v"}, nil), map[string]any{inline.MetaKey: el.Key()}, "t")
	for what, ctx := range map[string]context.Context{
		"no binding":          ctx,
		"another elicitation": other.Bind(ctx),
		"a call":              call,
		"an input request":    inline.ForAnswer(call, "file", formSchema),
	} {
		if _, ok := inline.Take(ctx, ref, "f"); ok {
			t.Errorf("taken with %s", what)
		}
	}
	if _, ok := inline.Take(el.Bind(ctx), ref, "g"); ok {
		t.Errorf("taken for another field")
	}
	if _, ok := inline.Take(el.Bind(ctx), ref, "f"); !ok {
		t.Errorf("not taken for its elicitation and field")
	}
	if _, ok := inline.Take(el.Bind(ctx), ref, "f"); ok {
		t.Errorf("taken twice")
	}
	if inline.Held() != held {
		t.Errorf("%d references held once taken, want %d", inline.Held(), held)
	}

	// The other's answers, declined.
	unchanged("declined", response(`"x"`, `{"action":"decline","content":{"f":`+bigURI+`}}`), conn("s1"))
	a.Sent("s1", request(other, `"x"`))
	unchanged("refused", response(`"x"`, `{"action":"accept","content":{"f":`+strings.Replace(bigURI, "text/plain", "image/png", 1)+`}}`), conn("s1"))
	a.Sent("s1", request(other, `"x"`))
	unchanged("repeated content", response(`"x"`, `{"action":"accept","content":{},"content":{"f":`+bigURI+`}}`), conn("s1"))
	a.Sent("s1", request(other, `"x"`))
	unchanged("escaped action", response(`"x"`, `{"action":"\u0061ccept","content":{"f":`+bigURI+`}}`), conn("s1"))
	a.Sent("s1", request(other, `"x"`))
	if out, _, _ := inline.Rewrite(response(`"x"`, accepted), conn("s1")); !strings.Contains(string(out), inline.Scheme) {
		t.Errorf("string id: not taken: %.300s", out)
	}
	other.Close()
	if inline.Held() != held {
		t.Errorf("%d references held once closed, want %d", inline.Held(), held)
	}
	a.Sent("s1", request(other, "7"))
	unchanged("closed", response("7", accepted), conn("s1"))
	unchanged("a request of no Elicitation", response("8", accepted), conn("s1"))
	el.Close()
}

// TestElicitationLimits: past the limits of the files an Asked holds, an
// answer reaches the SDK as it came; the limits are each Asked's own; an
// answer not taken is forgotten when it expires.
func TestElicitationLimits(t *testing.T) {
	held := inline.Held()
	files, tools := formFiles(t), files(t)
	answer := func(a *inline.Asked, el *inline.Elicitation) []byte {
		a.Sent("", request(el, "1"))
		out, _, _ := inline.Rewrite(response("1", accepted), inline.Conn{Files: tools.Files, Asked: a})
		return out
	}
	for _, l := range []struct {
		name  string
		lim   inline.AnswerLimits
		taken bool
	}{
		{"defaults", inline.AnswerLimits{}, true},
		{"one file", inline.AnswerLimits{Files: 1}, true},
		{"bytes of the file", inline.AnswerLimits{Bytes: bigSize}, true},
		{"a byte less", inline.AnswerLimits{Bytes: bigSize - 1}, false},
		{"no files", inline.AnswerLimits{Files: -1}, false},
		{"no bytes", inline.AnswerLimits{Bytes: -1}, false},
		{"no time", inline.AnswerLimits{TTL: -1}, false},
	} {
		el := inline.Ask(files)
		if out := answer(inline.NewAskedWithin(l.lim), el); strings.Contains(string(out), inline.Scheme) != l.taken {
			t.Errorf("%s: taken %v, want %v: %.200s", l.name, !l.taken, l.taken, out)
		}
		el.Close()
	}

	// One file's room, filled; another Asked still has its own.
	a, b := inline.NewAskedWithin(inline.AnswerLimits{Files: 1}), inline.NewAskedWithin(inline.AnswerLimits{Files: 1})
	first, second, third := inline.Ask(files), inline.Ask(files), inline.Ask(files)
	refIn(t, answer(a, first))
	if out := answer(a, second); strings.Contains(string(out), inline.Scheme) {
		t.Errorf("a second answer past one file's room: taken")
	}
	refIn(t, answer(b, third))
	first.Close() // its file no longer held: room again
	second.Close()
	again := inline.Ask(files)
	refIn(t, answer(a, again))
	again.Close()
	third.Close()

	el := inline.Ask(files)
	defer el.Close()
	refIn(t, answer(inline.NewAskedWithin(inline.AnswerLimits{TTL: time.Millisecond}), el))
	deadline := time.Now().Add(10 * time.Second)
	for inline.Held() != held && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if inline.Held() != held {
		t.Errorf("%d references held after they expired, want %d", inline.Held(), held)
	}
}

// TestRewriteInputResponses: the accepted answer to the one form a tool
// elicits under an input request id, in the retry of its call, reaches
// the SDK with its file replaced by a reference that resolves for that
// call, input request, form and field only; an answer the fast path does
// not take leaves the whole call to the SDK.
func TestRewriteInputResponses(t *testing.T) {
	held := inline.Held()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v"}, nil)
	files := formFiles(t)
	first := inline.Bind(context.Background(), s, nil, "t")
	inline.RecordForm(first, "file", formSchema, files)
	inline.RecordForm(inline.Bind(context.Background(), s, nil, "u"), "file", formSchema, files)
	inline.RecordForm(inline.Bind(context.Background(), s, nil, "u"), "file", `{"other":1}`, files)
	conn := inline.Conn{Files: func(string) map[string]*descriptor.Prop { return nil }, Forms: inline.ToolForms(s)}
	retry := func(tool, responses string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"inputResponses":` + responses + `,"requestState":"s"}}`)
	}
	for _, tt := range []struct {
		name, tool, responses string
	}{
		{"two forms under the id", "u", `{"file":` + accepted + `}`},
		{"another id", "t", `{"other":` + accepted + `}`},
		{"declined", "t", `{"file":{"action":"decline","content":{"f":` + bigURI + `}}}`},
		{"refused", "t", `{"file":{"action":"accept","content":{"f":` + strings.Replace(bigURI, "text/plain", "image/png", 1) + `}}}`},
		{"escaped id", "t", `{"\u0066ile":` + accepted + `}`},
		{"repeated id", "t", `{"file":` + accepted + `,"file":` + accepted + `}`},
		{"not an object", "t", `[` + accepted + `]`},
	} {
		in := retry(tt.tool, tt.responses)
		if out, sc, _ := inline.Rewrite(in, conn); sc != nil || string(out) != string(in) {
			t.Errorf("%s: rewritten: %.300s", tt.name, out)
			sc.Close()
		}
	}

	out, sc, _ := inline.Rewrite(retry("t", `{"file":`+accepted+`}`), conn)
	defer sc.Close()
	keys := metaKeys(t, out)
	if sc == nil || len(keys) != 1 || !json.Valid(out) {
		t.Fatalf("not taken: scope %v, keys %v, %.300s", sc != nil, keys, out)
	}
	ref := refIn(t, out)
	call := inline.Bind(context.Background(), s, map[string]any{inline.MetaKey: keys[0]}, "t")
	for what, ctx := range map[string]context.Context{
		"the arguments":      call,
		"another id":         inline.ForAnswer(call, "other", formSchema),
		"another form":       inline.ForAnswer(call, "file", `{"other":1}`),
		"another tool":       inline.ForAnswer(inline.Bind(context.Background(), s, map[string]any{inline.MetaKey: keys[0]}, "u"), "file", formSchema),
		"another call's key": inline.ForAnswer(inline.Bind(context.Background(), s, map[string]any{inline.MetaKey: "k"}, "t"), "file", formSchema),
		"no key":             inline.ForAnswer(first, "file", formSchema),
	} {
		if _, ok := inline.Take(ctx, ref, "f"); ok {
			t.Errorf("taken with %s", what)
		}
	}
	if _, ok := inline.Take(inline.ForAnswer(call, "file", formSchema), ref, "f"); !ok {
		t.Errorf("not taken for its call, input request, form and field")
	}
	if inline.Held() != held {
		t.Errorf("%d references held, want %d", inline.Held(), held)
	}
}

// TestElicitationAnswerSpliced: an answer read through a Reading that the
// fast path cannot take with its splices (one is in a field that is no
// file) is taken as it came, as Rewrite takes it: the first attempt does
// not use up the Elicitation it answers.
func TestElicitationAnswerSpliced(t *testing.T) {
	el := inline.Ask(formFiles(t))
	defer el.Close()
	a := inline.NewAsked()
	a.Sent("s1", request(el, "5"))
	run := strings.Repeat("QUJD", inline.SpliceMin/4+10)
	in := response("5", `{"action":"accept","content":{"f":"data:text/plain;base64,`+run+`","n":"x;base64,`+run+`"}}`)
	m := inline.NewReading()
	m.Write(in)
	msg, sp := m.Done()
	if len(sp) != 2 {
		t.Fatalf("%d splices, want 2", len(sp))
	}
	out, _, _ := inline.RewriteSpliced(msg, sp, inline.Conn{Files: files(t).Files, Asked: a, Session: "s1"})
	refIn(t, out)
}
