package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// TestWrap: a go-sdk client over a wrapped transport declares files at the
// top level of its capabilities, and reads a result with a file block as
// a resource link carrying the FileValue, which the observer sees too.
func TestWrapTransport(t *testing.T) {
	size := int64(3)
	d := wire.FileDigest{Algorithm: "sha-256", Value: "uU0nuZNNPgilLlLX2n2r-sSE7-N6U4D6ZVe-_rYh2sU"}
	fv := wire.FileValue{URI: "mcp-file://s/1", Name: "r.txt", MimeType: "text/plain", Size: &size, Digest: &d}
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	var declared json.RawMessage
	s.AddTool(&mcp.Tool{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		declared, _ = json.Marshal(req.Session.InitializeParams().Capabilities)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "before"}, &block{TextContent: &mcp.TextContent{}, fv: fv}}}, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": FilesCapability()}}})
	var seen []wire.FileValue
	cs, err := c.Connect(t.Context(), WrapTransport(ct, func(v wire.FileValue) { seen = append(seen, v) }), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "f"})
	if err != nil {
		t.Fatalf("CallTool with a file block: %v", err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("content %d blocks, want 2", len(res.Content))
	}
	l, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok {
		t.Fatalf("block 2 is %T, want a resource link", res.Content[1])
	}
	got, ok := FileOf(l)
	if !ok || got.URI != fv.URI || got.Digest == nil || *got.Digest != d || *got.Size != 3 || l.URI != fv.URI || l.Name != "r.txt" {
		t.Errorf("FileOf = %+v, %v (link %+v); want %+v", got, ok, l, fv)
	}
	if len(seen) != 1 || seen[0].URI != fv.URI {
		t.Errorf("the observer saw %+v, want the file", seen)
	}
	// The server decodes capabilities with the SDK's types, which keep
	// experimental.files: it is there (the top-level copy went on the wire).
	var caps struct {
		Experimental struct {
			Files struct{ Download bool }
		}
	}
	if json.Unmarshal(declared, &caps) != nil || !caps.Experimental.Files.Download {
		t.Errorf("the server saw capabilities %s, want experimental.files.download", declared)
	}
	if _, ok := FileOf(&mcp.ResourceLink{URI: "x"}); ok {
		t.Error("FileOf of a plain resource link: ok, want false")
	}
}

