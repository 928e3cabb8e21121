package datauri

import (
	"bytes"
	"maps"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxHeaderLen bounds the media type and parameters of a data: URI (the
// part between "data:" and the comma). Longer headers are rejected without
// looking further, so a hostile value without a comma costs no scan.
const MaxHeaderLen = 2048

// Header is the parsed part of a data: URI before the comma.
type Header struct {
	// MediaType is the lower-cased type/subtype, or RFC 2397's default
	// "text/plain" when the URI has none.
	MediaType string
	// Params are the other parameters, names lower-cased, values
	// %-decoded; nil when there are none. RFC 2397's default charset is not
	// added here (see AllParams and Charset).
	Params map[string]string
	// Implicit reports a URI without a media type, for which RFC 2397 says
	// text/plain;charset=US-ASCII.
	Implicit bool
	// Name is the %-decoded value of a name= parameter, which older drafts
	// of SEP-2356 put in the URI; "" when there is none. It is what the
	// client sent: sanitize it before use.
	Name string
	// Base64 reports the ";base64" marker.
	Base64 bool
}

// Split checks the scheme of uri and splits it into its header (the media
// type and parameters) and its payload. Nothing is copied. The scheme is
// case-insensitive; leading white space is an error, not trimmed.
func Split(uri []byte) (header, payload []byte, err *Error) {
	if len(uri) < 5 || uri[4] != ':' || !EqualFold(uri[:4], "data") {
		return nil, nil, schemeError(uri)
	}
	rest := uri[5:]
	lim := len(rest)
	if lim > MaxHeaderLen+1 {
		lim = MaxHeaderLen + 1
	}
	comma := bytes.IndexByte(rest[:lim], ',')
	if comma < 0 {
		if len(rest) > MaxHeaderLen {
			return nil, nil, formError("the media type and parameters are longer than 2048 bytes, or there is no comma")
		}
		return nil, nil, formError("there is no comma before the data")
	}
	return rest[:comma], rest[comma+1:], nil
}

// maxSchemeLen bounds the scheme that schemeError looks for.
const maxSchemeLen = 256

// schemeError describes a value that is not a data: URI.
func schemeError(uri []byte) *Error {
	e := &Error{NotData: true}
	if len(uri) == 0 {
		e.Reason = "an empty string"
		return e
	}
	trimmed := strings.TrimSpace(string(uri[:min(len(uri), 16)]))
	if len(trimmed) >= 5 && trimmed[4] == ':' && strings.EqualFold(trimmed[:4], "data") {
		return formError("it has leading whitespace")
	}
	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":", looked for
	// in the first maxSchemeLen bytes only.
	for i, c := range uri[:min(len(uri), maxSchemeLen)] {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			s := strings.ToLower(string(uri[:min(i, MaxEcho+1)]))
			e.Scheme = s
			return e
		default:
			e.Reason = "a value without a scheme"
			return e
		}
	}
	e.Reason = "a value without a scheme"
	return e
}

// MaxEcho is the longest scheme an Error keeps (and a caller should quote).
const MaxEcho = 64

// Error says why a value is not a valid data: URI. Its fields are written
// by this package and hold no part of the value but a scheme, lower-cased
// and cut to MaxEcho bytes.
type Error struct {
	// NotData reports a value that is not a data: URI at all: then Scheme
	// is its scheme ("https"), or Reason what it is instead ("an empty
	// string", "a value without a scheme").
	NotData bool
	Scheme  string
	// Reason says what is wrong with the URI's form when NotData is false.
	Reason string
}

func (e *Error) Error() string {
	switch {
	case e.NotData && e.Scheme != "":
		return "not a data: URI: scheme " + strconv.Quote(e.Scheme+":")
	case e.NotData:
		return "not a data: URI: " + e.Reason
	}
	return "invalid data: URI: " + e.Reason
}

func formError(reason string) *Error { return &Error{Reason: reason} }

// parseHeader parses the media type and parameters of a data: URI:
//
//	[ type "/" subtype ] *( ";" attribute "=" value ) [ ";base64" ]
//
// type, subtype and attribute are RFC 2045 tokens ("*" is refused in type
// and subtype: a data: URI carries a concrete type); a value is token
// characters and %XX escapes, decoded to valid UTF-8 without control
// characters, nor (but for name) format characters or line separators (see
// hasInvisible). Parameter names are case-insensitive and may not repeat.
// Without a type/subtype, RFC 2397's default text/plain applies, with
// charset=US-ASCII unless a charset parameter is given. A name parameter
// (older drafts) is decoded into Name and left out of Params.
func ParseHeader(h []byte) (Header, *Error) {
	out, reason := parseHeader(h)
	if reason != "" {
		return out, formError(reason)
	}
	return out, nil
}

// parseHeader implements ParseHeader, giving the reason of an error.
func parseHeader(h []byte) (Header, string) {
	var out Header
	if n := len(h); n >= 7 && h[n-7] == ';' && EqualFold(h[n-6:], "base64") {
		out.Base64 = true
		h = h[:n-7]
	}
	mt := h
	var ps []byte
	if i := bytes.IndexByte(h, ';'); i >= 0 {
		mt, ps = h[:i], h[i:]
	}
	if len(mt) == 0 {
		out.MediaType = "text/plain"
	} else {
		slash := bytes.IndexByte(mt, '/')
		if slash < 0 || !isToken(mt[:slash]) || !isToken(mt[slash+1:]) {
			return out, "the media type is not of the form type/subtype"
		}
		out.MediaType = lowerMediaType(mt)
	}
	for len(ps) > 0 {
		ps = ps[1:] // the ';'
		seg := ps
		if i := bytes.IndexByte(ps, ';'); i >= 0 {
			seg, ps = ps[:i], ps[i:]
		} else {
			ps = nil
		}
		eq := bytes.IndexByte(seg, '=')
		if eq < 0 {
			if EqualFold(seg, "base64") {
				return out, `";base64" must come last, right before the comma`
			}
			return out, "a media type parameter has no value"
		}
		attr, val := seg[:eq], seg[eq+1:]
		if !isToken(attr) {
			return out, "a media type parameter has an invalid name"
		}
		v, ok := decodeParamValue(val)
		if !ok {
			return out, "a media type parameter has an invalid value"
		}
		name := strings.ToLower(string(attr))
		if name == "name" {
			if out.Name != "" {
				return out, "a media type parameter is repeated"
			}
			out.Name = v
			continue
		}
		if hasInvisible(v) {
			return out, "a media type parameter has an invalid value"
		}
		if _, dup := out.Params[name]; dup {
			return out, "a media type parameter is repeated"
		}
		if out.Params == nil {
			out.Params = make(map[string]string, 1)
		}
		out.Params[name] = v
	}
	out.Implicit = len(mt) == 0
	return out, ""
}

// Charset returns h's charset parameter, or RFC 2397's US-ASCII when the
// URI gave no media type, or "".
func (h Header) Charset() string {
	if c, ok := h.Params["charset"]; ok || !h.Implicit {
		return c
	}
	return "US-ASCII"
}

// AllParams returns h's parameters with RFC 2397's default charset=US-ASCII
// added when the URI gave no media type and no charset: a new map then, h's
// own otherwise. Header leaves the default out of Params so that a URI is
// parsed without allocating for it.
func (h Header) AllParams() map[string]string {
	if !h.Implicit {
		return h.Params
	}
	if _, ok := h.Params["charset"]; ok {
		return h.Params
	}
	m := make(map[string]string, len(h.Params)+1)
	maps.Copy(m, h.Params)
	m["charset"] = "US-ASCII"
	return m
}

// decodeParamValue decodes a parameter value: token characters and %XX
// escapes, giving non-empty valid UTF-8 without control characters.
func decodeParamValue(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	buf := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' {
			if i+2 >= len(v) || !isHex(v[i+1]) || !isHex(v[i+2]) {
				return "", false
			}
			c = unhex(v[i+1])<<4 | unhex(v[i+2])
			i += 2
		} else if !tokenChar[c] {
			return "", false
		}
		buf = append(buf, c)
	}
	if !utf8.Valid(buf) {
		return "", false
	}
	for _, r := range string(buf) {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return "", false
		}
	}
	return string(buf), true
}

