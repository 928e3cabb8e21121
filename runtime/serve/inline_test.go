package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/serve/internal/inlinetypes"
)

// seen records what the SDK handed the tools: the raw arguments and the
// _meta of each tools/call, as a receiving middleware sees them, and the
// _meta keys the tools' handlers saw.
type seen struct {
	mu       sync.Mutex
	args     []string
	meta     []map[string]any
	handlers [][]string // _meta keys, per call
	hold     chan struct{}
	arrived  chan struct{}
}

func (s *seen) last() (args string, meta map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.args) == 0 {
		return "", nil
	}
	return s.args[len(s.args)-1], s.meta[len(s.meta)-1]
}

// describe is what the tools answer: each file's name, media type, size
// and SHA-256, in order.
func describe(fs ...runtime.File) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %d %x\n", f.Name, f.MediaType, len(f.Bytes()), sha256.Sum256(f.Bytes()))
	}
	return b.String()
}

// inlineServer is a server whose tools take files of each shape.
func inlineServer(rec *seen) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "inline", Version: "v1"}, nil)
	keys := func(req *mcp.CallToolRequest) {
		var ks []string
		for k := range req.Params.Meta {
			ks = append(ks, k)
		}
		rec.mu.Lock()
		rec.handlers = append(rec.handlers, ks)
		rec.mu.Unlock()
	}
	runtime.AddTool(s, &mcp.Tool{Name: "files"}, func(_ context.Context, req *mcp.CallToolRequest, in inlinetypes.Files) (*mcp.CallToolResult, any, error) {
		keys(req)
		fs := []runtime.File{in.Image}
		if in.Extra != nil {
			fs = append(fs, *in.Extra)
		}
		fs = append(fs, in.Docs...)
		return text(describe(fs...) + fmt.Sprintf("uri %d note %q", len(in.URI), in.Note)), nil, nil
	})
	runtime.AddTool(s, &mcp.Tool{Name: "host"}, func(_ context.Context, req *mcp.CallToolRequest, in inlinetypes.HostFiles) (*mcp.CallToolResult, any, error) {
		keys(req)
		return text(describe(append([]runtime.File{in.Photo}, in.Pages...)...)), nil, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				p := req.GetParams().(*mcp.CallToolParamsRaw)
				m := map[string]any{}
				for k, v := range p.Meta {
					m[k] = v
				}
				rec.mu.Lock()
				rec.args = append(rec.args, string(p.Arguments))
				rec.meta = append(rec.meta, m)
				hold, arrived := rec.hold, rec.arrived
				rec.hold, rec.arrived = nil, nil
				rec.mu.Unlock()
				if hold != nil {
					close(arrived)
					<-hold
				}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// A transport connects a client to a server, through the fast path
// (serve's) or without it (the go-sdk's own transport or handler, with the
// same limit), so that every answer can be compared with the SDK's.
type transport struct {
	name    string
	connect func(t *testing.T, s *mcp.Server, fast bool) *mcp.ClientSession
}

func stdio(t *testing.T, s *mcp.Server, fast bool) *mcp.ClientSession {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		if fast {
			done <- serve.ServeIO(context.Background(), s, toServer, fromServer, serve.Options{})
			return
		}
		limit := int(serve.RequestLimit(s, serve.Options{}))
		done <- s.Run(context.Background(), &mcp.IOTransport{Reader: toServer, Writer: fromServer, MaxLineLength: max(limit, mcp.DefaultMaxLineLength)})
	}()
	t.Cleanup(func() { fromClient.Close(); <-done })
	return mcptest.Client(t, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil, "")
}

func overHTTP(version string) func(t *testing.T, s *mcp.Server, fast bool) *mcp.ClientSession {
	return overHTTPWith(version, nil)
}

// overHTTPWith is overHTTP with the client's HTTP client c (nil: the
// default).
func overHTTPWith(version string, c *http.Client) func(t *testing.T, s *mcp.Server, fast bool) *mcp.ClientSession {
	return func(t *testing.T, s *mcp.Server, fast bool) *mcp.ClientSession {
		h := serve.Handler(s, serve.Options{})
		if !fast {
			h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
				MaxRequestBodyBytes: serve.RequestLimit(s, serve.Options{}),
				Stateless:           version >= serve.StatelessSince,
			})
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return mcptest.Client(t, &mcp.StreamableClientTransport{Endpoint: srv.URL + serve.DefaultPath, HTTPClient: c}, nil, version)
	}
}

