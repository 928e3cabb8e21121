package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: not cut in half
		{"héllo", 3, "hé"},
		{"日本", 4, "日"},
		{"日本", 2, ""},
		{"", 0, ""},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 12, `"short"`},
		{strings.Repeat("é", 10), 12, `"éééééé"…`},
		{strings.Repeat("x", 30), 24, `"` + strings.Repeat("x", 24) + `"…`},
		{"a\x00b", 12, `"a\x00b"`},
	} {
		if got := Quote(tc.in, tc.n); got != tc.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestPrintableASCII(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"text/plain; charset=utf-8", true},
		{" ~", true},
		{"a\tb", false},
		{"a\x7fb", false},
		{"é", false},
	} {
		if got := PrintableASCII(tc.in); got != tc.want {
			t.Errorf("PrintableASCII(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzCut: the cut is a prefix of at most n bytes, and valid UTF-8 stays
// valid.
func FuzzCut(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got := Cut(s, n)
		if len(got) > n || !strings.HasPrefix(s, got) {
			t.Fatalf("Cut(%q, %d) = %q", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q, not valid UTF-8", s, n, got)
		}
	})
}