// hasInvisible reports whether s holds a Unicode format character (Cf: the
// bidirectional controls such as U+202E, zero-width characters, U+2060,
// the BOM, and the like) or a line or paragraph separator (U+2028,
// U+2029). No parameter value needs one; printed, they reorder, hide or
// break the text around them, and a handler may well print a parameter
// (a charset, say). So a URI whose parameter holds one is refused
// (RuleURIForm), as one with a control character is. The name parameter
// is the exception: it is sanitized instead, as companion names are (see
// the runtime's SanitizeName), for a file name is more likely to carry them honestly.
func hasInvisible(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return true
		}
	}
	return false
}

// tokenChar reports the RFC 2045 token characters: printable ASCII except
// SPACE and tspecials ()<>@,;:\"/[]?=.
var tokenChar = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`()<>@,;:\"/[]?=`, rune(c))
	}
	return t
}()

// IsToken reports whether s is a non-empty RFC 2045 token without "*".
func IsToken(s string) bool { return isToken([]byte(s)) }

// isToken reports whether b is a non-empty RFC 2045 token without "*".
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tokenChar[c] || c == '*' {
			return false
		}
	}
	return true
}

// commonTypes are returned without allocating when a URI uses them.
var commonTypes = [...]string{
	"image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml",
	"application/pdf", "application/octet-stream", "application/json",
	"application/zip", "text/plain", "text/csv", "text/markdown", "text/html",
	"audio/mpeg", "audio/wav", "video/mp4",
}

// lowerMediaType returns b lower-cased as a string.
func lowerMediaType(b []byte) string {
	for _, t := range commonTypes {
		if EqualFold(b, t) {
			return t
		}
	}
	return strings.ToLower(string(b))
}

// EqualFold reports whether b equals the lower-case ASCII string s,
// ignoring ASCII case.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
