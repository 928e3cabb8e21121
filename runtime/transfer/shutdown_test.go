package transfer_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// TestShutdownRefusesPages: after transfer.Shutdown, a call that asks for
// an upload page gets none, and an error that says why and what to do; a
// server without transfers takes Shutdown as a no-op.
func TestShutdownRefusesPages(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	transfer.Shutdown(s)
	transfer.Shutdown(s) // twice is once
	var p person
	cs := inMemory(t, s, urlClient("accept", &p, nil), "2025-11-25")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := mcptest.Text(t, res); !res.IsError || !strings.Contains(text, "the server is shutting down") {
		t.Errorf("ask after Shutdown: isError=%v %q, want an error that the server is shutting down", res.IsError, text)
	}
	if n := len(p.pages()); n != 0 {
		t.Errorf("%d pages shown after Shutdown", n)
	}
	transfer.Shutdown(mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil))
}
