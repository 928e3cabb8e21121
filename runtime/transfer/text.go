package transfer

// Small checks and cuts of strings, shared by every path.

import "unicode/utf8"

// cutUTF8 cuts s to at most n bytes, at a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// printableASCII reports whether s holds only printable ASCII, 0x20 to
// 0x7e.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
