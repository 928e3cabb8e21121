// Command compare_documents is an MCP server with one tool,
// compare_documents, that takes two to five PDF or text files (up to 2 MiB
// each) as data: URIs, with their file names in a companion argument, and
// compares them.
//
//	go run ./examples/compare_documents                      # stdio
//	go run ./examples/compare_documents -http 127.0.0.1:8080 # streamable HTTP at http://127.0.0.1:8080/mcp
package main

import (
	"os"

	"github.com/mcpfile/mcpfile/examples/compare_documents/comparedocs"
	"github.com/mcpfile/mcpfile/examples/internal/cli"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

func main() {
	os.Exit(cli.Main("compare_documents", os.Args[1:], os.Stderr, comparedocs.NewServer, serve.Options{}))
}