// chunked sends every request body without its length (chunked transfer
// coding), as a client streaming what it writes does.
var chunked = &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.ContentLength > 0 {
		r = r.Clone(r.Context())
		r.Body, r.ContentLength, r.GetBody = io.NopCloser(struct{ io.Reader }{r.Body}), -1, nil
	}
	return http.DefaultTransport.RoundTrip(r)
})}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var transports = []transport{
	{"stdio", stdio},
	{"http-2025-11-25", overHTTP("2025-11-25")},
	{"http-2026-07-28", overHTTP("2026-07-28")},
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args any, meta mcp.Meta) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args, Meta: meta})
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(res.Content)
	return fmt.Sprintf("isError=%v %s", res.IsError, b)
}

func uri(mediaType string, b []byte) string { return mcptest.DataURI(mediaType, b) }

// fileData is an Odeus FileData object.
func fileData(name, mediaType string, b []byte) map[string]any {
	return map[string]any{"fileName": name, "mimeType": mediaType, "base64": base64.StdEncoding.EncodeToString(b)}
}

// TestInlineCalls: over stdio and HTTP on both protocol generations, the
// calls that the fast path takes (every file decodes) reach the SDK with
// each large file replaced by a reference, and the tools get the same
// files as over a transport without the fast path; the calls it declines
// reach the SDK as they were and get the same answer, refusals included.
// No reference outlives its call, and no handler sees the scope key.
func TestInlineCalls(t *testing.T) {
	png := mcptest.PNG(t, 64, 64, true)
	big := mcptest.PNG(t, 1100, 1100, true) // over 4 MiB
	textFile := bytes.Repeat([]byte("plain text\n"), 1000)
	notPNG := bytes.Repeat([]byte("GIF89a not a png "), 400)
	tooMany := []any{uri("text/plain", textFile), uri("text/plain", textFile), uri("text/plain", textFile), uri("text/plain", textFile)}
	// Files whose base64 is decoded as the message is read (inline.Reading).
	longText := bytes.Repeat([]byte("plain text\n"), 30000)
	longNotPNG := bytes.Repeat(notPNG, 40)
	cases := []struct {
		name, tool string
		args       map[string]any
		refs       int // references the SDK sees through the fast path
	}{
		{"one file", "files", map[string]any{"image": uri("image/png", png)}, 1},
		{"large file", "files", map[string]any{"image": uri("image/png", big)}, 1},
		{"small file", "files", map[string]any{"image": uri("image/png", mcptest.PNG(t, 4, 4, false))}, 0},
		{"every type", "files", map[string]any{"image": uri("image/png", png), "extra": uri("application/octet-stream", notPNG),
			"docs": []any{uri("text/plain", textFile), uri("text/plain;charset=utf-8", textFile)}, "names": []any{"a.txt", "../b.txt"},
			"uri": uri("text/plain", textFile), "note": "hello"}, 4},
		{"null pointer", "files", map[string]any{"image": uri("image/png", png), "extra": nil}, 1},
		{"host shapes", "host", map[string]any{"photo": fileData("p.png", "image/png", png),
			"pages": []any{fileData("1.txt", "text/plain", textFile), fileData("2.txt", "text/plain", textFile)}}, 3},
		{"content mismatch", "files", map[string]any{"image": uri("image/png", notPNG)}, 0},
		{"bad base64", "files", map[string]any{"image": uri("image/png", png) + "!!"}, 0},
		{"wrong media type", "files", map[string]any{"image": uri("image/gif", png)}, 0},
		{"one of two refused", "files", map[string]any{"image": uri("image/png", png), "extra": "https://example.com/x"}, 0},
		{"too many files", "files", map[string]any{"image": uri("image/png", png), "docs": tooMany}, 0},
		{"file data refused", "host", map[string]any{"photo": fileData("p.png", "image/gif", png)}, 0},
		{"schema refused", "files", map[string]any{"image": uri("image/png", png), "note": 5}, 1},
		{"unknown member", "files", map[string]any{"image": uri("image/png", png), "other": true}, 1},
		{"case-folded key", "files", map[string]any{"IMAGE": uri("image/png", png)}, 0},
		{"unknown tool", "nothing", map[string]any{"image": uri("image/png", png)}, 0},
		{"long files", "files", map[string]any{"image": uri("image/png", big), "extra": uri("application/octet-stream", longNotPNG),
			"docs": []any{uri("text/plain", longText), uri("text/plain", textFile), uri("text/plain", longText)}}, 5},
		{"long content mismatch", "files", map[string]any{"image": uri("image/png", longNotPNG)}, 0},
		{"long bad base64", "files", map[string]any{"image": uri("image/png", big) + "!"}, 0},
		{"long bad base64 inside", "files", map[string]any{"image": uri("image/png", big)[:300000] + "*" + uri("image/png", big)[300001:]}, 0},
		{"long file too large", "files", map[string]any{"image": uri("image/png", png), "docs": []any{uri("text/plain", bytes.Repeat(longText, 4))}}, 0},
		{"long file refused after", "files", map[string]any{"image": uri("image/png", big), "note": 5}, 1},
		{"long URI string", "files", map[string]any{"image": uri("image/png", png), "uri": uri("text/plain", longText)}, 1},
		{"long note", "files", map[string]any{"image": uri("image/png", png), "note": "x;base64," + base64.StdEncoding.EncodeToString(longText)}, 1},
		{"long host shapes", "host", map[string]any{"photo": fileData("p.png", "image/png", big), "pages": []any{fileData("1.txt", "text/plain", longText)}}, 2},
		{"long, unknown tool", "nothing", map[string]any{"image": uri("image/png", big)}, 0},
	}
	// Bodies of unknown length are read a piece at a time (inline.Reading).
	for _, tr := range append(transports, transport{"http-2026-07-28-chunked", overHTTPWith("2026-07-28", chunked)}) {
		t.Run(tr.name, func(t *testing.T) {
			rec := &seen{}
			cs := tr.connect(t, inlineServer(rec), true)
			base := tr.connect(t, inlineServer(&seen{}), false)
			for _, c := range cases {
				got := call(t, cs, c.tool, c.args, nil)
				if want := call(t, base, c.tool, c.args, nil); got != want {
					t.Errorf("%s: %s\nwant (without the fast path) %s", c.name, short(got), short(want))
				}
				args, meta := rec.last()
				if n := strings.Count(args, inline.Scheme); n != c.refs {
					t.Errorf("%s: the SDK saw %d references in %d bytes of arguments, want %d", c.name, n, len(args), c.refs)
				}
				if _, ok := meta[inline.MetaKey]; ok != (c.refs > 0) {
					t.Errorf("%s: scope key in _meta: %v, want %v", c.name, ok, c.refs > 0)
				}
			}
			for _, ks := range rec.handlers {
				for _, k := range ks {
					if k == inline.MetaKey {
						t.Errorf("a handler saw %s in _meta", k)
					}
				}
			}
		})
	}
	if n := inline.Held(); n != 0 {
		t.Errorf("%d references held after the calls", n)
	}
}

