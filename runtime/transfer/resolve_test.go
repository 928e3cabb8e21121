package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// TestUploadedReaderAfterClose: the reader File.Open returns for an
// uploaded file answers Read after Close with fs.ErrClosed, as FileReader
// promises, whatever the store's own reader does.
func TestUploadedReaderAfterClose(t *testing.T) {
	s := uploadsServer(t, transfer.Options{})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BigArgs) (*mcp.CallToolResult, any, error) {
		r, err := in.Blob.Open()
		if err != nil {
			return nil, nil, err
		}
		r.Close()
		_, err = r.Read(make([]byte, 1))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(errors.Is(err, fs.ErrClosed))}}}, nil, nil
	})
	cs := inMemory(t, s, nil, "")
	uri := uploadFile(t, t.Context(), cs, "a.txt", "text/plain", []byte("hello"))
	if got := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})); got != "true" {
		t.Errorf("Read after Close of an uploaded file's reader: errors.Is(err, fs.ErrClosed) = %s, want true", got)
	}
}
