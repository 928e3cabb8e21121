package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestPage: describe_image_page hands a client without URL-mode
// elicitation the upload page as a link; the person uploads a PNG through
// it as a browser does, and the retry describes the image.
func TestPage(t *testing.T) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	key, _ := token.NewKey("k1", bytes.Repeat([]byte{3}, 32))
	keys, _ := token.NewKeyring(key)
	s, files, err := newServer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/"})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/mcp", files.HTTP(server.NewStreamableHTTPServer(s)))
	mux.Handle("/files/", files.Handler())

	tr, err := transport.NewStreamableHTTP(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithLegacyProtocolOnly())
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "v1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatal(err)
	}
	call := func() *mcp.CallToolResult {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = "describe_image_page"
		res, err := c.CallTool(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call()
	if len(res.Content) != 2 {
		t.Fatalf("describe_image_page: %+v, want a text and a resource_link", res.Content)
	}
	link, ok := res.Content[1].(mcp.ResourceLink)
	if !ok || res.IsError {
		t.Fatalf("describe_image_page: %+v, want the page's resource_link", res.Content)
	}
	p, err := mcptest.OpenUploadPage(nil, link.URI)
	if err != nil || p.Status != http.StatusOK || !strings.Contains(p.HTML, "Please choose the image to describe.") {
		t.Fatalf("GET the page: %d %v", p.Status, err)
	}
	png, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(onePixelPNG, "data:image/png;base64,"))
	code, body, err := mcptest.PagePost{Action: p.Action, Origin: mcptest.OriginOf(link.URI), Token: p.Token, Name: "dot.png", MediaType: "image/png", Body: png}.Post(nil)
	if err != nil || code != http.StatusCreated {
		t.Fatalf("post through the page: %d %v\n%s", code, err, body)
	}
	res = call()
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), `"format":"png"`) {
		t.Errorf("the retry: %s %+v, want the PNG described", b, res.Content)
	}
}
