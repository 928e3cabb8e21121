package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
)

// maxNameLen bounds a sanitized name, in bytes: the common file-system limit.
const maxNameLen = 255

// maxExtLen bounds the extension that truncation keeps, in bytes.
const maxExtLen = 16

// SanitizeName makes name, which a client sent and nobody checked, safe to
// show and to use as the last element of a path. It returns "" when nothing
// usable is left. The result:
//
//   - is the base name only: everything up to the last '/' or '\' is dropped;
//   - is valid UTF-8 (invalid bytes are dropped) without control
//     characters (Unicode Cc), format characters (Unicode Cf: the
//     bidirectional controls that can disguise an extension, and the
//     invisible ones, such as zero-width spaces and joiners, U+2060 and the
//     BOM, that make two names look alike) or line and paragraph
//     separators (U+2028, U+2029);
//   - has the characters Windows reserves, <>:"|?*, replaced by '_';
//   - has no leading or trailing spaces, and no trailing dots;
//   - is never "." or ".." (nor made only of dots);
//   - is never a Windows device name (CON, PRN, AUX, NUL, CONIN$, CONOUT$,
//     COM0 to COM9, LPT0 to LPT9, and COM¹, COM², COM³, LPT¹, LPT², LPT³),
//     in any case, with or without an extension and with spaces before it:
//     such a name gets a leading '_' ("nul.txt" becomes "_nul.txt");
//   - is at most 255 bytes, cut at a character boundary, keeping the
//     extension (the longest run of dot-separated suffixes, such as
//     ".tar.gz", of up to 16 bytes).
//
// Dropping format characters changes some legitimate names: a Persian name
// loses its zero-width non-joiners and an emoji sequence falls apart into
// its parts. A name is advisory; one that cannot be told from another is
// worse.
//
// A sanitized name is still untrusted text: it is advisory (the media type
// and the bytes decide what a file is), and a server that writes files
// should choose its own paths.
func SanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	// A name far longer than the limit is cut before it is looked at: its
	// head gives the stem and its tail the extension, and what lies between
	// would be cut anyway. This bounds the work and the memory.
	head, tail := name, ""
	if len(name) > 5*maxNameLen {
		head, tail = name[:4*maxNameLen], name[len(name)-maxNameLen:]
	}
	var b strings.Builder
	b.Grow(min(len(head)+len(tail), maxNameLen+utf8.UTFMax))
	for _, part := range [2]string{head, tail} {
		for i := 0; i < len(part); {
			r, n := utf8.DecodeRuneInString(part[i:])
			i += n
			switch {
			case r == utf8.RuneError && n == 1:
				continue
			case dropInName(r):
				continue
			case strings.ContainsRune(`<>:"|?*`, r):
				r = '_'
			}
			b.WriteRune(r)
		}
	}
	s := trimName(strings.TrimLeftFunc(b.String(), unicode.IsSpace))
	if strings.Trim(s, ".") == "" {
		return ""
	}
	if len(s) > maxNameLen {
		s = truncateName(s)
	}
	if isDeviceName(s) {
		s = "_" + s // never a device name again, as it starts with '_'
		if len(s) > maxNameLen {
			s = truncateName(s)
		}
	}
	return s
}

// trimName removes trailing spaces (Unicode White_Space) and dots, which
// Windows drops from names, from s.
func trimName(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool { return r == '.' || unicode.IsSpace(r) })
}

// dropInName reports the characters SanitizeName drops: controls (Cc),
// format characters (Cf, which hold the bidirectional controls and the
// zero-width characters) and the line and paragraph separators (Zl, Zp).
func dropInName(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// isDeviceName reports whether Windows takes the file name s for a device:
// when the part before the first dot, without trailing spaces, is a
// reserved name, whatever the case.
func isDeviceName(s string) bool {
	stem, _, _ := strings.Cut(s, ".")
	stem = strings.TrimRight(stem, " ")
	if len(stem) < 3 || len(stem) > len("CONOUT$") {
		return false
	}
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
		"COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
		"COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³":
		return true
	}
	return false
}

// truncateName cuts s to maxNameLen bytes at a rune boundary, keeping its
// extension: the longest suffix of up to maxExtLen bytes made of dots each
// followed by a part without dots or spaces (".pdf", ".tar.gz"), not
// counting a leading dot.
func truncateName(s string) string {
	ext := ""
	for i := strings.LastIndexByte(s, '.'); i > 0 && len(s)-i <= maxExtLen; i = strings.LastIndexByte(s[:i], '.') {
		part := s[i+1 : len(s)-len(ext)]
		if part == "" || strings.ContainsRune(part, ' ') {
			break
		}
		ext = s[i:]
	}
	stem := s[:len(s)-len(ext)]
	return trimName(text.Cut(stem, maxNameLen-len(ext))) + ext
}
