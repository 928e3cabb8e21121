package transfer_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// TestFallbackLeavesResult: the fallback for a client without
// files.download is a copy of the handler's result: a handler that keeps
// its result (a cached answer) still gives the next client, which
// declared files.download, its file block.
func TestFallbackLeavesResult(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/"}); err != nil {
		t.Fatal(err)
	}
	var (
		once   sync.Once
		cached *mcp.CallToolResult
	)
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		var err error
		once.Do(func() {
			var v transfer.FileValue
			v, err = transfer.Save(ctx, transfer.Output{Name: "r.txt", MediaType: "text/plain", Data: []byte("report")})
			cached = &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}
		})
		return cached, nil, err
	})
	connect := func(tr mcp.Transport) *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		if tr == nil {
			tr = ct
		} else {
			tr.(*declaring).Transport = ct
		}
		return clientOn(t, tr, "2026-07-28")
	}
	plain := connect(nil)
	if _, err := plain.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	d := &declaring{}
	capable := connect(d)
	capable.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}})
	types, _ := contentTypes(t, d.last(t, `"content"`))
	if got := strings.Join(types, ","); got != "file" {
		t.Errorf("a files.download client after a plain one: content types %s, want file", got)
	}
}

// TestSaveDropsMediaTypeParams: a media type with a parameter that
// mime.ParseMediaType reads under the empty name (an RFC 2231
// continuation "*0=x"), which mime.FormatMediaType cannot write back, is
// refused rather than stored without its parameters.
func TestSaveDropsMediaTypeParams(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	if _, err := transfer.Register(s, transfer.Options{Keys: testKeys(t), Store: memstore.New(nil), PublicURL: "https://files.example.com/"}); err != nil {
		t.Fatal(err)
	}
	const declared = "text/plain; charset=utf-16le; *0=x"
	var got transfer.FileValue
	var saveErr error
	mcp.AddTool(s, &mcp.Tool{Name: "export"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		got, saveErr = transfer.Save(ctx, transfer.Output{Name: "u16.txt", MediaType: declared, Data: []byte("h\x00i\x00")})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs := clientOn(t, ct, "2025-11-25")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "export", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if saveErr == nil && !strings.Contains(got.MimeType, "charset=utf-16le") {
		t.Errorf("Save(MediaType %q) = MimeType %q: the charset was dropped without an error", declared, got.MimeType)
	}
}
