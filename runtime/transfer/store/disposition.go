package store

import (
	"strings"
	"unicode/utf8"
)

// ContentDisposition is "attachment" with the file name: an ASCII
// fallback in filename, where every character outside printable ASCII,
// the quote, the backslash, the slash and '%' (which some clients decode
// there, RFC 6266 appendix D) become '_', and the name itself in filename*
// (RFC 6266, RFC 8187). Names are sanitized when stored, so they hold no
// path separators or control characters; this holds even if one did. It
// is the header a download of a file named name is served with: by the
// transfer layer's download endpoint, and by a store that serves its
// objects itself and keeps the header with each (so that a presigned
// download need not carry the name in its URL).
func ContentDisposition(name string) string {
	if name == "" || !utf8.ValidString(name) {
		return "attachment"
	}
	var ascii strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '/' || r == '%' {
			ascii.WriteByte('_')
		} else {
			ascii.WriteRune(r)
		}
	}
	v := `attachment; filename="` + ascii.String() + `"`
	if ascii.String() != name {
		v += "; filename*=UTF-8''" + extValue(name)
	}
	return v
}

// extValue percent-encodes s as an RFC 8187 ext-value's value: every byte
// but attr-char.
func extValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
