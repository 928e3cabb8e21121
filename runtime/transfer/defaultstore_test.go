package transfer_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// TestDefaultStorePerKey: servers on the default store with another
// signing key, as a process started with another key is, start empty:
// they do not inherit the usage of files their URIs could never open.
// Servers with the same key share the store.
func TestDefaultStorePerKey(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	server := func(keyByte byte) *mcp.ClientSession {
		mux := http.NewServeMux()
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		s := mcp.NewServer(&mcp.Implementation{Name: "uploads", Version: "v1"}, nil)
		h, err := transfer.Register(s, transfer.Options{Keys: testKeysByte(t, keyByte), PublicURL: ts.URL + "/files/", Quota: 10000}) // Store nil: the default
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("/files/", h)
		runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
		return inMemory(t, s, nil, "")
	}
	six := bytes.Repeat([]byte("x"), 6000)
	uploadFile(t, t.Context(), server(7), "a.txt", "text/plain", six)
	if _, err := authorize(t.Context(), server(8), declare("b.txt", "text/plain", six)); err != nil {
		t.Errorf("a server with another key on the default store: %v, want it to start empty", err)
	}
	if _, err := authorize(t.Context(), server(7), declare("b.txt", "text/plain", six)); !isQuotaExceeded(err) {
		t.Errorf("another server with the first key on the default store: %v, want quotaExceeded (the files are its key's)", err)
	}
}
