package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestFileBlockDownload: against a real server (transfer.Register) whose
// tool returns a file block, a go-sdk client over WrapTransport that
// declares FilesCapability gets the block as a resource link, and
// AuthorizeDownload, Download and DownloadRange fetch its bytes, verified.
// A tampered file URI is refused by the server, and the error carries
// its data.
func TestFileBlockDownload(t *testing.T) {
	report := bytes.Repeat([]byte("a line of the report\n"), 5000)
	k, err := token.NewKey("", bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(k)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	s := mcp.NewServer(&mcp.Implementation{Name: "reports", Version: "v1"}, nil)
	h, err := transfer.Register(s, transfer.Options{Keys: keys, PublicURL: ts.URL + "/files/", Store: memstore.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "report"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		v, err := transfer.Save(ctx, transfer.Output{Name: "report.txt", MediaType: "text/plain", Data: report})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}, nil, nil
	})
	mux.Handle("/files/", h)
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))

	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Experimental: map[string]any{"files": client.FilesCapability()}}})
	if err := client.Enable(c); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), client.WrapTransport(&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "report", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("result: isError %v, %d blocks; want one", res.IsError, len(res.Content))
	}
	l, ok := res.Content[0].(*mcp.ResourceLink)
	if !ok {
		t.Fatalf("the block is %T, want the file block as a resource link (was files.download declared?)", res.Content[0])
	}
	fv, ok := client.FileOf(l)
	if !ok || fv.Size == nil || *fv.Size != int64(len(report)) || fv.Digest == nil {
		t.Fatalf("FileOf = %+v, %v; want the file with size and digest", fv, ok)
	}

	d, err := client.AuthorizeDownload(t.Context(), cs, fv.URI)
	if err != nil {
		t.Fatalf("AuthorizeDownload: %v", err)
	}
	var w bytes.Buffer
	got, err := client.Download(t.Context(), d, &w, &client.DownloadOptions{AllowHTTP: true})
	if err != nil || !bytes.Equal(w.Bytes(), report) || got.Sum != sha256.Sum256(report) {
		t.Fatalf("Download = %+v, %v (%d bytes); want the report", got, err, w.Len())
	}
	if _, err := client.Download(t.Context(), d, new(bytes.Buffer), nil); err == nil {
		t.Error("Download over plain http without AllowHTTP: no error")
	}
	w.Reset()
	if n, err := client.DownloadRange(t.Context(), d, &w, 1000, 500, &client.DownloadOptions{AllowHTTP: true}); err != nil || n != 500 || !bytes.Equal(w.Bytes(), report[1000:1500]) {
		t.Errorf("DownloadRange = %d, %v; want bytes 1000-1499 of the report", n, err)
	}

	other := fv.URI[:len(fv.URI)-2] + "xx"
	if other == fv.URI {
		other = fv.URI[:len(fv.URI)-2] + "yy"
	}
	_, err = client.AuthorizeDownload(t.Context(), cs, other)
	if _, ok := transfer.ErrorDataOf(err); !ok || errors.Is(err, client.ErrBadAnswer) {
		t.Errorf("AuthorizeDownload of a tampered URI: %v, want the server's JSON-RPC error with data", err)
	}
}
