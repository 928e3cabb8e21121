package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// An agent uploads a PDF out of band and passes its file URI to a tool,
// where it would otherwise send the whole file as a data: URI. (It needs
// a server at the endpoint, so it is compiled, not run.)
func Example() {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	if err := client.Enable(c); err != nil { // before Connect
		log.Fatal(err)
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "https://tools.example.com/mcp"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	f, err := client.UploadPath(ctx, cs, "report.pdf", "application/pdf", nil)
	if d, ok := transfer.ErrorDataOf(err); ok && d.Reason == transfer.ReasonMaxSizeExceeded {
		log.Fatalf("the server takes files of up to %d bytes", *d.MaxSize)
	} else if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:      "analyze_document",
		Arguments: map[string]any{"document": f.URI},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content)
}
