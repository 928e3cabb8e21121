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
// The node tests skip when node or interop/node_modules is missing, and
// say so even without -v (the repository's .ci/test lists them at the end
// of its output); under CI=true they fail instead (see internal/prereq).
// See README.md in this folder for what is covered and the figures.
package interop
