package datauri

import (
	"bytes"
	stdbase64 "encoding/base64"
	"errors"
	"strconv"
	"strings"
	"unsafe"

	"github.com/segmentio/asm/base64"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
)

// BadBase64 is the reason of an Error for a base64 payload that does not
// decode.
const BadBase64 = "the data is not valid base64"

// Base64Size returns the decoded size of the base64 text p and whether it
// is unpadded; ok is false for a length no base64 text can have. With
// lineBreaks, CR and LF in p are not counted. Padding is only recognised at
// the end: '=' anywhere else makes the decoder fail later.
func Base64Size(p []byte, lineBreaks bool) (n int64, raw, ok bool) {
	var last, prev byte
	l := int64(len(p))
	if lineBreaks {
		l -= int64(bytes.Count(p, []byte{'\n'}) + bytes.Count(p, []byte{'\r'}))
		k := 0
		for i := len(p) - 1; i >= 0 && k < 2; i-- {
			if c := p[i]; c != '\r' && c != '\n' {
				if k == 0 {
					last = c
				} else {
					prev = c
				}
				k++
			}
		}
	} else if len(p) > 0 {
		last = p[len(p)-1]
		if len(p) > 1 {
			prev = p[len(p)-2]
		}
	}
	return Base64Len(l, last, prev)
}

// Base64Len returns the decoded size of base64 text of l characters (line
// breaks not counted) whose last two are prev and last.
func Base64Len(l int64, last, prev byte) (n int64, raw, ok bool) {
	switch l % 4 {
	case 0:
		pad := int64(0)
		if last == '=' {
			pad++
			if prev == '=' {
				pad++
			}
		}
		return l/4*3 - pad, false, true
	case 1:
		return 0, false, false
	default:
		return l/4*3 + l%4 - 1, true, true
	}
}

// HasLineBreak reports whether p holds CR or LF.
func HasLineBreak(p []byte) bool {
	return bytes.IndexByte(p, '\n') >= 0 || bytes.IndexByte(p, '\r') >= 0
}

// WithoutLineBreaks returns p without CR and LF (a copy only if needed).
func WithoutLineBreaks(p []byte) []byte {
	if !HasLineBreak(p) {
		return p
	}
	out := make([]byte, 0, len(p))
	for _, c := range p {
		if c != '\r' && c != '\n' {
			out = append(out, c)
		}
	}
	return out
}

// Base64Error is the error for the base64 payload p (unpadded when raw)
// that does not decode, locating its first invalid byte.
func Base64Error(p []byte, raw bool) *Error {
	enc := stdbase64.StdEncoding
	if raw {
		enc = stdbase64.RawStdEncoding
	}
	_, err := enc.Decode(make([]byte, enc.DecodedLen(len(p))), p)
	var ce stdbase64.CorruptInputError
	if errors.As(err, &ce) {
		return formError(BadBase64 + " (at data offset " + strconv.FormatInt(int64(ce), 10) + ")")
	}
	return formError(BadBase64)
}

// PercentSize returns the decoded size of the percent-encoded payload p,
// assuming every '%' starts a valid escape (decodePercent checks that).
func PercentSize(p []byte) int64 {
	return int64(len(p) - 2*bytes.Count(p, []byte{'%'}))
}

// Unpercent decodes the percent-encoded payload p, writing as many bytes
// to dst as fit; it checks all of p. Bytes other than %XX escapes stand for
// themselves, except control characters, which a URI cannot hold.
func Unpercent(dst, p []byte) *Error {
	w := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%':
			if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
				return formError("the data has an invalid %-escape (at data offset " + strconv.Itoa(i) + ")")
			}
			c = unhex(p[i+1])<<4 | unhex(p[i+2])
			i += 2
		case c < 0x20 || c == 0x7f:
			return formError("the data has a control character that must be %-escaped (at data offset " + strconv.Itoa(i) + ")")
		}
		if w < len(dst) {
			dst[w] = c
		}
		w++
	}
	return nil
}

