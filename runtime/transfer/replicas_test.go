package transfer_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
)

// TestTwoReplicas: two servers sharing a key and a store directory, as
// replicas behind one public name: authorize on one, upload to the other,
// call the tool on either.
func TestTwoReplicas(t *testing.T) {
	dir := t.TempDir()
	keys := testKeys(t)
	var servers [2]*mcp.Server
	var uploadURLs [2]string
	for i := range servers {
		st, err := diskstore.New(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		ts := httptest.NewServer(mux)
		t.Cleanup(ts.Close)
		s := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "v1"}, nil)
		h, err := transfer.Register(s, transfer.Options{Keys: keys, Store: st, PublicURL: ts.URL + "/files/", Host: "files.example.com"})
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("/files/", h)
		runtime.AddTool(s, &mcp.Tool{Name: "analyze"}, readAll[testtypes.DocumentArgs](func(in testtypes.DocumentArgs) runtime.File { return in.Document }))
		servers[i], uploadURLs[i] = s, ts.URL+"/files/upload"
	}
	a, b := inMemory(t, servers[0], nil, ""), inMemory(t, servers[1], nil, "")
	text := bytes.Repeat([]byte("shared by two replicas\n"), 1000)
	res, err := authorize(t.Context(), a, declare("r.txt", "text/plain", text))
	if err != nil {
		t.Fatal(err)
	}
	up := res.Upload
	up.URL = uploadURLs[1] // the load balancer sent the upload to the other replica
	if code := send(t, up, text); code != http.StatusCreated {
		t.Fatalf("upload to replica 2: %d", code)
	}
	sum := sha256.Sum256(text)
	want := "text/plain " + itoa(int64(len(text))) + " bytes sha256:" + hex.EncodeToString(sum[:]) + " name:r.txt"
	for i, cs := range []*mcp.ClientSession{a, b} {
		if out := mcptest.Text(t, mcptest.Call(t, cs, "analyze", map[string]any{"document": res.File.URI})); out != want {
			t.Errorf("replica %d answered %q, want %q", i+1, out, want)
		}
	}
	// The token is spent on both: replica 1 refuses the replay.
	up.URL = uploadURLs[0]
	if code := send(t, up, text); code != http.StatusConflict {
		t.Errorf("replay on replica 1: %d, want 409", code)
	}
}