// TestWithFiles: experimental.files is copied to files in initialize's
// capabilities and in _meta's, and a declared files member is kept.
func TestWithFiles(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"capabilities":{"experimental":{"files":{"download":true}}}}`, `{"capabilities":{"experimental":{"files":{"download":true}},"files":{"download":true}}}`},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"experimental":{"files":{"upload":true}}}},"name":"f"}`, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"experimental":{"files":{"upload":true}},"files":{"upload":true}}},"name":"f"}`},
		{`{"capabilities":{"experimental":{"files":{"download":true}},"files":{"upload":true}}}`, ""},
		{`{"name":"files"}`, ""},
	} {
		got, ok := withFiles(json.RawMessage(tt.in))
		if tt.want == "" {
			if ok {
				t.Errorf("withFiles(%s) = %s, want unchanged", tt.in, got)
			}
			continue
		}
		if !ok || string(got) != tt.want {
			t.Errorf("withFiles(%s) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

// block is a file content block, as a server writes one.
type block struct {
	*mcp.TextContent
	fv wire.FileValue
}

func (b *block) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"type": "file", "file": b.fv})
}

// TestWrapTransportHTTP: over streamable HTTP, with answers as SSE
// streams or as JSON, the wrapper declares files at the top level of the
// capabilities the server receives and makes file blocks resource links,
// and the SDK still opens its standalone stream: a notification the
// server sends outside any call (a tool added) arrives.
func TestWrapTransportHTTP(t *testing.T) {
	size := int64(3)
	fv := wire.FileValue{URI: "mcp-file://s/1", Name: "r.txt", MimeType: "text/plain", Size: &size}
	for _, jsonAnswers := range []bool{false, true} {
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonAnswers), func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
			s.AddTool(&mcp.Tool{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&block{TextContent: &mcp.TextContent{}, fv: fv}}}, nil
			})
			var mu sync.Mutex
			var initialize []byte
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonAnswers})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					b, _ := io.ReadAll(r.Body)
					if bytes.Contains(b, []byte(`"initialize"`)) {
						mu.Lock()
						initialize = b
						mu.Unlock()
					}
					r.Body = io.NopCloser(bytes.NewReader(b))
				}
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			changed := make(chan struct{}, 1)
			c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, &mcp.ClientOptions{
				Capabilities:           &mcp.ClientCapabilities{Experimental: map[string]any{"files": FilesCapability()}},
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			var seen atomic.Int32
			cs, err := c.Connect(t.Context(), WrapTransport(&mcp.StreamableClientTransport{Endpoint: srv.URL}, func(wire.FileValue) { seen.Add(1) }), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "f"})
			if err != nil {
				t.Fatalf("CallTool with a file block: %v", err)
			}
			if l, ok := res.Content[0].(*mcp.ResourceLink); !ok {
				t.Errorf("block is %T, want a resource link", res.Content[0])
			} else if got, ok := FileOf(l); !ok || got.URI != fv.URI || seen.Load() != 1 {
				t.Errorf("FileOf = %+v, %v, seen %d; want the file, seen once", got, ok, seen.Load())
			}
			mu.Lock()
			var init struct {
				Params struct {
					Capabilities struct {
						Files *struct{ Download bool }
					}
				}
			}
			json.Unmarshal(initialize, &init)
			mu.Unlock()
			if init.Params.Capabilities.Files == nil || !init.Params.Capabilities.Files.Download {
				t.Errorf("initialize sent %s, want capabilities.files.download", initialize)
			}
			// The standalone stream may open after Connect returns: add
			// tools until one's notification arrives.
			for i := 0; ; i++ {
				s.AddTool(&mcp.Tool{Name: fmt.Sprintf("g%d", i), InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
				select {
				case <-changed:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if i == 100 {
					t.Fatal("no notifications/tools/list_changed: the standalone stream was not opened")
				}
			}
		})
	}
}

// TestSSERewriter: the events of a stream whose data is a result with a
// file block are rewritten, the others pass as they came (comments, ids,
// data on several lines), and so does an event that grows past the bound,
// with the rest of the stream, and one the stream's end cuts short.
func TestSSERewriter(t *testing.T) {
	file := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"file","file":{"uri":"mcp-file://s/1","name":"r.txt"}}]}}`
	plain := "id: 7\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"notifications/x\"}\r\n\r\n"
	read := func(stream string, max int) string {
		t.Helper()
		s := &sseRewriter{r: bufio.NewReaderSize(strings.NewReader(stream), 16), body: io.NopCloser(nil), c: &fileBlockConn{}, max: max}
		b, err := io.ReadAll(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got := read(": keepalive\n\n"+plain+"event: message\nid: 8\ndata: "+file+"\n\n", -1)
	if !strings.HasPrefix(got, ": keepalive\n\n"+plain+"event: message\nid: 8\ndata: {") || !strings.Contains(got, `"type":"resource_link"`) || strings.Contains(got, `"type":"file"`) || !strings.HasSuffix(got, "}\n\n") {
		t.Errorf("rewritten stream:\n%s", got)
	}
	big := "data: " + file + "\n\n"
	if got := read(big+big, 40); got != big+big {
		t.Errorf("an event past the bound: %q, want the stream as it came", got)
	}
	if got := read(plain+"data: "+file, -1); got != plain+"data: "+file {
		t.Errorf("an event cut short: %q, want it as it came", got)
	}
}

// BenchmarkSSERewriter: a 1 MiB event that needs no rewriting (a result
// with a large text block), through the rewriter, as the SDK reads it.
func BenchmarkSSERewriter(b *testing.B) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", 1<<20)}}}})
	stream := []byte("event: message\ndata: " + string(msg) + "\n\n")
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		s := &sseRewriter{r: bufio.NewReaderSize(bytes.NewReader(stream), 64<<10), body: io.NopCloser(nil), c: &fileBlockConn{}, max: -1}
		if _, err := io.Copy(io.Discard, s); err != nil {
			b.Fatal(err)
		}
	}
}
