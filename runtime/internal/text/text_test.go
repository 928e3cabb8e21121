package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 4, ""},
		{"abc", 4, "abc"},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd"},
		{"abcde", 0, ""},
		{"abcde", -1, ""},
		{"abcé", 4, "abc"},      // é is 2 bytes: not cut in half
		{"abcé", 5, "abcé"},     // exactly
		{"ab€x", 3, "ab"},       // € is 3 bytes
		{"ab€x", 4, "ab"},       // still inside it
		{"ab€x", 5, "ab€"},      // after it
		{"€€", 1, ""},           // no whole character fits
		{"\xff\xfe", 1, "\xff"}, // invalid bytes are characters of one byte
	} {
		got := Cut(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func FuzzCut(f *testing.F) {
	f.Add("abc€", 4)
	f.Add("\xe2\x82", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Cut(s, n)
		if len(got) > max(n, 0) && got != s || len(got) > len(s) || s[:len(got)] != got {
			t.Fatalf("Cut(%q, %d) = %q: not a prefix of at most %d bytes", s, n, got, n)
		}
		if len(got) < len(s) && len(got) > 0 && !utf8.RuneStart(s[len(got)]) {
			t.Fatalf("Cut(%q, %d) = %q: ends inside a character", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q: not valid UTF-8", s, n, got)
		}
	})
}

func TestBytes(t *testing.T) {
	s := "data:,hello"
	b := Bytes(s)
	if string(b) != s || len(b) != len(s) {
		t.Errorf("Bytes(%q) = %q", s, b)
	}
	if len(Bytes("")) != 0 {
		t.Errorf("Bytes(\"\") is not empty")
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
