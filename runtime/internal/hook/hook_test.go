package hook

import (
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

func count() int {
	n := 0
	servers.Range(func(any, any) bool { n++; return true })
	return n
}

// TestServerRecords: a server's record holds what was recorded for it, and
// goes when the program drops the server, so that a server made per
// session does not leak.
func TestServerRecords(t *testing.T) {
	before := count()
	s := mcp.NewServer(&mcp.Implementation{Name: "a", Version: "v1"}, nil)
	if Serves(s) {
		t.Fatal("a new server serves uploads")
	}
	Serve(s)
	schema := &descriptor.Schema{}
	AddSchema(s, schema)
	AddSchema(s, schema)
	if !Serves(s) || len(Schemas(s)) != 1 {
		t.Fatalf("Serves %v, %d schemas; want true, 1", Serves(s), len(Schemas(s)))
	}
	for range 100 {
		dropped := mcp.NewServer(&mcp.Implementation{Name: "b", Version: "v1"}, nil)
		Serve(dropped)
	}
	runtime.KeepAlive(s)
	deadline := time.Now().Add(10 * time.Second)
	for count() > before+1 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := count(); n > before+1 {
		t.Errorf("%d server records after the servers were dropped, want %d", n, before+1)
	}
	if !Serves(s) {
		t.Error("the live server's record was dropped")
	}
}
