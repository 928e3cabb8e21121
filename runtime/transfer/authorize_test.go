package transfer_test

import (
	"log"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/testtypes"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// TestMediaTypeExpandsPastTokenLimit: a declared mimeType within
// MaxMediaTypeLen whose parameter mime.FormatMediaType re-encodes (RFC
// 2231, three bytes per byte) passes every check of files/authorizeUpload
// and would then fail to sign: it is refused as malformed, -32602.
func TestMediaTypeExpandsPastTokenLimit(t *testing.T) {
	var logged strings.Builder
	s := uploadsServer(t, transfer.Options{ErrorLog: log.New(&logged, "", 0)})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")
	mt := `text/plain; title="` + strings.Repeat("é", 100) + `"` // 216 bytes
	n := int64(5)
	_, err := authorize(t.Context(), cs, &transfer.AuthorizeUploadParams{MimeType: mt, Size: &n})
	if d, ok := transfer.ErrorDataOf(err); !ok || d.Reason != transfer.ReasonMalformed || logged.Len() > 0 {
		t.Errorf("authorize(%d-byte mimeType) = %v, want -32602 malformed and nothing logged (logged %q)", len(mt), err, logged.String())
	}
}

// TestWildcardMediaType: files/authorizeUpload refuses a wildcard as the
// file's media type (mime.ParseMediaType allows '*' in a token) as
// malformed, -32602: no handler gets File.MediaType "*/*" over bytes of
// any kind.
func TestWildcardMediaType(t *testing.T) {
	s := uploadsServer(t, transfer.Options{})
	runtime.AddTool(s, &mcp.Tool{Name: "blob"}, readAll[testtypes.BigArgs](func(in testtypes.BigArgs) runtime.File { return in.Blob }))
	cs := inMemory(t, s, nil, "")
	for _, mt := range []string{"*/*", "image/*", "*/png"} {
		n := int64(5)
		_, err := authorize(t.Context(), cs, &transfer.AuthorizeUploadParams{MimeType: mt, Size: &n})
		if d, ok := transfer.ErrorDataOf(err); !ok || d.Reason != transfer.ReasonMalformed {
			t.Errorf("authorize(mimeType %q) = %v, want -32602 malformed", mt, err)
		}
	}
}
