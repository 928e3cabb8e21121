// Command describe_image is an MCP server with one tool, describe_image, that
// takes an image file (PNG, JPEG, GIF or WebP, up to 5 MiB) as a data: URI
// and answers with its format, dimensions and SHA-256.
//
//	go run ./examples/describe_image                      # stdio
//	go run ./examples/describe_image -http 127.0.0.1:8080 # streamable HTTP
package main

import (
	"os"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/examples/serve"
)

func main() {
	os.Exit(serve.Main("describe_image", os.Args[1:], os.Stderr, describeimage.NewServer, describeimage.MaxRequestBytes))
}