func short(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestInlineHostileReferences: a reference is good for its one request:
// one a client writes, with or without a scope key of its own, and one
// replayed from another request, after it or while it runs, in the same
// session or another, are refused as the same string is as a value, the
// refusal a server without the fast path gives.
func TestInlineHostileReferences(t *testing.T) {
	png := mcptest.PNG(t, 64, 64, true)
	good := map[string]any{"image": uri("image/png", png)}
	forged := inline.Scheme + strings.Repeat("A", 26)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			rec := &seen{}
			s := inlineServer(rec)
			cs := tr.connect(t, s, true)
			base := tr.connect(t, inlineServer(&seen{}), false)
			same := func(what string, args map[string]any, meta mcp.Meta) {
				t.Helper()
				got := call(t, cs, "files", args, meta)
				want := call(t, base, "files", args, meta)
				if got != want || !strings.Contains(got, "is not a data: URI") {
					t.Errorf("%s: %s\nwant %s", what, short(got), short(want))
				}
			}
			same("forged", map[string]any{"image": forged}, nil)
			same("forged with a key", map[string]any{"image": forged}, mcp.Meta{inline.MetaKey: "key"})

			// A reference and its key, as a leaky middleware would show them.
			call(t, cs, "files", good, nil)
			args, meta := rec.last()
			var a struct{ Image string }
			if err := json.Unmarshal([]byte(args), &a); err != nil || !strings.HasPrefix(a.Image, inline.Scheme) {
				t.Fatalf("no reference in %q", short(args))
			}
			key := meta[inline.MetaKey]
			same("replayed after its call", map[string]any{"image": a.Image}, mcp.Meta{inline.MetaKey: key})
			same("replayed with a file of its own", map[string]any{"image": uri("image/png", png), "extra": a.Image}, mcp.Meta{inline.MetaKey: key})
			other := tr.connect(t, s, true)
			got := call(t, other, "files", map[string]any{"image": a.Image}, mcp.Meta{inline.MetaKey: key})
			if want := call(t, base, "files", map[string]any{"image": a.Image}, nil); got != want {
				t.Errorf("replayed in another session: %s\nwant %s", short(got), short(want))
			}

			// While its call waits in a middleware.
			hold, arrived := make(chan struct{}), make(chan struct{})
			rec.mu.Lock()
			rec.hold, rec.arrived = hold, arrived
			rec.mu.Unlock()
			first := make(chan string, 1)
			go func() { first <- call(t, cs, "files", good, nil) }()
			<-arrived
			args, meta = rec.last()
			json.Unmarshal([]byte(args), &a)
			key = meta[inline.MetaKey]
			for _, c := range []*mcp.ClientSession{cs, other} {
				got := call(t, c, "files", map[string]any{"image": a.Image}, mcp.Meta{inline.MetaKey: key})
				if !strings.Contains(got, "is not a data: URI") {
					t.Errorf("replayed while its call runs: %s", short(got))
				}
			}
			close(hold)
			if got, want := <-first, call(t, base, "files", good, nil); got != want {
				t.Errorf("the call whose reference was replayed: %s\nwant %s", short(got), short(want))
			}
		})
	}
	if n := inline.Held(); n != 0 {
		t.Errorf("%d references held after the calls", n)
	}
}

