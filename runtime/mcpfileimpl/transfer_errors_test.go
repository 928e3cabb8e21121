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

// TestTypeErrorTexts: a file field given a JSON value that is not a
// string is told what it takes, as its transfer modes say: an upload-only
// field takes an mcp-file: URI, not a data: URI. The generated decoder and
// the check of a plain string field say the same.
func TestTypeErrorTexts(t *testing.T) {
	tests := []struct {
		modes []string
		want  string
	}{
		{nil, `Argument 'document' has the wrong JSON type: received a number, want a data: URI string.`},
		{[]string{"inline"}, `Argument 'document' has the wrong JSON type: received a number, want a data: URI string.`},
		{[]string{"upload"}, `Argument 'document' has the wrong JSON type: received a number, want an mcp-file: URI string (from files/authorizeUpload).`},
		{[]string{"inline", "upload"}, `Argument 'document' has the wrong JSON type: received a number, want a data: URI or mcp-file: URI string.`},
	}
	for _, tt := range tests {
		d := descriptor.File{TransferModes: tt.modes}
		_, err := decodeJSON("document", []byte(`5`), d)
		if e, ok := err.(*runtime.Error); !ok || e.Error() != tt.want {
			t.Errorf("decodeJSON, transferModes %v: %v\nwant %s", tt.modes, err, tt.want)
		}
		_, err = validateJSON("document", []byte(`5`), d)
		if e, ok := err.(*runtime.Error); !ok || e.Error() != tt.want {
			t.Errorf("validateJSON, transferModes %v: %v\nwant %s", tt.modes, err, tt.want)
		}
	}
	_, err := scanArray("documents", []byte(`{}`), &descriptor.Prop{Kind: descriptor.Array, File: descriptor.File{TransferModes: []string{"upload"}}}, nil)
	want := `Argument 'documents' has the wrong JSON type: received an object, want an array of mcp-file: URI strings (from files/authorizeUpload).`
	if e, ok := err.(*runtime.Error); !ok || e.Error() != want {
		t.Errorf("scanArray, transferModes [upload]: %v\nwant %s", err, want)
	}
}
