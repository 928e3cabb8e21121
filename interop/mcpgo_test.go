package interop

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTypeScriptSDKMCPGo drives the describe_image example on
// mark3labs/mcp-go (runtime/mcpgo/examples/describe_image, in a module of
// its own) with the TypeScript clients and the checks of
// TestTypeScriptSDK: tools/list carries each tool's inputSchema as the
// go-sdk example declares it, valid files are answered, and every
// violation comes back as isError with the go-sdk server's text.
func TestTypeScriptSDKMCPGo(t *testing.T) {
	node := requireNode(t)
	declared := declaredTools(t, buildExamples(t)["describe_image"])
	bin := filepath.Join(t.TempDir(), "describe_image_mcpgo")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "-C", filepath.Join("..", "runtime", "mcpgo"), "build", "-o", bin, "./examples/describe_image")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, out)
	}
	for _, c := range tsClients {
		t.Run(c.name, func(t *testing.T) {
			base := plan{SDK: c.sdk, Negotiate: c.negotiate, Transport: c.transport}
			if c.transport == "stdio" {
				base.Command = bin
			} else {
				base.URL = startHTTP(t, bin) + "mcp"
			}
			tools, version := checkToolsList(t, node, base, declared)
			if c.negotiate == "2026-07-28" && version != c.negotiate {
				t.Fatalf("negotiated protocol %q, want %q", version, c.negotiate)
			}
			for _, tool := range tools {
				if fs := fileArgs(tool.InputSchema); len(fs) > 0 {
					checkCalls(t, node, base, tool, fs[0])
				}
			}
		})
	}
}