// TestInlineLineOverLimit: over stdio, a line longer than the limit goes
// to the SDK as it came, which ends the session, as without the fast
// path.
func TestInlineLineOverLimit(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "small", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "files"}, func(context.Context, *mcp.CallToolRequest, testtypes.ImageArgs) (*mcp.CallToolResult, any, error) {
		return text("called"), nil, nil
	})
	limit := int(serve.RequestLimit(s, serve.Options{}))
	if limit > mcp.DefaultMaxLineLength {
		t.Fatalf("the request limit is %d, over the stdio default line limit", limit)
	}
	long := uri("image/png", bytes.Repeat([]byte{0x89}, mcp.DefaultMaxLineLength*3/4+1))
	for _, fast := range []bool{true, false} {
		cs := stdio(t, s, fast)
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "files", Arguments: map[string]any{"image": long}})
		if err == nil {
			t.Errorf("fast path %v: a %d-byte line was read", fast, len(long))
		}
	}
}

// TestInlineReaderLines: the stdio reader hands over every line, however
// the client's writes cut them: several in one write, one in many.
func TestInlineReaderLines(t *testing.T) {
	msgs := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"v1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\r\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	for _, cut := range []int{len(msgs), 1, 7, 100} {
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- serve.ServeIO(context.Background(), inlineServer(&seen{}), toServer, fromServer, serve.Options{})
		}()
		go func() {
			for i := 0; i < len(msgs); i += cut {
				fromClient.Write([]byte(msgs[i:min(i+cut, len(msgs))]))
			}
		}()
		r := bufio.NewReader(toClient)
		var answers string
		for range 3 { // answered in any order
			line, err := r.ReadString('\n')
			if err != nil {
				t.Errorf("writes of %d bytes: %v", cut, err)
				break
			}
			answers += line
		}
		for _, id := range []string{`"id":0,`, `"id":1,`, `"id":2,`} {
			if !strings.Contains(answers, id) {
				t.Errorf("writes of %d bytes: no answer with %s in %s", cut, id, short(answers))
			}
		}
		fromClient.Close()
		toClient.Close()
		<-done
	}
}

// TestInlineRefusalForm: on a server set to runtime.RefuseWithError, the
// fast path answers a refused call with the same JSON-RPC error -32602 as
// the SDK's transport without it: for files it declines (a refused data:
// URI) and for calls whose files it decoded but whose other arguments the
// schema refuses.
func TestInlineRefusalForm(t *testing.T) {
	png := mcptest.PNG(t, 64, 64, true)
	notPNG := bytes.Repeat([]byte("GIF89a not a png "), 400)
	cases := []struct {
		name   string
		args   map[string]any
		reason string
	}{
		{"content mismatch", map[string]any{"image": uri("image/png", notPNG)}, "contentMismatch"},
		{"wrong media type", map[string]any{"image": uri("image/gif", png)}, "mimeTypeNotAccepted"},
		{"scheme", map[string]any{"image": uri("image/png", png), "extra": "https://example.com/x"}, "scheme"},
		{"schema refused", map[string]any{"image": uri("image/png", png), "note": 5}, "invalid"},
	}
	server := func() *mcp.Server {
		s := inlineServer(&seen{})
		runtime.SetRefusalForm(s, runtime.RefuseWithError)
		return s
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, server(), true)
			base := tr.connect(t, server(), false)
			for _, c := range cases {
				p := &mcp.CallToolParams{Name: "files", Arguments: c.args}
				_, err := cs.CallTool(t.Context(), p)
				_, want := base.CallTool(t.Context(), p)
				var je, wje *jsonrpc.Error
				if !errors.As(err, &je) || !errors.As(want, &wje) {
					t.Errorf("%s: %v, without the fast path %v; want JSON-RPC errors", c.name, err, want)
					continue
				}
				if je.Code != jsonrpc.CodeInvalidParams || je.Message != wje.Message || string(je.Data) != string(wje.Data) {
					t.Errorf("%s: %d %q %s\nwant (without the fast path) %d %q %s", c.name, je.Code, je.Message, je.Data, wje.Code, wje.Message, wje.Data)
				}
				if !strings.Contains(string(je.Data), `"reason":"`+c.reason+`"`) {
					t.Errorf("%s: data %s, want reason %q", c.name, je.Data, c.reason)
				}
			}
		})
	}
	if n := inline.Held(); n != 0 {
		t.Errorf("%d references held after the calls", n)
	}
}
