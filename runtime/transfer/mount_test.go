package transfer_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// TestEndpoints: a server's transfer endpoints are found once Register
// has made it serve them, with the path of the PublicURL to mount them at.
func TestEndpoints(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "mount", Version: "v1"}, nil)
	if path, h, ok := transfer.Endpoints(s); ok || path != "" || h != nil {
		t.Errorf("Endpoints before Register = %q, %v, %v; want none", path, h, ok)
	}
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://example.com/mcp files"}); err != nil {
		t.Fatal(err)
	}
	path, h, ok := transfer.Endpoints(s)
	if !ok || path != "/mcp files/" || h == nil {
		t.Fatalf("Endpoints after Register = %q, %v, %v; want \"/mcp files/\" and a handler", path, h, ok)
	}
	// The handler is the transfer one: it names its endpoints when asked
	// for something else.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://example.com/mcp%20files/nothing", nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "uploads go to") {
		t.Errorf("GET …/nothing: %d %q, want the transfer handler's 404", rec.Code, rec.Body)
	}
	other := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "v1"}, nil)
	if _, _, ok := transfer.Endpoints(other); ok {
		t.Error("Endpoints of another server found")
	}
}
