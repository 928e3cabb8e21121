package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/serve/internal/inlinetypes"
)

// answers records the answers to the form as the SDK handed them on: the
// content of each elicitation/create result (a sending middleware sees
// it) and the inputResponses of each retried tools/call.
type answers struct {
	mu   sync.Mutex
	seen []string
}

func (a *answers) add(v any) {
	b, _ := json.Marshal(v)
	a.mu.Lock()
	a.seen = append(a.seen, string(b))
	a.mu.Unlock()
}

func (a *answers) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) == 0 {
		return ""
	}
	return a.seen[len(a.seen)-1]
}

// elicitServer is a server whose tool "ask" elicits an inlinetypes.Form,
// once, and describes the answer.
func elicitServer(rec *answers) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "elicit", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, q inlinetypes.Question) (*mcp.CallToolResult, any, error) {
		ans, pending, err := runtime.Elicit(ctx, req, "Choose a photo. "+q.Message, &runtime.ElicitOptions[inlinetypes.Form]{MaxTries: 1})
		if pending != nil || err != nil {
			return pending, nil, err
		}
		if ans.Action != runtime.Accept {
			return text(string(ans.Action)), nil, nil
		}
		fs := []runtime.File{ans.Value.Photo}
		if ans.Value.Extra != nil {
			fs = append(fs, *ans.Value.Extra)
		}
		return text(describe(fs...) + fmt.Sprintf("note %q", ans.Value.Note)), nil, nil
	})
	s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if er, ok := res.(*mcp.ElicitResult); ok && method == "elicitation/create" && err == nil {
				rec.add(er.Content)
			}
			return res, err
		}
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && len(p.InputResponses) > 0 {
				rec.add(p.InputResponses)
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// connectElicit connects a client with opts on protocol version to s over
// stdio or HTTP, through the fast path or without it.
func connectElicit(t *testing.T, s *mcp.Server, overHTTP, fast bool, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	return connectElicitWith(t, s, overHTTP, fast, version, opts, serve.Options{})
}

// connectElicitWith is connectElicit with so the options of the fast path.
func connectElicitWith(t *testing.T, s *mcp.Server, overHTTP, fast bool, version string, opts *mcp.ClientOptions, so serve.Options) *mcp.ClientSession {
	limit := serve.RequestLimit(s, so)
	if overHTTP {
		h := serve.Handler(s, so)
		if !fast {
			h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
				MaxRequestBodyBytes: limit,
				Stateless:           version >= serve.StatelessSince,
			})
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return mcptest.Client(t, &mcp.StreamableClientTransport{Endpoint: srv.URL + serve.DefaultPath}, opts, version)
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		if fast {
			done <- serve.ServeIO(context.Background(), s, toServer, fromServer, so)
			return
		}
		done <- s.Run(context.Background(), &mcp.IOTransport{Reader: toServer, Writer: fromServer, MaxLineLength: max(int(limit), mcp.DefaultMaxLineLength)})
	}()
	t.Cleanup(func() { fromClient.Close(); <-done })
	return mcptest.Client(t, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, opts, version)
}

