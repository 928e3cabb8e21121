// Package text cuts and quotes strings for errors, tokens and pages: at a
// UTF-8 boundary, never more than a bound, and checks printable ASCII. It
// is the one copy the transfer packages (server, wire types, client)
// share.
package text

import (
	"strconv"
	"unicode/utf8"
)

// Cut cuts s to at most n bytes, at a character boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote quotes s, Go-style, or its first n bytes (cut on a character
// boundary) followed by an ellipsis when it is longer: what an error may
// show of a value it rejects.
func Quote(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(Cut(s, n)) + "…"
}

// PrintableASCII reports whether s holds only printable ASCII, 0x20 to
// 0x7e.
func PrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
