package runtime

import (
	"bytes"
	stdbase64 "encoding/base64"
	"errors"
	"io"
	"strconv"
	"unsafe"

	"github.com/segmentio/asm/base64"
)

// Decode checks uri, the value of the file argument arg, against d and
// returns the decoded file. The checks, in order:
//
//  1. scheme: only data: URIs (RuleScheme); nothing else is ever fetched or opened;
//  2. form: data:[<mediatype>][;base64],<data> (RuleURIForm);
//  3. media type: [Descriptor.Accepts] (RuleMediaType);
//  4. size: the decoded size against d's limit (RuleMaxSize), computed from
//     the encoded length before the decoded buffer is allocated;
//  5. the data decodes (RuleURIForm);
//  6. content: the bytes match the declared media type (RuleContent),
//     unless d.NoSniff.
//
// Every error is an [*Error]. See the package documentation for the accepted
// forms of base64 and percent-encoded data.
func Decode(arg, uri string, d Descriptor) (File, error) {
	f, err := decode(arg, stringBytes(uri), d, false)
	if err != nil {
		return File{}, err
	}
	return f, nil
}

// Validate performs every check of [Decode] on uri without keeping the
// decoded bytes, for servers whose file field is a plain string: the data is
// decoded in small chunks and only a prefix is kept for the content check.
func Validate(arg, uri string, d Descriptor) error {
	if err := validate(arg, stringBytes(uri), d, false); err != nil {
		return err
	}
	return nil
}

// DecodeJSON is [Decode] for the raw JSON string token tok (quotes
// included, as a json.RawMessage or [Object.Unmarshal] gives it), without first
// converting it to a Go string: when tok has no escapes, the URI is read in
// place and the only allocation of the decoded size is File.Data, which never
// aliases tok. A token with escapes (PHP's encoder writes "\/", .NET's
// "\u002B") is unescaped exactly as encoding/json would, in three steps
// that keep the size check first: the header is unescaped into a small
// buffer and checked, the payload's decoded size is counted by a walk that
// allocates nothing, and only then is the payload unescaped into one more
// buffer (line breaks dropped) and decoded.
//
// A tok that is not a JSON string gives a RuleURIForm [*Error]; a malformed
// string token gives the error encoding/json gives for it.
func DecodeJSON(arg string, tok []byte, d Descriptor) (File, error) {
	uri, escaped, err := jsonString(arg, tok)
	if err != nil {
		return File{}, err
	}
	var f File
	var ferr *Error
	if escaped {
		f, ferr = decodeEscaped(arg, uri, d)
	} else {
		f, ferr = decode(arg, uri, d, true)
	}
	if ferr != nil {
		return File{}, ferr
	}
	return f, nil
}

// ValidateJSON is [Validate] for the raw JSON string token tok. It returns
// the URI, unescaped as encoding/json would, for the server's string field
// (its one allocation of the URI's size, made after the size check); on
// error it returns "".
func ValidateJSON(arg string, tok []byte, d Descriptor) (string, error) {
	uri, escaped, err := jsonString(arg, tok)
	if err != nil {
		return "", err
	}
	if escaped {
		// Check the size before unescaping the whole URI.
		if _, err := checkEscaped(arg, uri, d); err != nil {
			return "", err
		}
		u := unquote(uri)
		if err := validate(arg, u, d, false); err != nil {
			return "", err
		}
		return unsafe.String(unsafe.SliceData(u), len(u)), nil
	}
	if err := validate(arg, uri, d, true); err != nil {
		return "", err
	}
	return string(uri), nil
}

// stringBytes returns the bytes of s without copying. They are only read.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// decode implements Decode. clean reports that uri is known to hold no
// control characters (it came from a JSON string without escapes).
func decode(arg string, uri []byte, d Descriptor, clean bool) (File, *Error) {
	p, err := check(arg, uri, d)
	if err != nil {
		return File{}, err
	}
	return decodePayload(arg, p.header, p.payload, d, clean)
}

// decodePayload decodes the payload of a URI whose header h passed the
// checks, checks the content against h's media type and returns the File.
func decodePayload(arg string, h header, payload []byte, d Descriptor, clean bool) (File, *Error) {
	var data []byte
	var err *Error
	if h.base64 {
		data, err = decodeBase64(arg, payload, d, clean)
	} else {
		data, err = decodePercent(arg, payload, d)
	}
	if err != nil {
		return File{}, err
	}
	if !d.NoSniff {
		if err := checkContent(arg, h.mediaType, h.params["charset"], data[:min(len(data), sniffLen)]); err != nil {
			return File{}, err
		}
	}
	return File{MediaType: h.mediaType, Params: h.params, Name: h.name, Data: data}, nil
}

