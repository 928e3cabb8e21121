// Package mcptest has the helpers the example servers' tests share: a go-sdk
// client connected in memory or over streamable HTTP, and test files.
package mcptest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/serve"
)

// Connect connects a go-sdk client with opts to s over in-memory transports,
// on protocol version ("": the SDK's latest).
func Connect(t testing.TB, s *mcp.Server, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return connect(t, ct, opts, version)
}

// ConnectHTTP serves s over streamable HTTP on 127.0.0.1 with request bodies
// up to limit bytes, as the example commands do, and connects a client.
func ConnectHTTP(t testing.TB, s *mcp.Server, limit int64, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(serve.Handler(s, limit))
	t.Cleanup(srv.Close)
	return connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL}, opts, version)
}

func connect(t testing.TB, tr mcp.Transport, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "v1"}, opts)
	cs, err := c.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Call calls the tool and fails the test on a protocol error: file
// violations must come back as isError results.
func Call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", tool, err)
	}
	return res
}

// Text returns the text of the result's first content block.
func Text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("result has no content: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// PNG returns a decodable w×h PNG. With noise set its pixels are random, so
// that it does not compress: a 1100×1100 one is about 4.8 MB.
func PNG(t testing.TB, w, h int, noise bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if noise {
		_, _ = rand.NewChaCha8([32]byte{byte(w), byte(h)}).Read(img.Pix)
	} else {
		for x := range w {
			img.Set(x, x%h, color.NRGBA{B: 255, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// DataURI is the base64 data: URI of b.
func DataURI(mediaType string, b []byte) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(b)
}
