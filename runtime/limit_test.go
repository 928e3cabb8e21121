package runtime_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
)

func TestRequestBytes(t *testing.T) {
	file := func(n int64) int64 { return 2 + 5 + runtime.MediaTypeBytes + 8 + 4*((n+2)/3) }
	tests := []struct {
		name    string
		schemas []json.RawMessage
		want    int64
	}{
		{"none", nil, runtime.EnvelopeBytes},
		{"5 MiB", []json.RawMessage{bigSchema}, runtime.EnvelopeBytes + int64(len("blob")) + 4 + file(5<<20)},
		{"array of 3", []json.RawMessage{docsSchema}, runtime.EnvelopeBytes + int64(len("docs")) + 4 + 2 + 3*(file(2048)+1)},
		{"tool and form", []json.RawMessage{imageSchema, photoSchema},
			runtime.EnvelopeBytes + int64(len("image")) + 4 + file(1024) + int64(len("photo")) + 4 + file(2048)},
		{"no maxSize", []json.RawMessage{json.RawMessage(`{"type":"object","properties":{"f":{"type":"string","format":"uri","x-mcp-file":{}}}}`)},
			runtime.EnvelopeBytes + 1 + 4 + file(runtime.DefaultMaxSize)},
		{"no files", []json.RawMessage{json.RawMessage(`{"type":"object","properties":{"s":{"type":"string"}}}`)}, runtime.EnvelopeBytes},
	}
	for _, tt := range tests {
		got, err := runtime.RequestBytes(tt.schemas...)
		if err != nil || got != tt.want {
			t.Errorf("%s: RequestBytes = %d, %v, want %d", tt.name, got, err, tt.want)
		}
	}
	if got := file(5 << 20); got != 6990508+527 {
		t.Errorf("a 5 MiB file takes %d bytes, want 6990508 of base64 and 527 of prefix and quotes", got)
	}
}

// TestRequestBytesDefaults checks the limits that follow from a schema
// that declares none: DefaultMaxFiles files of DefaultMaxSize bytes, and
// saturation instead of overflow when a default is lifted.
func TestRequestBytesDefaults(t *testing.T) {
	file := func(n int64) int64 {
		return int64(len(`"data:`)) + runtime.MediaTypeBytes + int64(len(`;base64,"`)) + 4*((n+2)/3)
	}
	s := json.RawMessage(`{"type":"object","properties":{"fs":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{"maxSize":10}}}}}`)
	want := runtime.EnvelopeBytes + int64(len("fs")) + 4 + 2 + int64(runtime.DefaultMaxFiles)*(file(10)+1)
	if n, err := runtime.RequestBytes(s); err != nil || n != want {
		t.Errorf("RequestBytes(array without maxItems) = %d, %v; want %d (DefaultMaxFiles files)", n, err, want)
	}
	if n, err := runtime.MaxRequestBytes(s); err != nil || n != max(want, mcp.DefaultMaxRequestBodyBytes) {
		t.Errorf("MaxRequestBytes(array without maxItems) = %d, %v", n, err)
	}
	defer func(size int64, files int) { runtime.DefaultMaxSize, runtime.DefaultMaxFiles = size, files }(runtime.DefaultMaxSize, runtime.DefaultMaxFiles)
	runtime.DefaultMaxSize, runtime.DefaultMaxFiles = 0, 0
	unbounded := json.RawMessage(`{"type":"object","properties":{"fs":{"type":"array","items":{"type":"string","format":"uri","x-mcp-file":{}}}}}`)
	if n, err := runtime.RequestBytes(unbounded); err != nil || n != math.MaxInt64 {
		t.Errorf("RequestBytes(no ceilings) = %d, %v; want math.MaxInt64", n, err)
	}
	for _, bad := range []string{`{"type":"object","properties":{"fs":{"type":"array","maxItems":0,"items":{"type":"string","format":"uri","x-mcp-file":{}}}}}`, `[`} {
		if n, err := runtime.MaxRequestBytes(json.RawMessage(bad)); err == nil || !strings.HasPrefix(err.Error(), "runtime.MaxRequestBytes: ") {
			t.Errorf("MaxRequestBytes(%s) = %d, %v; want an error", bad, n, err)
		}
	}
}

func TestMaxRequestBytes(t *testing.T) {
	if got, err := runtime.MaxRequestBytes(imageSchema, docsSchema); err != nil || got != mcp.DefaultMaxRequestBodyBytes {
		t.Errorf("MaxRequestBytes(small tools) = %d, want the SDK's default %d", got, mcp.DefaultMaxRequestBodyBytes)
	}
	big, _ := runtime.RequestBytes(bigSchema)
	if got, err := runtime.MaxRequestBytes(imageSchema, bigSchema, docsSchema); err != nil || got != big {
		t.Errorf("MaxRequestBytes = %d, want the largest request, %d", got, big)
	}
}