// parsed is a data: URI whose header passed the checks.
type parsed struct {
	header
	payload []byte
}

// check runs the checks that need no decoding: scheme, header, media type.
func check(arg string, uri []byte, d Descriptor) (parsed, *Error) {
	hdr, payload, err := splitURI(arg, uri)
	if err != nil {
		return parsed{}, err
	}
	h, reason := parseHeader(hdr)
	if reason != "" {
		return parsed{}, formError(arg, reason)
	}
	if !d.Accepts(h.mediaType) {
		return parsed{}, &Error{Arg: arg, Rule: RuleMediaType, MediaType: h.mediaType, Allowed: d.allowed()}
	}
	return parsed{header: h, payload: payload}, nil
}

func sizeError(arg string, n, limit int64) *Error {
	return &Error{Arg: arg, Rule: RuleMaxSize, Received: n, Limit: limit}
}

// base64Size returns the decoded size of the base64 text p and whether it
// is unpadded; ok is false for a length no base64 text can have. With
// lineBreaks, CR and LF in p are not counted. Padding is only recognised at
// the end: '=' anywhere else makes the decoder fail later.
func base64Size(p []byte, lineBreaks bool) (n int64, raw, ok bool) {
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
	return base64Len(l, last, prev)
}

// base64Checked is base64Size for the payload of argument arg, checked: a
// length no base64 text has breaks RuleURIForm, and a decoded size over
// d's limit RuleMaxSize.
func base64Checked(arg string, p []byte, lineBreaks bool, d Descriptor) (n int64, raw bool, err *Error) {
	n, raw, ok := base64Size(p, lineBreaks)
	if !ok {
		return 0, false, formError(arg, badBase64)
	}
	if limit := d.limit(); n > limit {
		return 0, false, sizeError(arg, n, limit)
	}
	return n, raw, nil
}

// base64Len returns the decoded size of base64 text of l characters (line
// breaks not counted) whose last two are prev and last.
func base64Len(l int64, last, prev byte) (n int64, raw, ok bool) {
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

// hasLineBreak reports whether p holds CR or LF.
func hasLineBreak(p []byte) bool {
	return bytes.IndexByte(p, '\n') >= 0 || bytes.IndexByte(p, '\r') >= 0
}

// withoutLineBreaks returns p without CR and LF (a copy only if needed).
func withoutLineBreaks(p []byte) []byte {
	if !hasLineBreak(p) {
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

const badBase64 = "the data is not valid base64"

// decodeBase64 decodes the base64 payload p after checking its decoded size
// against d's limit. Line breaks are tolerated (see the package
// documentation); the fast path, without them, allocates exactly the
// decoded size and decodes with SIMD where the CPU has it.
func decodeBase64(arg string, p []byte, d Descriptor, clean bool) ([]byte, *Error) {
	if !clean && hasLineBreak(p) {
		// Rare: RFC 2045 line breaks. Strip them into a copy; the
		// decoded size is checked before the copy is made.
		if _, _, err := base64Checked(arg, p, true, d); err != nil {
			return nil, err
		}
		p = withoutLineBreaks(p)
	}
	n, raw, cerr := base64Checked(arg, p, false, d)
	if cerr != nil {
		return nil, cerr
	}
	enc := base64.StdEncoding
	if raw {
		enc = base64.RawStdEncoding
	}
	// The SIMD decoder writes 32 bytes for every 24 it decodes while at
	// least 45 input bytes remain; base64Size's exact length leaves room
	// for that (see TestBase64NoOverrun).
	buf := make([]byte, n)
	m, err := enc.Decode(buf, p)
	if err != nil || int64(m) != n {
		return nil, base64Error(arg, p, raw)
	}
	return buf, nil
}

// base64Error locates the first invalid base64 byte for the error text.
func base64Error(arg string, p []byte, raw bool) *Error {
	enc := stdbase64.StdEncoding
	if raw {
		enc = stdbase64.RawStdEncoding
	}
	_, err := enc.Decode(make([]byte, enc.DecodedLen(len(p))), p)
	var ce stdbase64.CorruptInputError
	if errors.As(err, &ce) {
		return formError(arg, badBase64+" (at data offset "+strconv.FormatInt(int64(ce), 10)+")")
	}
	return formError(arg, badBase64)
}

// percentSize returns the decoded size of the percent-encoded payload p,
// assuming every '%' starts a valid escape (decodePercent checks that).
func percentSize(p []byte) int64 {
	return int64(len(p) - 2*bytes.Count(p, []byte{'%'}))
}

// decodePercent decodes the percent-encoded payload p after checking its
// decoded size against d's limit.
func decodePercent(arg string, p []byte, d Descriptor) ([]byte, *Error) {
	n := percentSize(p)
	if n < 0 {
		return nil, formError(arg, "the data has an invalid %-escape")
	}
	if limit := d.limit(); n > limit {
		return nil, sizeError(arg, n, limit)
	}
	buf := make([]byte, n)
	if err := unpercent(arg, buf, p); err != nil {
		return nil, err
	}
	return buf, nil
}

// unpercent decodes p, writing as many bytes to dst as fit; it checks all
// of p. Bytes other than %XX escapes stand for themselves, except control
// characters, which a URI cannot hold.
func unpercent(arg string, dst, p []byte) *Error {
	w := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%':
			if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
				return formError(arg, "the data has an invalid %-escape (at data offset "+strconv.Itoa(i)+")")
			}
			c = unhex(p[i+1])<<4 | unhex(p[i+2])
			i += 2
		case c < 0x20 || c == 0x7f:
			return formError(arg, "the data has a control character that must be %-escaped (at data offset "+strconv.Itoa(i)+")")
		}
		if w < len(dst) {
			dst[w] = c
		}
		w++
	}
	return nil
}

