package transfer_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

// TestReadFileTTL: an uploaded file a call read is deleted ReadFileTTL
// after the last call that read it returned, not FileTTL after its
// upload, and its bytes then leave the owner's quota; a call that reads
// it again before then puts the deletion off.
func TestReadFileTTL(t *testing.T) {
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := uploadsServer(t, transfer.Options{Store: st, Quota: 10000, ReadFileTTL: 5 * time.Minute})
	timers := transfer.FakeReadTimers(s)
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs := inMemory(t, s, nil, "")
	six := bytes.Repeat([]byte("x"), 6000)
	uri := uploadFile(t, t.Context(), cs, "a.txt", "text/plain", six)
	if len(*timers) != 0 {
		t.Fatalf("%d deletions set before any call read the file, want none", len(*timers))
	}

	if text, isErr := callText(t, cs, "analyze", map[string]any{"document": uri}); isErr {
		t.Fatal(text)
	}
	if len(*timers) != 1 || (*timers)[0].D != 5*time.Minute || (*timers)[0].Stopped {
		t.Fatalf("after the first call that read the file: timers %+v, want one of 5m, running", *timers)
	}
	if text, isErr := callText(t, cs, "analyze", map[string]any{"document": uri}); isErr {
		t.Fatalf("the file again before its deletion: %s", text)
	}
	if len(*timers) != 2 || !(*timers)[0].Stopped || (*timers)[1].Stopped {
		t.Fatalf("after a second call read the file: timers %+v, want the first stopped and a second running", *timers)
	}
	(*timers)[0].Fire() // a stale timer that fires anyway deletes nothing
	if text, isErr := callText(t, cs, "analyze", map[string]any{"document": uri}); isErr {
		t.Fatalf("the file after a stopped timer fired: %s", text)
	}
	if _, err := authorize(t.Context(), cs, declare("b.txt", "text/plain", six)); !isQuotaExceeded(err) {
		t.Fatalf("a second 6000 bytes while the first file lives: %v, want quotaExceeded", err)
	}

	last := (*timers)[len(*timers)-1]
	last.Fire()
	if _, err := authorize(t.Context(), cs, declare("b.txt", "text/plain", six)); err != nil {
		t.Errorf("a second 6000 bytes after the read file's time ran out: %v, want the quota back", err)
	}
	text, isErr := callText(t, cs, "analyze", map[string]any{"document": uri})
	if !isErr || !strings.Contains(text, "no upload has completed") {
		t.Errorf("the file after its time ran out = %q (isError %v), want no upload completed", text, isErr)
	}
}

// TestReadFileTTLOff: a negative ReadFileTTL leaves files read to FileTTL.
func TestReadFileTTLOff(t *testing.T) {
	s := uploadsServer(t, transfer.Options{ReadFileTTL: -1})
	timers := transfer.FakeReadTimers(s)
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	cs := inMemory(t, s, nil, "")
	uri := uploadFile(t, t.Context(), cs, "a.txt", "text/plain", []byte("hello"))
	if text, isErr := callText(t, cs, "analyze", map[string]any{"document": uri}); isErr {
		t.Fatal(text)
	}
	if len(*timers) != 0 {
		t.Errorf("ReadFileTTL -1: %d deletions set after a call read the file, want none", len(*timers))
	}
}
