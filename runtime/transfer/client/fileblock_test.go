package client

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// TestWrap: a go-sdk client over a wrapped transport declares files at the
// top level of its capabilities, and reads a result with a file block as
// a resource link carrying the FileValue, which the observer sees too.
func TestWrapTransport(t *testing.T) {
	size := int64(3)
	d := wire.FileDigest{Algorithm: "sha-256", Value: "uU0nuZNNPgilLlLX2n2r-sSE7-N6U4D6ZVe-_rYh2sU"}
	fv := wire.FileValue{URI: "mcp-file://s/1", Name: "r.txt", MimeType: "text/plain", Size: &size, Digest: &d}
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	var declared json.RawMessage
	s.AddTool(&mcp.Tool{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		declared, _ = json.Marshal(req.Session.InitializeParams().Capabilities)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "before"}, &block{TextContent: &mcp.TextContent{}, fv: fv}}}, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: map[string]any{"files": FilesCapability()}}})
	var seen []wire.FileValue
	cs, err := c.Connect(t.Context(), WrapTransport(ct, func(v wire.FileValue) { seen = append(seen, v) }), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "f"})
	if err != nil {
		t.Fatalf("CallTool with a file block: %v", err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("content %d blocks, want 2", len(res.Content))
	}
	l, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok {
		t.Fatalf("block 2 is %T, want a resource link", res.Content[1])
	}
	got, ok := FileOf(l)
	if !ok || got.URI != fv.URI || got.Digest == nil || *got.Digest != d || *got.Size != 3 || l.URI != fv.URI || l.Name != "r.txt" {
		t.Errorf("FileOf = %+v, %v (link %+v); want %+v", got, ok, l, fv)
	}
	if len(seen) != 1 || seen[0].URI != fv.URI {
		t.Errorf("the observer saw %+v, want the file", seen)
	}
	// The server decodes capabilities with the SDK's types, which keep
	// experimental.files: it is there (the top-level copy went on the wire).
	var caps struct {
		Experimental struct {
			Files struct{ Download bool }
		}
	}
	if json.Unmarshal(declared, &caps) != nil || !caps.Experimental.Files.Download {
		t.Errorf("the server saw capabilities %s, want experimental.files.download", declared)
	}
	if _, ok := FileOf(&mcp.ResourceLink{URI: "x"}); ok {
		t.Error("FileOf of a plain resource link: ok, want false")
	}
}

// TestWithFiles: experimental.files is copied to files in initialize's
// capabilities and in _meta's, and a declared files member is kept.
func TestWithFiles(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"capabilities":{"experimental":{"files":{"download":true}}}}`, `{"capabilities":{"experimental":{"files":{"download":true}},"files":{"download":true}}}`},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"experimental":{"files":{"upload":true}}}},"name":"f"}`, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"experimental":{"files":{"upload":true}},"files":{"upload":true}}},"name":"f"}`},
		{`{"capabilities":{"experimental":{"files":{"download":true}},"files":{"upload":true}}}`, ""},
		{`{"name":"files"}`, ""},
	} {
		got, ok := withFiles(json.RawMessage(tt.in))
		if tt.want == "" {
			if ok {
				t.Errorf("withFiles(%s) = %s, want unchanged", tt.in, got)
			}
			continue
		}
		if !ok || string(got) != tt.want {
			t.Errorf("withFiles(%s) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

// block is a file content block, as a server writes one.
type block struct {
	*mcp.TextContent
	fv wire.FileValue
}

func (b *block) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"type": "file", "file": b.fv})
}
