package transfer_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
)

// A recordingStore is a Store that remembers the ID of the last object
// created in it: the test's way to the object a sealed file URI names.
type recordingStore struct {
	store.Store
	mu   sync.Mutex
	last string
}

func (s *recordingStore) Create(ctx context.Context, id string, m store.Meta) (store.Writer, error) {
	s.mu.Lock()
	s.last = id
	s.mu.Unlock()
	return s.Store.Create(ctx, id, m)
}

func (s *recordingStore) lastID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// replace puts b in s under id in place of what is there, with the same
// metadata but for the bytes, as someone with write access to the store
// would, behind the server's back.
func replace(t *testing.T, s store.Store, id string, b []byte) {
	t.Helper()
	ctx := t.Context()
	m, err := s.Stat(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	m.Size, m.SHA256 = int64(len(b)), [32]byte{}
	w, err := s.Create(ctx, id, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestReplacedFileRefused: a file replaced in the store after its upload,
// with other bytes, is refused wherever its file URI is used (tools/call,
// files/authorizeDownload), naming the argument, and the handler never
// sees it: by its SHA-256 when the upload declared one, and by its size.
func TestReplacedFileRefused(t *testing.T) {
	for _, kind := range []string{"memstore", "diskstore"} {
		t.Run(kind, func(t *testing.T) {
			var st store.Store = memstore.New(nil)
			if kind == "diskstore" {
				ds, err := diskstore.New(t.TempDir(), nil)
				if err != nil {
					t.Fatal(err)
				}
				st = ds
			}
			rs := &recordingStore{Store: st}
			s := uploadsServer(t, transfer.Options{Store: rs})
			runtime.AddTool(s, &mcp.Tool{Name: "blob"}, func(_ context.Context, _ *mcp.CallToolRequest, in testtypes.BigArgs) (*mcp.CallToolResult, any, error) {
				r, err := in.Blob.Open()
				if err != nil {
					return nil, nil, err
				}
				defer r.Close()
				b, err := io.ReadAll(r)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read " + string(b)}}}, nil, err
			})
			cs := inMemory(t, s, nil, "")
			original := []byte("hello, world")
			for _, tt := range []struct {
				name        string
				digest      bool
				replacement string
			}{
				{"declared digest, same size", true, "HELLO, WORLD"},
				{"declared digest, other size", true, "hello, world, again"},
				{"no digest, other size", false, "hello"},
			} {
				p := declare("a.txt", "text/plain", original)
				if !tt.digest {
					p.Digest = nil
				}
				res, err := authorize(t.Context(), cs, p)
				if err != nil {
					t.Fatal(err)
				}
				if code := send(t, res.Upload, original); code != 201 {
					t.Fatalf("%s: upload: %d", tt.name, code)
				}
				uri := res.File.URI
				if got := mcptest.Text(t, mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})); got != "read "+string(original) {
					t.Fatalf("%s: before the replacement: %q", tt.name, got)
				}
				replace(t, st, rs.lastID(), []byte(tt.replacement))

				call := mcptest.Call(t, cs, "blob", map[string]any{"blob": uri})
				text := mcptest.Text(t, call)
				if !call.IsError || !strings.Contains(text, "Argument 'blob'") || !strings.Contains(text, "replaced") || strings.Contains(text, tt.replacement) {
					t.Errorf("%s: tools/call after the replacement: isError %v, %q; want an error naming the argument and saying the file was replaced", tt.name, call.IsError, text)
				}
				_, err = authorizeDownload(t.Context(), cs, uri)
				if d, ok := transfer.ErrorDataOf(err); !ok || d.Reason != transfer.ReasonDigestMismatch {
					t.Errorf("%s: files/authorizeDownload after the replacement: %v, want -32602 %s", tt.name, err, transfer.ReasonDigestMismatch)
				}
			}
		})
	}
}
