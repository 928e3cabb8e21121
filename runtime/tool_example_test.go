package runtime_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
)

// A tool whose argument type mcpfilegen generated code for is registered
// like any go-sdk tool; its file arrives decoded and checked, and a bad file
// is an isError result the model can read.
func ExampleAddTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	runtime.AddTool(s, &mcp.Tool{Name: "describe", Description: "Describe an image."},
		func(_ context.Context, _ *mcp.CallToolRequest, in imageArgs) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("%s, %d bytes", in.Image.MediaType, in.Image.Size())
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	for _, image := range []string{
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg==",
		"https://example.com/cat.png",
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "describe", Arguments: map[string]any{"image": image}})
		if err != nil {
			panic(err)
		}
		fmt.Printf("isError=%v: %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// isError=false: image/png, 70 bytes
	// isError=true: Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.
}

// The request body limit for a server follows from the file sizes its
// tools declare: a 5 MiB file is about 7 MB of base64.
func ExampleMaxRequestBytes() {
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	limit, err := runtime.MaxRequestBytes(bigArgs{}.MCPSchema())
	if err != nil {
		panic(err) // the schema is generated: a bug, not bad input
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: limit})
	_ = handler // http.ListenAndServe("127.0.0.1:8080", handler)

	// Over stdio each message is one line, up to 16 MiB by default.
	_ = &mcp.StdioTransport{MaxLineLength: int(max(limit, mcp.DefaultMaxLineLength))}
	fmt.Println(limit)
	// Output:
	// 7056579
}
