package client_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/transfer/client"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// TestSaveHostileNames: the name a server gives a file becomes a file in
// the directory that is visible (no leading dot, even once a long name is
// cut), valid UTF-8, and free of the characters that drive a terminal or
// show text other than it is (C0 and C1 controls, bidirectional
// controls).
func TestSaveHostileNames(t *testing.T) {
	for _, name := range []string{
		"aaaa." + strings.Repeat("b", 199), // cut to its last 200 bytes: ".bbb…"
		strings.Repeat("é", 150) + "x",     // cut inside a rune
		"report\u009b2J.txt",               // CSI, a C1 control
		"invoice\u202etxt.exe",             // right-to-left override
		"a\u2066b\u2069c\u200fd.txt",       // isolates, a right-to-left mark
		"bad\xffutf8.txt",
	} {
		dir := t.TempDir()
		path, err := client.Save(t.Context(), nil, client.Output{File: wire.FileValue{URI: "mcp-file://s/1", Name: name}, Data: []byte("x")}, dir, nil)
		if err != nil {
			t.Fatalf("Save(%q): %v", name, err)
		}
		base := path[len(dir)+1:]
		if strings.HasPrefix(base, ".") || !utf8.ValidString(base) || strings.IndexFunc(base, unsafeRune) >= 0 {
			t.Errorf("Save(%q) wrote %q: want a visible, printable UTF-8 name", name, base)
		}
	}
}

// TestOutputStringPrintable: an Output's one-line account, which a host
// prints, carries none of the server's control characters (an escape
// sequence would drive the terminal) nor bidirectional controls.
func TestOutputStringPrintable(t *testing.T) {
	size := int64(3)
	d := wire.FileValue{URI: "mcp-file://s/\x1b[2J", Name: "x\x1b]0;title\x07\u009b31m\u202eexe.txt", MimeType: "text/plain\x1b[1m", Size: &size}
	for _, out := range []client.Output{{File: d}, {File: wire.FileValue{URI: d.URI}}, {File: d, Data: []byte("abc")}} {
		if s := out.String(); strings.IndexFunc(s, unsafeRune) >= 0 {
			t.Errorf("String() = %q: want no control characters", s)
		}
	}
}

// unsafeRune reports a control character or a bidirectional control.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}
