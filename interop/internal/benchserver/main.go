// Command benchserver is examples/describe_image's describe_image tool
// with images of up to 24 MiB, for the benchmark that compares it with a
// TypeScript server doing the same work (interop/inline_bench_test.go): it
// serves over stdio, or streamable HTTP with -http ADDR, through
// runtime/serve, or with -sdk through the go-sdk's own transport and
// handler, as a server without runtime/serve would. With -nohash, the
// tool answers the image's media type, size and dimensions without its
// SHA-256: what serving a file costs beside the example's own work.
package main

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen -type Args

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	_ "image/png" // the header reader of -nohash
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// Args is describeimage.Args with a larger maxSize.
type Args struct {
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=24MiB"`
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at `addr` (MCP at /mcp) instead of stdio")
	sdk := flag.Bool("sdk", false, "serve through the go-sdk's own transport and handler, not runtime/serve")
	nohash := flag.Bool("nohash", false, "answer without the image's SHA-256")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "describe_image", Version: "v0.1.0"}, nil)
	runtime.AddTool(s, describeimage.Tool, func(_ context.Context, _ *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, describeimage.Description, error) {
		if *nohash {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(in.Image.Bytes()))
			d := describeimage.Description{MediaType: in.Image.MediaType}
			d.Format, d.Width, d.Height, d.Size = format, cfg.Width, cfg.Height, in.Image.Size()
			return nil, d, err
		}
		d, err := describeimage.DescribeFile(in.Image)
		return nil, d, err
	})
	var err error
	switch {
	case *addr == "" && *sdk:
		err = s.Run(context.Background(), &mcp.StdioTransport{MaxLineLength: int(serve.RequestLimit(s, serve.Options{}))})
	case *addr == "":
		err = serve.Stdio(context.Background(), s, serve.Options{})
	case *sdk:
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: serve.RequestLimit(s, serve.Options{})})
		mux := http.NewServeMux()
		mux.Handle(serve.DefaultPath, h)
		err = http.ListenAndServe(*addr, mux)
	default:
		err = serve.ListenAndServe(context.Background(), *addr, s, serve.Options{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
