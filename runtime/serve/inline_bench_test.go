package serve_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/serve/internal/inlinetypes"
)

// benchServer is the server of the benchmarks: "image" answers the
// SHA-256 of an image of up to 24 MiB, "ping" takes nothing.
func benchServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "image"}, func(_ context.Context, _ *mcp.CallToolRequest, in inlinetypes.Image) (*mcp.CallToolResult, any, error) {
		return text(fmt.Sprintf("%x", sha256.Sum256(in.Image.Bytes()))), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return text("pong"), nil, nil
	})
	return s
}

// benchPNG is a PNG's first bytes followed by random ones, n in all: the
// content check reads only the first.
func benchPNG(b *testing.B, n int) []byte {
	data := mcptest.PNG(b, 4, 4, false)
	rest := make([]byte, n-len(data))
	_, _ = rand.NewChaCha8([32]byte{byte(n >> 20)}).Read(rest)
	return append(data, rest...)
}

// rawServer serves s over transport ("stdio" or "http"), through the fast
// path (serve's) or the go-sdk's own transport or handler with the same
// limit, and returns a RawClient of it.
func rawServer(b *testing.B, s *mcp.Server, transport string, fast bool) *mcptest.RawClient {
	return rawServerAnswering(b, s, serve.Options{}, transport, fast, nil)
}

// rawServerAnswering is rawServer with options o and a client that
// answers the server's elicitation/create requests with a.
func rawServerAnswering(b *testing.B, s *mcp.Server, o serve.Options, transport string, fast bool, a *mcptest.RawAnswer) *mcptest.RawClient {
	limit := serve.RequestLimit(s, o)
	var c *mcptest.RawClient
	var err error
	switch transport {
	case "stdio":
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		done := make(chan error, 1)
		go func() {
			if fast {
				done <- serve.ServeIO(context.Background(), s, toServer, fromServer, o)
				return
			}
			done <- s.Run(context.Background(), &mcp.IOTransport{Reader: toServer, Writer: fromServer, MaxLineLength: max(int(limit), mcp.DefaultMaxLineLength)})
		}()
		b.Cleanup(func() { fromClient.Close(); <-done })
		c, err = mcptest.RawStdioAnswering(toClient, fromClient, a)
	case "http":
		h := serve.Handler(s, o)
		if !fast {
			h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: limit})
		}
		srv := httptest.NewServer(h)
		b.Cleanup(srv.Close)
		c, err = mcptest.RawHTTPAnswering(srv.URL+serve.DefaultPath, a)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkInlineCall times a tools/call of an image of 1, 4 and 20 MiB
// (size=0: "ping", a call without files), over stdio and streamable HTTP,
// served through runtime/serve's fast path (impl=serve) and through the
// go-sdk's own transport and handler (impl=sdk), with a client that sends
// a message built beforehand and reads the answer as bytes: the time is
// the server's, the transport's and the client's reading. Compare with
//
//	benchstat -col /impl bench.txt
func BenchmarkInlineCall(b *testing.B) {
	for _, size := range []int{0, 1 << 20, 4 << 20, 20 << 20} {
		var msg []byte
		want := "pong"
		if size == 0 {
			msg = mcptest.RawCall("ping", map[string]any{})
		} else {
			data := benchPNG(b, size)
			msg = mcptest.RawCall("image", map[string]any{"image": mcptest.DataURI("image/png", data)})
			want = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		for _, transport := range []string{"stdio", "http"} {
			for _, impl := range []string{"serve", "sdk"} {
				b.Run(fmt.Sprintf("transport=%s/size=%dMiB/impl=%s", transport, size>>20, impl), func(b *testing.B) {
					c := rawServer(b, benchServer(), transport, impl == "serve")
					b.SetBytes(int64(size))
					b.ReportAllocs()
					for b.Loop() {
						ans, err := c.Call(msg)
						if err != nil || !mcptest.RawOK(ans, want) {
							b.Fatalf("call: %v %.300s", err, ans)
						}
					}
				})
			}
		}
	}
}

// BenchmarkInlineElicit times a tools/call whose tool elicits a form (an
// image of up to 24 MiB, inlinetypes.Image) and answers the SHA-256 of
// the file of 4 MiB the client answers with, on protocol 2025-11-25
// (elicitation/create; over HTTP the answer is a request of its own), over
// stdio and streamable HTTP, served through runtime/serve's fast path
// (impl=serve) and through the go-sdk's own transport and handler
// (impl=sdk). Compare with
//
//	benchstat -col /impl bench.txt
func BenchmarkInlineElicit(b *testing.B) {
	const size = 4 << 20
	data := benchPNG(b, size)
	want := fmt.Sprintf("%x", sha256.Sum256(data))
	msg := mcptest.RawCall("ask", map[string]any{})
	for _, transport := range []string{"stdio", "http"} {
		for _, impl := range []string{"serve", "sdk"} {
			b.Run(fmt.Sprintf("transport=%s/size=%dMiB/impl=%s", transport, size>>20, impl), func(b *testing.B) {
				s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
				runtime.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ inlinetypes.Question) (*mcp.CallToolResult, any, error) {
					ans, pending, err := runtime.Elicit[inlinetypes.Image](ctx, req, "Choose an image.", nil)
					if pending != nil || err != nil {
						return pending, nil, err
					}
					return text(fmt.Sprintf("%x", sha256.Sum256(ans.Value.Image.Bytes()))), nil, nil
				})
				a := mcptest.NewRawAnswer(map[string]any{"image": mcptest.DataURI("image/png", data)})
				o := serve.Options{Forms: []json.RawMessage{inlinetypes.Image{}.MCPSchema()}}
				c := rawServerAnswering(b, s, o, transport, impl == "serve", a)
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					ans, err := c.Call(msg)
					if err != nil || !mcptest.RawOK(ans, want) {
						b.Fatalf("call: %v %.300s", err, ans)
					}
				}
			})
		}
	}
}
