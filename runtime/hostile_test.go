package runtime_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
)

// secret is a file whose bytes, raw or in base64, must never appear in an
// error text: random, so that any run of 16 characters found in a text
// comes from it.
var secret = func() (s struct{ raw, b64, uri string }) {
	b := make([]byte, 3000)
	_, _ = rand.NewChaCha8([32]byte{7}).Read(b)
	s.raw = string(b)
	s.b64 = base64.StdEncoding.EncodeToString(b)
	s.uri = "data:image/png;base64," + s.b64
	return s
}()

// leakWindow is the length of a run of the secret that counts as a leak.
const leakWindow = 16

var secretWindows = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range []string{secret.raw, secret.b64} {
		for i := 0; i+leakWindow <= len(s); i++ {
			m[s[i:i+leakWindow]] = true
		}
	}
	return m
}()

// maxText is the longest error text allowed: 1 KiB and an ellipsis.
const maxText = 1024 + len("…")

// checkText fails t when text is longer than maxText or holds a run of the
// secret's bytes or base64.
func checkText(t testing.TB, what, text string) {
	t.Helper()
	if len(text) > maxText {
		t.Errorf("%s: error text of %d bytes, want at most %d: %.200q…", what, len(text), maxText, text)
	}
	for i := 0; i+leakWindow <= len(text); i++ {
		if secretWindows[text[i:i+leakWindow]] {
			t.Errorf("%s: error text quotes the file at byte %d: %.300q", what, i, text)
			return
		}
	}
}

// hostileCase is arguments that break the rules in a way a client could
// exploit: the file in a place it does not belong, or far too much of it.
type hostileCase struct {
	name, tool string
	args       string // JSON; @ stands for the secret data: URI as a JSON string, # for its base64
}

