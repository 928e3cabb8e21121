// Package interop holds tests only: it proves the example servers against
// clients nobody in this project wrote (the official TypeScript SDK and the
// MCP Inspector CLI, pinned by package-lock.json beside this file), under
// concurrent load, and under hostile HTTP traffic.
//
// Run it with
//
//	npm ci --prefix interop
//	go test ./interop/...
//
// The node tests skip, saying why, when node or interop/node_modules is
// missing; set MCPFILE_INTEROP_REQUIRED=1 to make that a failure instead.
// See README.md in this folder for what is covered and the figures.
package interop
