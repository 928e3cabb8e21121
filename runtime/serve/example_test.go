package serve_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// A server whose tool takes files of up to 5 MiB, served over streamable
// HTTP as ListenAndServe serves it (here on a listener of its own, until
// ctx is done): MCP at /mcp for clients of both protocol generations, with
// request bodies as large as the files need.
func ExampleServe() {
	s := mcp.NewServer(&mcp.Implementation{Name: "blobs", Version: "v1.0.0"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "digest"},
		func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BigArgs) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("%d bytes, sha256:%x", in.Blob.Size(), sha256.Sum256(in.Blob.Bytes()))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})

	ctx, stop := context.WithCancel(context.Background())
	l, err := net.Listen("tcp", "127.0.0.1:0") // serve.ListenAndServe(ctx, "127.0.0.1:8080", s, serve.Options{})
	if err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve.Serve(ctx, l, s, serve.Options{Logger: slog.New(slog.DiscardHandler)}) }()

	file := bytes.Repeat([]byte("mcpfile "), 4<<20/8) // 4 MiB: 5.6 MB of base64, over the go-sdk's default limit
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + l.Addr().String() + "/mcp"},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			panic(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "digest",
			Arguments: map[string]any{"blob": "data:text/plain;base64," + base64.StdEncoding.EncodeToString(file)}})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s\n", cs.InitializeResult().ProtocolVersion, res.Content[0].(*mcp.TextContent).Text)
		cs.Close()
	}
	stop()
	fmt.Println("stopped:", <-done)
	// Output:
	// 2025-11-25: 4194304 bytes, sha256:b3f114fa532cc8bcc0ef8e73de53262deddad77ddaf09276122594d2f0257e06
	// 2026-07-28: 4194304 bytes, sha256:b3f114fa532cc8bcc0ef8e73de53262deddad77ddaf09276122594d2f0257e06
	// stopped: <nil>
}
