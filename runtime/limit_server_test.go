package runtime_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
)

// TestMaxRequestBytesFor: a server's limit is the largest of its tools'
// requests, each with the forms its tools elicit, never below the SDK's
// default; a tool without files counts nothing.
func TestMaxRequestBytesFor(t *testing.T) {
	want := func(schemas ...json.RawMessage) int64 {
		t.Helper()
		n, err := runtime.RequestBytes(schemas...)
		if err != nil {
			t.Fatal(err)
		}
		return max(n, mcp.DefaultMaxRequestBodyBytes)
	}
	newServer := func() *mcp.Server {
		return mcp.NewServer(&mcp.Implementation{Name: "limits", Version: "v0"}, nil)
	}
	plain := newServer()
	mcp.AddTool(plain, &mcp.Tool{Name: "plain"}, func(context.Context, *mcp.CallToolRequest, struct{ S string }) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	tools := newServer()
	runtime.AddTool(tools, &mcp.Tool{Name: "describe"}, describe)
	runtime.AddTool(tools, &mcp.Tool{Name: "digest"}, digest)

	tests := []struct {
		name  string
		s     *mcp.Server
		forms []json.RawMessage
		want  int64
	}{
		{"no tools", newServer(), nil, mcp.DefaultMaxRequestBodyBytes},
		{"a tool without files", plain, nil, mcp.DefaultMaxRequestBodyBytes},
		{"the largest tool", tools, nil, want(bigSchema)},
		{"the largest tool with every form", tools, []json.RawMessage{photoSchema, photoSchema}, want(bigSchema, photoSchema, photoSchema)},
	}
	for _, tt := range tests {
		got, err := runtime.MaxRequestBytesFor(tt.s, tt.forms...)
		if err != nil || got != tt.want {
			t.Errorf("%s: MaxRequestBytesFor = %d, %v, want %d", tt.name, got, err, tt.want)
		}
	}
	if _, err := runtime.MaxRequestBytesFor(tools, json.RawMessage(`[]`)); err == nil {
		t.Error("MaxRequestBytesFor(a form that is not an object schema) = nil error")
	}
}