// validate implements Validate.
func validate(arg string, uri []byte, d Descriptor, clean bool) *Error {
	p, err := check(arg, uri, d)
	if err != nil {
		return err
	}
	var prefix [sniffLen]byte
	var n int
	if p.base64 {
		n, err = validateBase64(arg, p.payload, d, clean, prefix[:])
	} else {
		size := percentSize(p.payload)
		if size < 0 {
			return formError(arg, "the data has an invalid %-escape")
		}
		if limit := d.limit(); size > limit {
			return sizeError(arg, size, limit)
		}
		err = unpercent(arg, prefix[:], p.payload)
		n = int(min(size, sniffLen))
	}
	if err != nil {
		return err
	}
	if !d.NoSniff {
		return checkContent(arg, p.mediaType, p.params["charset"], prefix[:n])
	}
	return nil
}

// validateBase64 checks the size and the validity of the base64 payload p,
// decoding it in chunks, and copies the first decoded bytes into prefix.
func validateBase64(arg string, p []byte, d Descriptor, clean bool, prefix []byte) (int, *Error) {
	if !clean && hasLineBreak(p) {
		_, raw, cerr := base64Checked(arg, p, true, d)
		if cerr != nil {
			return 0, cerr
		}
		enc := stdbase64.StdEncoding
		if raw {
			enc = stdbase64.RawStdEncoding
		}
		r := stdbase64.NewDecoder(enc, bytes.NewReader(p))
		k, err := io.ReadFull(r, prefix)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		} else if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = nil
		}
		if err != nil {
			return 0, base64Error(arg, withoutLineBreaks(p), raw)
		}
		return k, nil
	}
	_, raw, err := base64Checked(arg, p, false, d)
	if err != nil {
		return 0, err
	}
	enc := base64.StdEncoding
	if raw {
		enc = base64.RawStdEncoding
	}
	const chunk = 4096 // input bytes per step: a multiple of 4
	var buf [chunk/4*3 + 32]byte
	k := 0
	for off := 0; off < len(p); off += chunk {
		part := p[off:min(off+chunk, len(p))]
		last := off+chunk >= len(p)
		if !last && part[len(part)-1] == '=' {
			return 0, base64Error(arg, p, raw)
		}
		e := enc
		if !last {
			e = base64.RawStdEncoding // no padding before the end
		}
		m, err := e.Decode(buf[:], part)
		if err != nil {
			return 0, base64Error(arg, p, raw)
		}
		k += copy(prefix[k:], buf[:m])
	}
	return k, nil
}

// Encode returns data as a base64 data: URI of mediaType, the form clients
// send: "data:" + mediaType + ";base64," + base64 (padded). mediaType may
// carry parameters ("text/plain;charset=utf-8"); an empty or malformed
// mediaType (one [Decode] would reject) is replaced by
// application/octet-stream, so that the result always decodes.
func Encode(mediaType string, data []byte) string {
	if h, reason := parseHeader(stringBytes(mediaType)); reason != "" || h.base64 || mediaType == "" || bytes.IndexByte(stringBytes(mediaType), ',') >= 0 {
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
