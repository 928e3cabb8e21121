package transfer_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

// callText calls the tool name with args and returns the text of the
// result's first block, and whether the result is an error.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) == 0 {
		return "", res.IsError
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		t.Fatalf("result content %T, want text", res.Content[0])
	}
	return tc.Text, res.IsError
}

// isQuotaExceeded reports whether err is files/authorizeUpload's refusal
// for the quota.
func isQuotaExceeded(err error) bool {
	d, ok := transfer.ErrorDataOf(err)
	return ok && d.Reason == transfer.ReasonQuotaExceeded
}

// TestReleaseGivesQuotaBack: a handler that releases the uploaded file it
// consumed gives its bytes back to the owner's quota at once, so that the
// next upload fits; releasing twice is not an error; the released file's
// URI then names no file.
func TestReleaseGivesQuotaBack(t *testing.T) {
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := uploadsServer(t, transfer.Options{Store: st, Quota: 10000})
	runtime.AddTool(s, &mcp.Tool{Name: "consume"}, func(ctx context.Context, _ *mcp.CallToolRequest, in testtypes.DocumentArgs) (*mcp.CallToolResult, any, error) {
		for i := range 2 {
			if err := in.Document.Release(ctx); err != nil {
				return nil, nil, err
			}
			if _, err := in.Document.Open(); err == nil {
				return nil, nil, context.Canceled // any error: Open after Release must fail
			} else if i == 0 && !strings.Contains(err.Error(), "not found") {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
	})
	cs := inMemory(t, s, nil, "")
	six := bytes.Repeat([]byte("x"), 6000)
	uri := uploadFile(t, t.Context(), cs, "a.txt", "text/plain", six)
	if _, err := authorize(t.Context(), cs, declare("b.txt", "text/plain", six)); !isQuotaExceeded(err) {
		t.Fatalf("authorize of a second 6000 bytes under a quota of 10000 before the first was released: %v, want quotaExceeded", err)
	}
	text, isErr := callText(t, cs, "consume", map[string]any{"document": uri})
	if isErr || text != "released" {
		t.Fatalf("consume = %q (isError %v), want released", text, isErr)
	}
	if _, err := authorize(t.Context(), cs, declare("b.txt", "text/plain", six)); err != nil {
		t.Errorf("authorize after the handler released the first file: %v, want the quota back", err)
	}
	text, isErr = callText(t, cs, "consume", map[string]any{"document": uri})
	if !isErr || !strings.Contains(text, "no upload has completed") {
		t.Errorf("the released file's URI again = %q (isError %v), want it refused as no upload completed", text, isErr)
	}
}

// TestReleaseInlineIsNoOp: an inline file has nothing stored, and its
// Release does nothing.
func TestReleaseInlineIsNoOp(t *testing.T) {
	f := runtime.NewFile("text/plain", []byte("hi"))
	if err := f.Release(t.Context()); err != nil {
		t.Fatalf("Release of an in-memory file = %v, want nil", err)
	}
	if string(f.Bytes()) != "hi" {
		t.Errorf("Release changed an in-memory file's bytes to %q", f.Bytes())
	}
	if err := (runtime.File{}).Release(t.Context()); err != nil {
		t.Errorf("Release of the zero File = %v, want nil", err)
	}
}

// TestReleaseSaved: a handler releases a file it saved, by its URI, and
// the caller's quota has its bytes back; a URI this server did not issue
// to the caller is refused, and releasing twice is not an error.
func TestReleaseSaved(t *testing.T) {
	st, err := diskstore.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := uploadsServer(t, transfer.Options{Store: st, Quota: 10000})
	runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
	type uriArgs struct {
		URI string `json:"uri"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "make"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "r.txt", MediaType: "text/plain", Data: bytes.Repeat([]byte("r"), 6000)})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v.URI}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "drop"}, func(ctx context.Context, _ *mcp.CallToolRequest, in uriArgs) (*mcp.CallToolResult, any, error) {
		if err := transfer.Release(ctx, in.URI); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "dropped"}}}, nil, nil
	})
	cs := inMemory(t, s, nil, "")
	uri, _ := callText(t, cs, "make", map[string]any{})
	six := bytes.Repeat([]byte("x"), 6000)
	if _, err := authorize(t.Context(), cs, declare("b.txt", "text/plain", six)); !isQuotaExceeded(err) {
		t.Fatalf("authorize of 6000 bytes beside a saved file of 6000 under a quota of 10000: %v, want quotaExceeded", err)
	}
	for i := range 2 {
		if text, isErr := callText(t, cs, "drop", map[string]any{"uri": uri}); isErr {
			t.Fatalf("release #%d of a saved file: %s", i+1, text)
		}
	}
	if _, err := authorize(t.Context(), cs, declare("b.txt", "text/plain", six)); err != nil {
		t.Errorf("authorize after the saved file was released: %v, want the quota back", err)
	}
	forged := uri[:len(uri)-4] + "AAAA"
	text, isErr := callText(t, cs, "drop", map[string]any{"uri": forged})
	if !isErr || !strings.Contains(text, "not a file URI this server issued to this caller") {
		t.Errorf("release of an altered URI = %q (isError %v), want it refused", text, isErr)
	}
}