// Encode returns data as a base64 data: URI of mediaType, the form clients
// send: "data:" + mediaType + ";base64," + base64 (padded). mediaType may
// carry parameters ("text/plain;charset=utf-8"); an empty or malformed
// mediaType (one [Decode] would reject) is replaced by
// application/octet-stream, so that the result always decodes.
func Encode(mediaType string, data []byte) string {
	if h, reason := parseHeader(text.Bytes(mediaType)); reason != "" || h.Base64 || mediaType == "" || bytes.IndexByte(text.Bytes(mediaType), ',') >= 0 {
		mediaType = "application/octet-stream"
	}
	const pre, mid = "data:", ";base64,"
	n := len(pre) + len(mediaType) + len(mid)
	buf := make([]byte, n+base64.StdEncoding.EncodedLen(len(data)))
	copy(buf[copy(buf, pre):], mediaType)
	copy(buf[len(pre)+len(mediaType):], mid)
	base64.StdEncoding.Encode(buf[n:], data)
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// Redact returns a form of uri that is safe for logs, traces and error
// reports: "data:<type>[;base64],[<n> bytes]" for a data: URI, where n is the
// decoded size the payload's length implies (its length for malformed
// data), without parameters (a legacy name= parameter may be personal); for
// any other value only its scheme and length ("https:[42 bytes]"), or only
// its length. Use it where a server keeps a file argument as a string.
func Redact(uri string) string {
	b := text.Bytes(uri)
	hdr, payload, err := Split(b)
	if err != nil {
		if err.NotData && err.Scheme != "" {
			return err.Scheme + ":[" + strconv.Itoa(len(uri)) + " bytes]"
		}
		if !err.NotData {
			return "data:[" + strconv.Itoa(len(uri)) + " bytes]"
		}
		return "[" + strconv.Itoa(len(uri)) + " bytes]"
	}
	h, reason := parseHeader(hdr)
	if reason != "" {
		return "data:[" + strconv.Itoa(len(uri)) + " bytes]"
	}
	var n int64
	if h.Base64 {
		var ok bool
		if n, _, ok = Base64Size(payload, true); !ok {
			n = int64(len(payload))
		}
	} else {
		n = max(PercentSize(payload), 0)
	}
	s := "data:" + h.MediaType
	if h.Base64 {
		s += ";base64"
	}
	return s + ",[" + strconv.FormatInt(n, 10) + " bytes]"
}

// Decode parses uri and decodes its payload, with no other limit than the
// URI's own length (the decoded bytes are never more): base64 (padded or
// not, CR and LF ignored) or percent-encoded. It checks the form only, not
// what the bytes are; the runtime's decoder adds the x-mcp-file checks and
// a size limit before anything is allocated.
func Decode(uri string) (Header, []byte, error) {
	hdr, payload, err := Split(text.Bytes(uri))
	if err != nil {
		return Header{}, nil, err
	}
	h, err := ParseHeader(hdr)
	if err != nil {
		return Header{}, nil, err
	}
	if !h.Base64 {
		n := PercentSize(payload)
		if n < 0 {
			return Header{}, nil, formError("the data has an invalid %-escape")
		}
		data := make([]byte, n)
		if err := Unpercent(data, payload); err != nil {
			return Header{}, nil, err
		}
		return h, data, nil
	}
	p := WithoutLineBreaks(payload)
	n, raw, ok := Base64Size(p, false)
	if !ok {
		return Header{}, nil, formError(BadBase64)
	}
	enc := base64.StdEncoding
	if raw {
		enc = base64.RawStdEncoding
	}
	data := make([]byte, n)
	if m, err := enc.Decode(data, p); err != nil || int64(m) != n {
		return Header{}, nil, Base64Error(p, raw)
	}
	return h, data, nil
}

// redactRun is the shortest run of base64 characters RedactText replaces.
const redactRun = 32

// RedactText returns s, a message that may quote a value it refused (an
// error from a JSON decoder, a schema validator or a client), with every
// data: URI in it replaced by "data:…" and every run of redactRun or more
// base64 characters (A-Z, a-z, 0-9, +, /, =) by "…", so that it carries no
// file bytes. A data: URI ends at a space, a quote, or a closing bracket,
// brace or parenthesis.
func RedactText(s string) string {
	var b []byte // nil until something is replaced
	run := 0     // length of the run of base64 characters ending at i-1
	last := 0    // s[last:i] is still to copy
	for i := 0; i < len(s); i++ {
		if len(s)-i >= 5 && EqualFold([]byte(s[i:i+5]), "data:") && (i == 0 || !isBase64Char(s[i-1])) {
			j := i + 5
			for j < len(s) && !strings.ContainsRune(" \t\r\n\"'`]})>", rune(s[j])) {
				j++
			}
			b = append(append(b, s[last:i]...), "data:…"...)
			last, i, run = j, j-1, 0
			continue
		}
		if isBase64Char(s[i]) {
			run++
			continue
		}
		if run >= redactRun {
			b = append(append(b, s[last:i-run]...), "…"...)
			last = i
		}
		run = 0
	}
	if run >= redactRun {
		b = append(append(b, s[last:len(s)-run]...), "…"...)
		last = len(s)
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// MaxErrorText bounds the text of an error RedactError returns, in bytes
// (an ellipsis more when it is cut).
const MaxErrorText = 1024

// RedactError returns err with its text redacted by RedactText and cut to
// MaxErrorText bytes at a character boundary, for errors whose text may
// quote a value (a JSON decoder's, a validator's, a client's). The original
// stays reachable with errors.As and errors.Is; nil stays nil.
func RedactError(err error) error {
	if err == nil {
		return nil
	}
	msg := RedactText(err.Error())
	if len(msg) > MaxErrorText {
		msg = text.Cut(msg, MaxErrorText) + "…"
	}
	return &redactedError{text: msg, err: err}
}

type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }
