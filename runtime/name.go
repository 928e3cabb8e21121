package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameLen bounds a sanitized name, in bytes: the common file-system limit.
const maxNameLen = 255

// SanitizeName makes name, which a client sent and nobody checked, safe to
// show and to use as the last element of a path. It returns "" when nothing
// usable is left. The result:
//
//   - is the base name only: everything up to the last '/' or '\' is dropped;
//   - is valid UTF-8 (invalid bytes are dropped) without control
//     characters (Unicode Cc) or bidirectional formatting characters
//     (which can disguise an extension);
//   - has the characters Windows reserves, <>:"|?*, replaced by '_';
//   - has no leading or trailing spaces, and no trailing dots;
//   - is never "." or ".." (nor made only of dots);
//   - is at most 255 bytes, cut at a character boundary, keeping an
//     extension of up to 16 bytes.
//
// A sanitized name is still untrusted text: it is advisory (the media type
// and the bytes decide what a file is), and a server that writes files
// should choose its own paths.
func SanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	b.Grow(min(len(name), maxNameLen+utf8.UTFMax))
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			continue
		case unicode.IsControl(r), isBidiControl(r):
			continue
		case strings.ContainsRune(`<>:"|?*`, r):
			r = '_'
		}
		b.WriteRune(r)
		if b.Len() > 4*maxNameLen {
			break // the rest would be cut anyway
		}
	}
	s := strings.TrimRight(strings.TrimSpace(b.String()), ". ")
	if strings.Trim(s, ".") == "" {
		return ""
	}
	if len(s) > maxNameLen {
		s = truncateName(s)
	}
	return s
}

// isBidiControl reports the Unicode bidirectional formatting characters.
func isBidiControl(r rune) bool {
	return r == '\u061c' || r == '\u200e' || r == '\u200f' ||
		('\u202a' <= r && r <= '\u202e') || ('\u2066' <= r && r <= '\u2069')
}

// truncateName cuts s to maxNameLen bytes at a rune boundary, keeping a
// short extension.
func truncateName(s string) string {
	ext := ""
	if i := strings.LastIndexByte(s, '.'); i > 0 && len(s)-i <= 16 {
		ext = s[i:]
	}
	stem := s[:len(s)-len(ext)]
	cut := maxNameLen - len(ext)
	for cut > 0 && !utf8.RuneStart(stem[cut]) {
		cut--
	}
	return strings.TrimRight(stem[:cut], ". ") + ext
}
