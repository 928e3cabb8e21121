package mcpfileimpl

import (
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// escapeAll writes s as a JSON string token with every character a \u escape.
func escapeAll(s string) []byte {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		b.WriteString(`\u00`)
		b.WriteByte("0123456789abcdef"[c>>4])
		b.WriteByte("0123456789abcdef"[c&15])
	}
	b.WriteByte('"')
	return []byte(b.String())
}

// TestTransferErrorTexts: the errors of values that are neither kind of
// URI say what the field takes.
func TestTransferErrorTexts(t *testing.T) {
	tests := []struct {
		modes []string
		want  string
	}{
		{nil, `Argument 'document' is not a data: URI: received scheme "https:", only data: URIs are accepted.`},
		{[]string{"inline"}, `Argument 'document' is not a data: URI: received scheme "https:", only data: URIs are accepted.`},
		{[]string{"upload"}, `Argument 'document' is not a file URI: received scheme "https:", only the mcp-file: URIs of files/authorizeUpload are accepted.`},
		{[]string{"inline", "upload"}, `Argument 'document' is not a data: URI or a file URI: received scheme "https:", only data: URIs and the mcp-file: URIs of files/authorizeUpload are accepted.`},
	}
	for _, tt := range tests {
		_, err := decodeURI("document", "https://example.com/a.pdf", descriptor.File{TransferModes: tt.modes})
		if e, ok := err.(*runtime.Error); !ok || e.Error() != tt.want {
			t.Errorf("transferModes %v: %v\nwant %s", tt.modes, err, tt.want)
		}
	}
	// A file URI escaped beyond what is unescaped to look at it, sent to a
	// File field that takes uploads, is too long to be one of ours.
	long := "mcp-file://server/" + strings.Repeat("a", 520)
	_, err := decodeJSON("document", escapeAll(long), descriptor.File{})
	if e, ok := err.(*runtime.Error); !ok || e.Rule != runtime.RuleFileURI || !strings.Contains(e.Error(), "at most 512") {
		t.Errorf("long escaped file URI into a File field that takes uploads: %v", err)
	}
}