// TestInlineElicit: over stdio and HTTP, on both protocol generations
// (elicitation/create, and inputResponses in the retry of the call), the
// answers to a form that the fast path takes reach the SDK with each large
// file replaced by a reference, and the tool gets the same files as
// without the fast path; the answers it declines, and references a
// client writes or replays from an earlier answer, get the same answer as
// without it. No reference outlives its answer, and the client never sees
// an elicitation's key.
func TestInlineElicit(t *testing.T) {
	png := mcptest.PNG(t, 64, 64, true)
	longPNG := mcptest.PNG(t, 300, 300, true)
	notPNG := bytes.Repeat([]byte("GIF89a not a png "), 400)
	forged := inline.Scheme + strings.Repeat("A", 26)
	const replay = "replay" // the photo's reference in the answer of "one file"
	cases := []struct {
		name    string
		action  string
		content map[string]any
		refs    int // references the SDK sees through the fast path; -1: not counted
	}{
		{"one file", "accept", map[string]any{"photo": uri("image/png", png)}, 1},
		{"two files", "accept", map[string]any{"photo": uri("image/png", png), "extra": uri("application/octet-stream", notPNG), "note": "hi"}, 2},
		{"small file", "accept", map[string]any{"photo": uri("image/png", mcptest.PNG(t, 4, 4, false))}, 0},
		{"content mismatch", "accept", map[string]any{"photo": uri("image/png", notPNG)}, 0},
		{"wrong media type", "accept", map[string]any{"photo": uri("image/gif", png)}, 0},
		{"one of two refused", "accept", map[string]any{"photo": uri("image/png", png), "extra": "https://example.com/x"}, 0},
		{"schema refused", "accept", map[string]any{"photo": uri("image/png", png), "note": 5}, -1}, // the SDK refuses it: no answer seen
		{"declined", "decline", map[string]any{"photo": uri("image/png", png)}, 0},
		{"no content", "accept", nil, 0},
		{"forged", "accept", map[string]any{"photo": forged}, -1},
		{"replayed", "accept", map[string]any{"photo": replay}, -1},
		// Long enough for their base64 to be decoded as the answer is read.
		{"long files", "accept", map[string]any{"photo": uri("image/png", longPNG), "extra": uri("application/octet-stream", bytes.Repeat(notPNG, 40))}, 2},
		{"long content mismatch", "accept", map[string]any{"photo": uri("image/png", bytes.Repeat(notPNG, 40))}, 0},
		{"long bad base64", "accept", map[string]any{"photo": uri("image/png", longPNG) + "!"}, 0},
	}
	for _, tr := range []struct {
		name     string
		overHTTP bool
		version  string
	}{
		{"stdio-2025-11-25", false, "2025-11-25"},
		{"stdio-2026-07-28", false, "2026-07-28"},
		{"http-2025-11-25", true, "2025-11-25"},
		{"http-2026-07-28", true, "2026-07-28"},
	} {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var action string
			var content map[string]any
			keys := 0 // elicitations' keys the client saw through the fast path
			opts := func(fast bool) *mcp.ClientOptions {
				return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					if _, ok := req.Params.Meta[inline.MetaKey]; ok && fast {
						keys++
					}
					return &mcp.ElicitResult{Action: action, Content: content}, nil
				}}
			}
			rec := &answers{}
			cs := connectElicit(t, elicitServer(rec), tr.overHTTP, true, tr.version, opts(true))
			base := connectElicit(t, elicitServer(&answers{}), tr.overHTTP, false, tr.version, opts(false))
			var ref string
			for _, c := range cases {
				mu.Lock()
				action, content = c.action, c.content
				if c.content["photo"] == replay {
					content = map[string]any{"photo": ref}
				}
				mu.Unlock()
				got := call(t, cs, "ask", map[string]any{}, nil)
				if want := call(t, base, "ask", map[string]any{}, nil); got != want {
					t.Errorf("%s: %s\nwant (without the fast path) %s", c.name, short(got), short(want))
				}
				seen := rec.last()
				if n := strings.Count(seen, inline.Scheme); c.refs >= 0 && n != c.refs {
					t.Errorf("%s: the SDK saw %d references in %d bytes of answer, want %d", c.name, n, len(seen), c.refs)
				}
				if c.name == "one file" {
					i := strings.Index(seen, inline.Scheme)
					if i < 0 {
						t.Fatalf("no reference in %s", short(seen))
					}
					ref = seen[i : i+len(inline.Scheme)+26]
				}
				if keys != 0 {
					t.Errorf("%s: the client saw an elicitation's key", c.name)
				}
				if c.name == "forged" || c.name == "replayed" {
					if !strings.Contains(got, "is not a data: URI") {
						t.Errorf("%s: %s, want the refusal of a value that is not a data: URI", c.name, short(got))
					}
				}
			}
		})
	}
	if n := inline.Held(); n != 0 {
		t.Errorf("%d references held after the calls", n)
	}
}

