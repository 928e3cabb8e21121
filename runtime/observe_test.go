package runtime_test

import (
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
)

// everyRecord keeps every record the package's tests write (through the
// default logger, as a server without transfer.Register's logger does).
var everyRecord observetest.Recorder

// TestMain runs the tests with everyRecord as the default logger, and
// fails when a record of the whole run, hostile arguments included,
// holds a file URI, a URL with a path or what may be a token.
func TestMain(m *testing.M) {
	slog.SetDefault(everyRecord.Logger())
	code := m.Run()
	for _, p := range everyRecord.Problems() {
		fmt.Fprintln(os.Stderr, "log record breaks the rule:", p)
		code = max(code, 1)
	}
	os.Exit(code)
}

// TestRecordsRefusals: a file refused in an elicitation's answer and a
// tool call refused for its arguments are each recorded, with the rule
// and the argument, and none with the file.
func TestRecordsRefusals(t *testing.T) {
	tooBig := append(mcptest.PNG(t, 1, 1, false), []byte("SECRET bytes past the limit of the photo field")...)
	tooBig = append(tooBig, make([]byte, 2048)...)
	a := &answerer{answers: []*mcp.ElicitResult{accept(mcptest.DataURI("image/png", tooBig)), {Action: "decline"}}}
	var calls atomic.Int32
	elicited := len(everyRecord.Find("refused", "op", "elicitation", "reason", "maxSize", "arg", "photo"))
	called := len(everyRecord.Find("refused", "op", "tools/call", "reason", "invalid", "tool", "create_profile"))
	cs := mcptest.Connect(t, profileServer(&calls), &mcp.ClientOptions{ElicitationHandler: a.handle}, "2025-11-25")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: map[string]any{"displayName": "Mona"}}); err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_profile", Arguments: map[string]any{"displayName": 5}}); err == nil && !res.IsError {
		t.Fatal("displayName 5: not refused")
	}
	if got := everyRecord.Find("refused", "op", "elicitation", "reason", "maxSize", "arg", "photo"); len(got) != elicited+1 {
		t.Errorf("%d records of the refused answer, want 1", len(got)-elicited)
	} else if r := got[len(got)-1]; r.Attrs["limit"].Int64() != 2048 || r.Attrs["received"].Int64() != int64(len(tooBig)) {
		t.Errorf("record %s: want received %d and limit 2048", r.Text, len(tooBig))
	}
	if got := everyRecord.Find("refused", "op", "tools/call", "reason", "invalid", "tool", "create_profile"); len(got) != called+1 {
		t.Errorf("%d records of the refused call, want 1", len(got)-called)
	}
	for _, p := range everyRecord.Problems(tooBig) {
		t.Error(p)
	}
}
