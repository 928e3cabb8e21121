package serve_test

import (
	"bytes"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/internal/observe/observetest"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// TestHandlerLogger: the Logger of serve.Options receives the transfer
// layer's records (an authorization, an upload, a refused argument) on a
// server whose transfer.Register was given no Logger, and not on one
// that was given its own, which keeps them; no record carries the file's
// bytes, a token or a file URI.
func TestHandlerLogger(t *testing.T) {
	doc := bytes.Repeat([]byte("a line of text\n"), 100)
	for _, tc := range []struct {
		name string
		own  bool // transfer.Options.Logger set
	}{{"no transfer logger", false}, {"a transfer logger", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var served, own observetest.Recorder
			to := transfer.Options{}
			if tc.own {
				to.Logger = own.Logger()
			}
			srv := transferServerWith(t, to, serve.Options{Logger: served.Logger()})
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
			if err := client.Enable(c); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, c, srv.URL+serve.DefaultPath, "2026-07-28")
			fv, err := client.Upload(t.Context(), cs, client.File{Name: "notes.txt", MediaType: "text/plain", Size: int64(len(doc)), Body: bytes.NewReader(doc)}, &client.Options{AllowHTTP: true})
			if err != nil {
				t.Fatalf("Upload: %v", err)
			}
			if res := mcptest.Call(t, cs, "document", map[string]any{"document": mcptest.DataURI("text/plain", doc)}); !res.IsError {
				t.Fatalf("document with a data: URI on an upload-only argument: %q, want a refusal", mcptest.Text(t, res))
			}
			want, other := &served, &own
			if tc.own {
				want, other = &own, &served
			}
			for _, msg := range []string{"authorized", "upload", "refused"} {
				if len(want.Find(msg)) == 0 {
					t.Errorf("no %q record in the logger that should have them; it has %d records", msg, len(want.Records()))
				}
				if n := len(other.Find(msg)); n != 0 {
					t.Errorf("%d %q records in the other logger", n, msg)
				}
			}
			for _, r := range []*observetest.Recorder{&served, &own} {
				for _, p := range r.Problems(doc, []byte(fv.URI)) {
					t.Error(p)
				}
			}
		})
	}
}