// TestInlineElicitPastLimits: past the bounds of the files held for
// elicitation/create answers that Options set, an answer reaches the SDK
// as it came, and gets the same answer as without the fast path; within
// them, the SDK sees references.
func TestInlineElicitPastLimits(t *testing.T) {
	png := mcptest.PNG(t, 64, 64, true)
	notPNG := bytes.Repeat([]byte("GIF89a not a png "), 400)
	content := map[string]any{"photo": uri("image/png", png), "extra": uri("application/octet-stream", notPNG)}
	size := int64(len(png) + len(notPNG))
	opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}}
	for _, tt := range []struct {
		name string
		so   serve.Options
		refs int
	}{
		{"defaults", serve.Options{}, 2},
		{"two files", serve.Options{MaxAnswerFiles: 2}, 2},
		{"one file", serve.Options{MaxAnswerFiles: 1}, 0},
		{"none", serve.Options{MaxAnswerFiles: -1}, 0},
		{"the files' bytes", serve.Options{MaxAnswerBytes: size}, 2},
		{"a byte less", serve.Options{MaxAnswerBytes: size - 1}, 0},
		{"no time", serve.Options{AnswerTTL: -1}, 0},
	} {
		for _, overHTTP := range []bool{false, true} {
			rec := &answers{}
			cs := connectElicitWith(t, elicitServer(rec), overHTTP, true, "2025-11-25", opts, tt.so)
			base := connectElicit(t, elicitServer(&answers{}), overHTTP, false, "2025-11-25", opts)
			got, want := call(t, cs, "ask", map[string]any{}, nil), call(t, base, "ask", map[string]any{}, nil)
			if got != want || !strings.Contains(got, "image/png") {
				t.Errorf("%s, HTTP %v: %s\nwant (without the fast path) %s", tt.name, overHTTP, short(got), short(want))
			}
			if n := strings.Count(rec.last(), inline.Scheme); n != tt.refs {
				t.Errorf("%s, HTTP %v: the SDK saw %d references, want %d", tt.name, overHTTP, n, tt.refs)
			}
		}
	}
	if n := inline.Held(); n != 0 {
		t.Errorf("%d references held after the calls", n)
	}
}

// TestInlineElicitAnswerTTL: the files of an answer are held for
// Options.AnswerTTL: an answer whose files expired before Elicit read it
// (here the SDK hands it on only once they have) is refused as a value
// that is not a data: URI, which it no longer stands for.
func TestInlineElicitAnswerTTL(t *testing.T) {
	content := map[string]any{"photo": uri("image/png", mcptest.PNG(t, 64, 64, true))}
	opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}}
	for _, overHTTP := range []bool{false, true} {
		s := elicitServer(&answers{})
		expired := make(chan int, 1)
		s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == "elicitation/create" {
					deadline := time.Now().Add(10 * time.Second)
					for inline.Held() != 0 && time.Now().Before(deadline) {
						time.Sleep(5 * time.Millisecond)
					}
					expired <- inline.Held()
				}
				return res, err
			}
		})
		cs := connectElicitWith(t, s, overHTTP, true, "2025-11-25", opts, serve.Options{AnswerTTL: 20 * time.Millisecond})
		got := call(t, cs, "ask", map[string]any{}, nil)
		if n := <-expired; n != 0 {
			t.Fatalf("HTTP %v: %d references held after a while, want them expired", overHTTP, n)
		}
		if !strings.Contains(got, "is not a data: URI") {
			t.Errorf("HTTP %v: %s, want the refusal of a value that is not a data: URI", overHTTP, short(got))
		}
	}
}
