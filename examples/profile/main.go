// Command profile is an MCP server with one tool, create_profile, that asks
// the user for a profile photo through elicitation (form mode, with an
// x-mcp-file field) when the call does not carry one, and validates it.
// It serves clients on protocol 2026-07-28 (the photo comes back in the
// retried call) and older ones (elicitation/create).
//
//	go run ./examples/profile                      # stdio
//	go run ./examples/profile -http 127.0.0.1:8080 # streamable HTTP at http://127.0.0.1:8080/mcp
package main

import (
	"os"

	"github.com/mcpfile/mcpfile/examples/internal/cli"
	"github.com/mcpfile/mcpfile/examples/profile/profile"
)

func main() {
	os.Exit(cli.Main("profile", os.Args[1:], os.Stderr, profile.NewServer, profile.ServeOptions()))
}