// bodySizes records the size of every request body an HTTP handler reads.
type bodySizes struct {
	mu  sync.Mutex
	max int64
}

func (b *bodySizes) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			b.mu.Lock()
			b.max = max(b.max, int64(len(body)))
			b.mu.Unlock()
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		h.ServeHTTP(w, r)
	})
}

// serveHTTP serves s over streamable HTTP on 127.0.0.1 with the given body
// limit and connects a client on protocol version.
func serveHTTP(t *testing.T, s *mcp.Server, limit int64, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *bodySizes) {
	t.Helper()
	sizes := new(bodySizes)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: limit})
	srv := httptest.NewServer(sizes.wrap(h))
	t.Cleanup(srv.Close)
	return mcptest.Client(t, &mcp.StreamableClientTransport{Endpoint: srv.URL}, opts, version), sizes
}

type digestOut struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// digest reads the blob through its reader, as a handler that takes files
// of any size does.
func digest(_ context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, digestOut, error) {
	r, err := in.Blob.Open()
	if err != nil {
		return nil, digestOut{}, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return nil, digestOut{}, err
	}
	return nil, digestOut{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// TestFiveMiBOverHTTP sends a file of exactly maxSize (5 MiB) over
// streamable HTTP: it arrives intact under the derived limit, within it, and
// is refused by the SDK's default limit.
func TestFiveMiBOverHTTP(t *testing.T) {
	data := make([]byte, 5<<20)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(data)
	sum := sha256.Sum256(data)
	limit, err := runtime.MaxRequestBytes(bigSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := newServer()
			runtime.AddTool(s, &mcp.Tool{Name: "digest"}, digest)
			cs, sizes := serveHTTP(t, s, limit, version, nil)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "digest", Arguments: map[string]any{
				"blob": mcptest.DataURI("application/octet-stream", data),
			}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			want := map[string]any{"size": float64(len(data)), "sha256": hex.EncodeToString(sum[:])}
			if d := diff(want, res.StructuredContent); d != "" || res.IsError {
				t.Fatalf("result isError=%v (-want +got):\n%s", res.IsError, d)
			}
			if sizes.max > limit || sizes.max < limit-runtime.EnvelopeBytes-runtime.MediaTypeBytes {
				t.Errorf("largest body %d bytes, limit %d: the limit should be just above it", sizes.max, limit)
			}
			t.Logf("body %d bytes, limit %d", sizes.max, limit)

			// One byte more is the runtime's clear error, not HTTP 413.
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "digest", Arguments: map[string]any{
				"blob": mcptest.DataURI("application/octet-stream", append(data, 0)),
			}})
			if err != nil {
				t.Fatalf("CallTool with maxSize+1 bytes: %v", err)
			}
			if text := mcptest.Text(t, res); !res.IsError || !strings.Contains(text, "exceeds maxSize") {
				t.Errorf("maxSize+1 bytes: isError=%v %q", res.IsError, text)
			}
		})
	}
	t.Run("default limit", func(t *testing.T) {
		s := newServer()
		runtime.AddTool(s, &mcp.Tool{Name: "digest"}, digest)
		cs, _ := serveHTTP(t, s, 0, "", nil)
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "digest", Arguments: map[string]any{
			"blob": mcptest.DataURI("application/octet-stream", data),
		}})
		if err == nil {
			t.Error("the SDK's default 4 MiB limit let a 5 MiB file through; the derived limit is then pointless")
		}
	})
}

func TestElicitOverHTTP(t *testing.T) {
	good := mcptest.DataURI("image/png", mcptest.PNG(t, 2, 2, false))
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			a := &answerer{answers: []*mcp.ElicitResult{accept("data:image/png;base64,AAAA"), accept(good)}}
			limit, err := runtime.RequestBytes(profileArgs{}.MCPSchema(), photoSchema)
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := serveHTTP(t, profileServer(nil), max(limit, mcp.DefaultMaxRequestBodyBytes), version, &mcp.ClientOptions{ElicitationHandler: a.handle})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: map[string]any{"displayName": "Mona"}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if text := mcptest.Text(t, res); res.IsError || !strings.Contains(text, `"action":"accept"`) || len(a.messages) != 2 {
				t.Errorf("isError=%v %q after %d asks", res.IsError, text, len(a.messages))
			}
		})
	}
}
