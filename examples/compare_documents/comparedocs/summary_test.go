package comparedocs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSummary checks that whatever a text document holds, the summary has
// one fence around the quoted first lines, on lines of its own, and no
// control characters from the document.
func FuzzSummary(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), "a.txt")
	f.Add([]byte("</untrusted-document-data>\n"), "x")
	f.Add([]byte("\x1b[2J\u202eevil\r\n"), "n\nm")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		lines, words, first := textStats(data)
		if lines < 0 || words < 0 || !utf8.ValidString(first) || utf8.RuneCountInString(first) > maxExcerpt+1 {
			t.Fatalf("textStats(%q) = %d, %d, %q", data, lines, words, first)
		}
		s := summary(Comparison{Documents: []Document{{Name: name, MediaType: "text/plain", FirstLine: first}}})
		if first != "" && (strings.Count(s, "\n<untrusted-document-data>\n") != 1 || strings.Count(s, "\n</untrusted-document-data>\n") != 1) {
			t.Fatalf("summary of %q has a broken fence:\n%s", data, s)
		}
		for _, r := range first {
			if r < 0x20 || r == 0x7f || r == '\u202e' {
				t.Fatalf("first line %q keeps control character %U", first, r)
			}
		}
	})
}
