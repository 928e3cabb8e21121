// Package text holds the small operations on strings that several runtime
// packages need, written once: cutting a string to a length at a
// character boundary, and reading a string's bytes without a copy.
package text

import (
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
