// Package text holds the small operations on strings that several runtime
// packages need (the decoder, the transfer server, its wire types and its
// client), written once: cutting a string to a length at a character
// boundary, quoting what an error may show of a value, checking printable
// ASCII, and reading a string's bytes without a copy.
package text

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Cut returns the longest prefix of s that is at most n bytes long and
// does not end inside a UTF-8 sequence: s itself when it is short enough.
// An n of zero or less gives "".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Bytes returns the bytes of s without copying them, for code that only
// reads them: they must never be modified.
func Bytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
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
