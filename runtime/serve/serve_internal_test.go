package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
)

// TestStdioLineLimit: over stdio, a message is one line, read up to the
// request limit computed from the tools: a tool taking files of up to
// 2 GiB gets a 17 MB line, longer than the go-sdk's default line limit
// (which ends the session).
func TestStdioLineLimit(t *testing.T) {
	file := bytes.Repeat([]byte("0123456789abcdef"), 13<<20/16) // 13 MiB, 17.4 MB of base64
	uri := "data:text/plain;base64," + base64.StdEncoding.EncodeToString(file)
	if len(uri) <= mcp.DefaultMaxLineLength {
		t.Fatalf("the file's URI is %d bytes, not over the default line limit", len(uri))
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "stdio", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "take"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.ArchiveForm) (*mcp.CallToolResult, any, error) {
		sum := sha256.Sum256(in.Archive.Bytes())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%x", sum)}}}, nil, nil
	})
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveIO(t.Context(), s, toServer, fromServer, Options{}) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "take", Arguments: map[string]any{"archive": uri}})
	want := fmt.Sprintf("%x", sha256.Sum256(file))
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != want {
		t.Errorf("call with a %d-byte line: %v %+v, want the file's SHA-256", len(uri), err, res)
	}
	cs.Close()
	<-done
}

// TestServeEndsWithAStreamOpen: a request that never ends by itself (a
// client's stream of server messages, a call waiting for an upload) does
// not keep serving from returning when its context ends: after the grace
// period it is closed, and no error is reported.
func TestServeEndsWithAStreamOpen(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done() // until the connection is closed
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, l, h, Options{ShutdownTimeout: time.Millisecond}, nil) }()
	res, err := http.Get("http://" + l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveHTTP = %v, want nil", err)
	}
}

// TestInlineReaderLongLines: the stdio reader hands over every line,
// whatever its length and however the writes cut it, through the fast
// path (which removes the scope key a client wrote) up to the limit, and
// as it came over the limit, read whole or not, and after the last
// newline.
func TestInlineReaderLongLines(t *testing.T) {
	const limit = 3 << 20
	line := func(n int, c byte, meta string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{` + meta + `},"v":"` + string(bytes.Repeat([]byte{c}, n)) + `"}}` + "\n"
	}
	const key = `"io.mcpfile/inline":"k"`
	var in, want string
	for i, n := range []int{10, 70 << 10, 1, 300 << 10, limit - 200, limit + 1, 5 << 20, 64<<10 - 60, 20} {
		in += line(n, 'a'+byte(i), key)
		if n > limit {
			want += line(n, 'a'+byte(i), key)
		} else {
			want += line(n, 'a'+byte(i), "")
		}
	}
	in += `{"jsonrpc":"2.0","id":2,` // no newline
	want += `{"jsonrpc":"2.0","id":2,`
	s := mcp.NewServer(&mcp.Implementation{Name: "none", Version: "v1"}, nil)
	for _, cut := range []int{1 << 30, 100 << 10, 4093, 1 << 20} {
		toServer, fromClient := io.Pipe()
		go func() {
			for i := 0; i < len(in); i += cut {
				fromClient.Write([]byte(in[i:min(i+cut, len(in))]))
			}
			fromClient.Close()
		}()
		got, err := io.ReadAll(newInlineIO(s, limit, (&Options{}).answerLimits()).reader(toServer))
		if err != nil || string(got) != want {
			t.Errorf("writes of %d bytes: read %d bytes (%v), want %d", cut, len(got), err, len(want))
		}
	}
}
