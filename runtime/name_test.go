package runtime

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestSanitizeNameDevices checks that no result is a Windows device name.
func TestSanitizeNameDevices(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CON", "_CON"},
		{"con", "_con"},
		{"Con.tar.gz", "_Con.tar.gz"},
		{"nul.txt", "_nul.txt"},
		{"NUL.txt", "_NUL.txt"},
		{"prn.pdf", "_prn.pdf"},
		{"AuX.c", "_AuX.c"},
		{"COM1", "_COM1"},
		{"com0.log", "_com0.log"},
		{"COM9.txt", "_COM9.txt"},
		{"LPT1", "_LPT1"},
		{"lpt0.txt", "_lpt0.txt"},
		{"LPT9.doc", "_LPT9.doc"},
		{"COM¹.txt", "_COM¹.txt"},
		{"com².txt", "_com².txt"},
		{"LPT³", "_LPT³"},
		{"CONIN$", "_CONIN$"},
		{"conout$.txt", "_conout$.txt"},
		// Windows drops trailing spaces and dots: these are devices too.
		{"CON.", "_CON"},
		{"con .txt", "_con .txt"},
		{"NUL  .txt", "_NUL  .txt"},
		{"nul..txt", "_nul..txt"},
		{"NUL. .txt", "_NUL. .txt"},
		{"  aux  ", "_aux"},
		{"dir/COM1.txt", "_COM1.txt"},
		{`C:\x\lpt1`, "_lpt1"},
		// Characters SanitizeName drops do not hide a device name.
		{"C\u200bON.txt", "_CON.txt"},
		{"N\u202eUL", "_NUL"},
		// Not devices.
		{"CONSOLE.txt", "CONSOLE.txt"},
		{"COM10.txt", "COM10.txt"},
		{"LPT", "LPT"},
		{"COM", "COM"},
		{"COM1x.txt", "COM1x.txt"},
		{"COM⁴.txt", "COM⁴.txt"},
		{"_CON.txt", "_CON.txt"},
		{".con", ".con"},
		{"x.CON", "x.CON"},
		{"CON:stream", "CON_stream"},
		{"ＣＯＮ.txt", "ＣＯＮ.txt"},
	}
	for _, tt := range tests {
		if got := SanitizeName(tt.in); got != tt.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSanitizeNameInvisible checks that format characters (zero-width,
// bidirectional and the like), controls and line separators are dropped.
func TestSanitizeNameInvisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{"in\u200bvoice.pdf", "invoice.pdf"},
		{"in\u200cvoice.pdf", "invoice.pdf"},
		{"in\u200dvoice.pdf", "invoice.pdf"},
		{"\ufeffinvoice.pdf", "invoice.pdf"},
		{"invoice\u2060.pdf", "invoice.pdf"},
		{"in\u00advoice.pdf", "invoice.pdf"},       // soft hyphen
		{"in\u180evoice.pdf", "invoice.pdf"},       // Mongolian vowel separator
		{"in\u2061\u2064voice.pdf", "invoice.pdf"}, // invisible operators
		{"in\ufff9voice.pdf", "invoice.pdf"},       // interlinear annotation
		{"invoice\U000e0041.pdf", "invoice.pdf"},   // a tag character
		{"report\u202efdp.exe", "reportfdp.exe"},
		{"a\u2066b\u2069c\u200e\u200f\u061c.txt", "abc.txt"},
		{"two\u2028lines\u2029.txt", "twolines.txt"},
		{"c1\u0085\u009b.txt", "c1.txt"},
		{"\u200b\u200b", ""},
		{"\u200b.\u200b", ""},
		{"name.txt\u200b", "name.txt"},
		{"name.\u200btxt", "name.txt"},
		{"ok\u00a0name.txt", "ok\u00a0name.txt"}, // a no-break space is visible
		{"name.txt\u3000", "name.txt"},
		{"name.\u3000", "name"},
		{"日本語\u200d.txt", "日本語.txt"},
	}
	for _, tt := range tests {
		if got := SanitizeName(tt.in); got != tt.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSanitizeNameExtension checks that truncation keeps the extension,
// however long the name.
func TestSanitizeNameExtension(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct{ in, want string }{
		{a(300) + ".pdf", a(251) + ".pdf"},
		{a(300) + ".tar.gz", a(248) + ".tar.gz"},
		{a(10000) + ".pdf", a(251) + ".pdf"},
		{a(10000) + ".pdf...", a(251) + ".pdf"},
		{a(10000) + ".pdf\u200b\u200b", a(251) + ".pdf"},
		{strings.Repeat("\u200b", 2000) + a(300) + ".pdf", a(251) + ".pdf"},
		{a(300) + ".x" + a(20), a(255)}, // an extension of more than 16 bytes is not one
		{a(300) + "." + a(15), a(239) + "." + a(15)},
		{strings.Repeat("é", 200) + ".pdf", strings.Repeat("é", 125) + ".pdf"},
		{"CON" + strings.Repeat(" ", 300) + "x.txt", "_CON.txt"},
		{"CON." + a(300), "_CON." + a(250)},
		{strings.Repeat(". ", 200) + "x.txt", ".txt"}, // the stem is all dots and spaces
		{a(300) + "..gz", a(252) + ".gz"},
		{a(300) + ". x.gz", a(252) + ".gz"}, // a part with a space is not one
	}
	for _, tt := range tests {
		got := SanitizeName(tt.in)
		if got != tt.want {
			t.Errorf("SanitizeName(%.40q…) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > maxNameLen {
			t.Errorf("SanitizeName(%.40q…) is %d bytes", tt.in, len(got))
		}
	}
}

// FuzzSanitizeName checks the promises of SanitizeName on any input.
func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{
		"report.pdf", "../../etc/passwd", "CON", "nul.txt", "Con.tar.gz", "COM¹.txt", "con .txt",
		"in\u200bvoice.pdf", "a\u202egnp.exe", strings.Repeat("é", 200) + ".pdf",
		"CON" + strings.Repeat(" ", 300) + "x.txt", strings.Repeat("a", 2000) + ".tar.gz",
		"name.\u3000", "\xff\xfe", "...", " . ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := SanitizeName(in)
		if again := SanitizeName(got); again != got {
			t.Fatalf("SanitizeName(%q) = %q, but SanitizeName of that is %q", in, got, again)
		}
		if got == "" {
			return
		}
		if len(got) > maxNameLen || !utf8.ValidString(got) {
			t.Fatalf("SanitizeName(%q) = %q: %d bytes, valid UTF-8 %v", in, got, len(got), utf8.ValidString(got))
		}
		if strings.ContainsAny(got, "/\\<>:\"|?*") || strings.Trim(got, ".") == "" {
			t.Fatalf("SanitizeName(%q) = %q", in, got)
		}
		if isDeviceName(got) {
			t.Fatalf("SanitizeName(%q) = %q, a device name", in, got)
		}
		for _, r := range got {
			if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
				t.Fatalf("SanitizeName(%q) = %q holds %U", in, got, r)
			}
		}
		first, _ := utf8.DecodeRuneInString(got)
		last, _ := utf8.DecodeLastRuneInString(got)
		if unicode.IsSpace(first) || unicode.IsSpace(last) || last == '.' {
			t.Fatalf("SanitizeName(%q) = %q: leading or trailing space or dot", in, got)
		}
		// A short name keeps its extension.
		if i := strings.LastIndexByte(in, '.'); i > 0 && len(in) > 2*maxNameLen && len(in) <= 4*maxNameLen {
			ext := in[i:]
			if len(ext) <= 8 && strings.Trim(ext[1:], "abcdefghijklmnopqrstuvwxyz0123456789") == "" && len(ext) > 1 && !strings.HasSuffix(got, ext) {
				t.Fatalf("SanitizeName(%.60q…) = %q lost the extension %q", in, got, ext)
			}
		}
	})
}
