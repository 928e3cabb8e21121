package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

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

// A host declares files.download, so that a tool hands its output files
// back as file blocks, reads them through WrapTransport, and saves each
// one, verified against the size and digest the server declared. (It
// needs a server at the endpoint, so it is compiled, not run.)
func ExampleDownload() {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": client.FilesCapability()}},
	})
	if err := client.Enable(c); err != nil { // before Connect
		log.Fatal(err)
	}
	t := client.WrapTransport(&mcp.StreamableClientTransport{Endpoint: "https://tools.example.com/mcp"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "render_report", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range res.Content {
		l, ok := b.(*mcp.ResourceLink)
		if !ok {
			continue
		}
		fv, ok := client.FileOf(l) // a file block
		if !ok {
			continue
		}
		d, err := client.AuthorizeDownload(ctx, cs, fv.URI)
		if err != nil {
			log.Fatal(err)
		}
		tmp, err := os.CreateTemp(".", "download-*")
		if err != nil {
			log.Fatal(err)
		}
		got, err := client.Download(ctx, d, tmp, nil)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil { // keep no partial or unverified file
			os.Remove(tmp.Name())
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes, sha-256 verified, in %s\n", fv.Name, got.Size, tmp.Name())
	}
}

// An agent calls a tool with a local file for its file field: CallTool
// checks the file against the field's x-mcp-file (accept, maxSize,
// transferModes) before anything is sent, sends it inline or uploads it,
// and calls the tool; Outputs and Save keep the files the tool returns,
// verified. (It needs a server at the endpoint, so it is compiled, not
// run.)
func ExampleCallTool() {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": client.FilesCapability()}},
	})
	if err := client.Enable(c); err != nil { // before Connect
		log.Fatal(err)
	}
	t := client.WrapTransport(&mcp.StreamableClientTransport{Endpoint: "https://tools.example.com/mcp"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	tool, err := client.FindTool(ctx, cs, "analyze_document")
	if err != nil {
		log.Fatal(err)
	}
	res, err := client.CallTool(ctx, cs, tool,
		map[string]any{"title": "Q3 report"},
		map[string][]client.LocalFile{"document": {{Path: "report.pdf"}}},
		&client.CallOptions{Sent: func(f client.SentFile) {
			fmt.Printf("sent %s for %s (uploaded: %v)\n", f.Path, f.Field, f.Uploaded)
		}})
	if errors.Is(err, client.ErrArguments) {
		log.Fatal(err) // such as: argument "document" takes files of at most 10485760 bytes (maxSize); …
	} else if err != nil {
		log.Fatal(err)
	}
	for _, out := range client.Outputs(res) {
		path, err := client.Save(ctx, cs, out, ".", nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("saved", out, "as", path)
	}
}