var hostileCases = []hostileCase{
	{"file in an object", "describe", `{"image":{"uri":@}}`},
	{"file in an array", "describe", `{"image":[@]}`},
	{"file nested deep", "describe", `{"image":[[[{"a":[@]}]]]}`},
	{"file as a number field", "describe", `{"image":"data:,x","detail":@}`},
	{"file in an object field", "describe", `{"image":"data:,x","detail":{"a":@}}`},
	{"file as an unknown member", "describe", `{"image":"data:,x","extra":@}`},
	{"file as a key", "describe", `{"image":"data:,x",@:1}`},
	{"file as the arguments", "describe", `@`},
	{"file in an array of arguments", "describe", `[@]`},
	{"file too big", "describe", `{"image":@}`},
	{"file items in objects", "compare", `{"docs":[{"a":@}]}`},
	{"file array as an object", "compare", `{"docs":{"a":@}}`},
	{"file array as a string", "compare", `{"docs":@}`},
	{"file array null", "compare", `{"docs":null,"names":[@]}`},
	{"too many files", "compare", `{"docs":[@,@,@,@]}`},
	{"file in the names", "compare", `{"docs":[1],"names":[@]}`},
	{"huge number", "describe", `{"image":"data:,x","detail":1` + strings.Repeat("0", 4000) + `}`},
	{"huge key", "describe", `{"image":"data:,x","` + strings.Repeat("k", 4000) + `":1}`},
	{"many unknown keys", "describe", `{"image":"data:,x"` + strings.Repeat(`,"k":1`, 1) + manyKeys(2000) + `}`},
	{"file in a time field", "many", `{"files":["data:,x"],"when":@}`},
	{"file in an any field", "many", `{"files":["data:,x"],"extra":{"a":[@]},"when":5}`},
	{"escaped file in a number field", "describe", `{"image":"data:,x","detail":"\u0064ata:,TOPSECRETTOPSECRETTOPSECRET"}`},
	{"many tiny files", "many", `{"files":[` + strings.TrimSuffix(strings.Repeat(`"data:,",`, 5000), ",") + `]}`},
	{"tiny files as objects", "many", `{"files":[` + strings.TrimSuffix(strings.Repeat(`{},`, 5000), ",") + `]}`},
	// Files from hosts' objects (testtypes.HostArgs).
	{"FileData with a lying mimeType", "hosts", `{"photo":{"fileName":"a.png","mimeType":"image/png","base64":#}}`},
	{"FileData with a lying size", "hosts", `{"photo":{"fileName":"a.png","mimeType":"image/png","base64":#,"size":12}}`},
	{"FileData with bad base64", "hosts", `{"photo":{"fileName":"a.png","mimeType":"image/png","base64":"` + strings.Repeat("%", 300) + `"}}`},
	{"FileData named with separators and bidi", "hosts", `{"photo":{"fileName":"../../\u202egnp.exe","mimeType":"image/png","base64":#}}`},
	{"FileData lying about its type", "hosts", `{"photo":{"fileName":"a.exe","mimeType":"application/x-msdownload","base64":#}}`},
	{"data: URI for a FileData", "hosts", `{"photo":@}`},
	{"FileData in an array", "hosts", `{"photo":[{"fileName":"a","mimeType":"image/png","base64":#}]}`},
	{"FileData base64 as the name", "hosts", `{"photo":{"fileName":#,"mimeType":"image/png","base64":"AAAA"}}`},
	{"ChatGPT file as a string", "hosts", `{"photo":{"fileName":"a","mimeType":"image/png","base64":"AAAA"},"doc":@}`},
	{"ChatGPT file with a file for a URL", "hosts", `{"photo":{"fileName":"a","mimeType":"image/png","base64":"AAAA"},"doc":{"download_url":@,"file_id":"f"}}`},
	{"FileData pages over maxFiles", "hosts", `{"photo":{"fileName":"a","mimeType":"image/png","base64":"AAAA"},"pages":[` + strings.TrimSuffix(strings.Repeat(`{"fileName":"p","mimeType":"text/plain","base64":#},`, 4), ",") + `]}`},
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,"key%d":%q`, i, secret.b64[i%100:i%100+20])
	}
	return b.String()
}

func (c hostileCase) json() string {
	q, _ := json.Marshal(secret.uri)
	b, _ := json.Marshal(secret.b64)
	return strings.ReplaceAll(strings.ReplaceAll(c.args, "@", string(q)), "#", string(b))
}

type manyArgs = testtypes.ManyArgs

// hostileHandlers are the low-level handlers runtime.AddTool registers for
// the hostile cases' tools.
var hostileHandlers = map[string]mcp.ToolHandler{
	"describe": runtime.HandlerFor(&mcp.Tool{Name: "describe"}, describe),
	"compare":  runtime.HandlerFor(&mcp.Tool{Name: "compare"}, compare),
	"many": runtime.HandlerFor(&mcp.Tool{Name: "many"}, func(_ context.Context, _ *mcp.CallToolRequest, in manyArgs) (*mcp.CallToolResult, any, error) {
		return nil, map[string]int{"files": len(in.Files)}, nil
	}),
	"hosts": runtime.HandlerFor(&mcp.Tool{Name: "hosts"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.HostArgs) (*mcp.CallToolResult, any, error) {
		return nil, map[string]int64{"photo": in.Photo.Size()}, nil
	}),
	"bulk": runtime.HandlerFor(&mcp.Tool{Name: "bulk"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BulkArgs) (*mcp.CallToolResult, any, error) {
		return nil, map[string]int{"files": len(in.Files), "uris": len(in.URIs)}, nil
	}),
}

// hostileCall runs the tool's handler on args, as a tools/call would.
func hostileCall(t testing.TB, tool string, args []byte) *mcp.CallToolResult {
	t.Helper()
	res, err := hostileHandlers[tool](t.Context(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: JSON-RPC error %v, want an isError result", tool, err)
	}
	return res
}

// TestHostileArguments checks that no error text for hostile arguments,
// through runtime.AddTool or a plain json.Unmarshal into the generated
// type, exceeds 1 KiB or quotes any run of the file.
func TestHostileArguments(t *testing.T) {
	targets := map[string]func() any{
		"describe": func() any { return new(imageArgs) },
		"compare":  func() any { return new(docsArgs) },
		"many":     func() any { return new(manyArgs) },
		"hosts":    func() any { return new(testtypes.HostArgs) },
	}
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			args := []byte(c.json())
			res := hostileCall(t, c.tool, args)
			text := textOf(res)
			if !res.IsError {
				t.Fatalf("not an isError result: %.300s", text)
			}
			checkText(t, "runtime.AddTool", text)
			if err := json.Unmarshal(args, targets[c.tool]()); err != nil {
				checkText(t, "json.Unmarshal", err.Error())
			}
		})
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// FuzzErrorText feeds arbitrary JSON, in which @ stands for a file, to the
// generated decoders through runtime.AddTool and json.Unmarshal: no error
// text may exceed 1 KiB or quote a run of the file's bytes or base64.
func FuzzErrorText(f *testing.F) {
	for i, c := range hostileCases {
		if len(c.args) < 2000 {
			f.Add(c.args, uint8(i))
		}
	}
	tools := []string{"describe", "compare", "many", "hosts"}
	f.Fuzz(func(t *testing.T, tmpl string, sel uint8) {
		c := hostileCase{tool: tools[int(sel)%len(tools)], args: tmpl}
		args := []byte(c.json())
		if !json.Valid(args) {
			return
		}
		res := hostileCall(t, c.tool, args)
		if res.IsError {
			checkText(t, c.tool+" "+tmpl, textOf(res))
		}
		var err error
		switch c.tool {
		case "describe":
			err = json.Unmarshal(args, new(imageArgs))
		case "compare":
			err = json.Unmarshal(args, new(docsArgs))
		case "hosts":
			err = json.Unmarshal(args, new(testtypes.HostArgs))
		default:
			err = json.Unmarshal(args, new(manyArgs))
		}
		if err != nil {
			checkText(t, "json.Unmarshal "+tmpl, err.Error())
		}
	})
}

// bigHostile are hostile requests of about 12 MiB each.
func bigHostile() []hostileCase {
	const size = 12 << 20
	bigURI := func(n int) string { return `"data:image/png;base64,` + strings.Repeat("QUJD", n/4) + `"` }
	tiny := strings.Repeat(`"data:,",`, size/9)
	return []hostileCase{
		{"tiny files", "many", `{"files":[` + tiny[:len(tiny)-1] + `]}`},
		{"tiny files over maxFiles", "compare", `{"docs":[` + tiny[:len(tiny)-1] + `]}`},
		{"file in an object", "describe", `{"image":{"uri":` + bigURI(size) + `}}`},
		{"file in a number field", "describe", `{"image":"data:,x","detail":` + bigURI(size) + `}`},
		{"file in an unknown member", "describe", `{"image":"data:,x","extra":` + bigURI(size) + `}`},
		{"file too big", "describe", `{"image":` + bigURI(size) + `}`},
		{"objects as files", "many", `{"files":[` + strings.TrimSuffix(strings.Repeat(`{},`, size/3), ",") + `]}`},
	}
}

// bigBulk are valid requests of about 8 MiB for a server that raised
// maxFiles: 900,000 tiny files, decoded or kept as URIs.
func bigBulk() []hostileCase {
	bulk := strings.Repeat(`"data:,",`, 900000)
	return []hostileCase{
		{"tiny files at maxFiles 1000000", "bulk", `{"files":[` + bulk[:len(bulk)-1] + `]}`},
		{"tiny URIs at maxFiles 1000000", "bulk", `{"uris":[` + bulk[:len(bulk)-1] + `]}`},
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileAllocation checks that for each 12 MiB hostile request the
// runtime's handler, everything past the SDK's own reading of the request,
// allocates less than 4 times the request's size. (The figures are in
// BENCHMARKS.md, from BenchmarkHostile.)
func TestHostileAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hostile requests of 12 MiB")
	}
	for _, c := range bigHostile() {
		t.Run(c.name, func(t *testing.T) {
			args := []byte(c.args)
			var res *mcp.CallToolResult
			n := allocated(func() { res = hostileCall(t, c.tool, args) })
			if !res.IsError {
				t.Fatalf("not an isError result: %.300s", textOf(res))
			}
			if ratio := float64(n) / float64(len(args)); ratio >= 4 {
				t.Errorf("the handler allocated %d bytes for a request of %d: %.2f×, want under 4×", n, len(args), ratio)
			}
		})
	}
}

// BenchmarkHostile times the runtime's handler on 12 MiB hostile requests,
// and on the valid requests of bigBulk, and reports its allocation per byte
// of request (alloc/req-byte).
func BenchmarkHostile(b *testing.B) {
	for _, c := range append(bigHostile(), bigBulk()...) {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			args := []byte(c.args)
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			var total uint64
			for b.Loop() {
				total += allocated(func() { hostileCall(b, c.tool, args) })
			}
			b.ReportMetric(float64(total)/float64(b.N)/float64(len(args)), "alloc/req-byte")
		})
	}
}

// TestHostileElicitation answers a 2026-07-28 elicitation with the file in
// the wrong places: the re-ask message and the final error are bounded and
// quote no run of the file.
func TestHostileElicitation(t *testing.T) {
	cs := mcptest.Connect(t, profileServer(nil), &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}, "2026-07-28")
	contents := []map[string]any{
		{"photo": map[string]any{"uri": secret.uri}},
		{"photo": []any{secret.uri}},
		{"photo": secret.uri, "extra": secret.uri},
		{"photo": "data:,x", secret.uri: 1},
		{"photo": secret.uri},
	}
	for i, content := range contents {
		for _, state := range []string{"", "mcpfile.elicit/3/profile_photo"} { // a re-ask, then the last try
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{
				Name: "create_profile", Arguments: map[string]any{"displayName": "Mona"}, RequestState: state,
				InputResponses: mcp.InputResponseMap{"profile_photo": &mcp.ElicitResult{Action: "accept", Content: content}},
			})
			if err != nil {
				t.Fatalf("content %d: CallTool: %v", i, err)
			}
			what := fmt.Sprintf("content %d, state %q", i, state)
			if p, ok := res.InputRequests["profile_photo"].(*mcp.ElicitParams); ok {
				checkText(t, what+": re-ask", p.Message)
				continue
			}
			if !res.IsError {
				t.Fatalf("%s: neither a re-ask nor an error: %+v", what, res)
			}
			checkText(t, what+": error", textOf(res))
		}
	}
}

// TestHostileElicitationOlderProtocols answers elicitation/create with the
// file in the wrong place: the SDK refuses such an answer with an error
// that quotes it; the user is asked again without it, and the call's final
// error is bounded and quotes no run of the file.
func TestHostileElicitationOlderProtocols(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			a := &answerer{}
			for range 3 {
				a.answers = append(a.answers, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"photo": []any{secret.uri}}})
			}
			cs := mcptest.Connect(t, profileServer(nil), &mcp.ClientOptions{ElicitationHandler: a.handle}, version)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: map[string]any{"displayName": "Mona"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if !res.IsError {
				t.Fatalf("result is not an error: %s", textOf(res))
			}
			checkText(t, "final error", textOf(res))
			if len(a.messages) != 3 {
				t.Errorf("asked %d times, want 3; result %s", len(a.messages), textOf(res))
			}
			for i, m := range a.messages {
				checkText(t, fmt.Sprintf("message %d", i), m)
			}
		})
	}
}

// TestEscapedKeysAccepted checks that a property name written with escapes,
// as Python's json.dumps writes non-ASCII, is accepted as the SDK accepts it.
func TestEscapedKeysAccepted(t *testing.T) {
	res := hostileCall(t, "many", []byte(`{"files":["data:,x"],"\u006e\u006f\u0074\u0065":"a note of some length"}`))
	if res.IsError {
		t.Errorf("escaped key refused: %s", textOf(res))
	}
}
