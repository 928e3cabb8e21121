package mcpgo_test

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
)

// A tool whose argument type mcpfilegen generated (describeimage.Args:
// an image of at most 5 MiB, PNG, JPEG, GIF or WebP) on an mcp-go server,
// called by mcp-go's in-process client with a valid PNG and with a URL.
func ExampleAddTool() {
	s := server.NewMCPServer("images", "v1.0.0")
	mcpgo.AddTool(s, mcp.NewTool("describe_image", mcp.WithDescription("Describe an image.")),
		func(_ context.Context, _ mcp.CallToolRequest, in describeimage.Args) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprintf("%d bytes of %s", in.Image.Size(), in.Image.MediaType)), nil
		})

	ctx := context.Background()
	c, _ := client.NewInProcessClient(s)
	defer c.Close()
	c.Start(ctx)
	var initialize mcp.InitializeRequest
	initialize.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	initialize.Params.ClientInfo = mcp.Implementation{Name: "example", Version: "v1"}
	if _, err := c.Initialize(ctx, initialize); err != nil {
		fmt.Println(err)
		return
	}
	for _, image := range []string{
		"data:image/png;base64," + onePixelPNG,
		"https://example.com/cat.png",
	} {
		var req mcp.CallToolRequest
		req.Params.Name = "describe_image"
		req.Params.Arguments = map[string]any{"image": image}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("isError=%v: %s\n", res.IsError, res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// isError=false: 70 bytes of image/png
	// isError=true: Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.
}
