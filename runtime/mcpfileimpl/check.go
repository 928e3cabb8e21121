package mcpfileimpl

import (
	"bytes"
	stdbase64 "encoding/base64"
	"io"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/segmentio/asm/base64"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
	"github.com/mcpfile/mcpfile/runtime/internal/text"
	"github.com/mcpfile/mcpfile/runtime/transfer/wire"
)

// This file is the check of one file value: scheme, form, media type
// against accept, size against maxSize before anything of the decoded size
// is allocated, the payload, and the content, in that order, each breaking
// one runtime.Rule. datauri parses the URI; the x-mcp-file rules are here.

// decodeURI checks uri, the value of the file argument arg, against d and
// returns the decoded file. The checks, in order:
//
//  1. scheme: only data: URIs (runtime.RuleScheme); nothing else is ever fetched or opened;
//  2. form: data:[<mediatype>][;base64],<data> (runtime.RuleURIForm);
//  3. media type: [descriptor.File.Accepts] (runtime.RuleMediaType);
//  4. size: the decoded size against d's limit (runtime.RuleMaxSize), computed from
//     the encoded length before the decoded buffer is allocated;
//  5. the data decodes (runtime.RuleURIForm);
//  6. content: the bytes match the declared media type (runtime.RuleContent),
//     unless d.NoSniff.
//
// Every error is an [*runtime.Error]. See the package documentation for the accepted
// forms of base64 and percent-encoded data.
func decodeURI(arg, uri string, d descriptor.File) (runtime.File, error) {
	if isFileURI(text.Bytes(uri)) {
		return fileRef(arg, text.Bytes(uri), d)
	}
	f, err := decode(arg, text.Bytes(uri), d, false, nil)
	if err != nil {
		return runtime.File{}, err
	}
	return f, nil
}

// validateURI performs every check of decodeURI on uri without keeping the
// decoded bytes, for servers whose file field is a plain string: the data is
// decoded in small chunks and only a prefix is kept for the content check.
func validateURI(arg, uri string, d descriptor.File) error {
	if err := validate(arg, text.Bytes(uri), d, false); err != nil {
		return err
	}
	return nil
}

// decodeJSON is decodeURI for the raw JSON string token tok (quotes
// included, as a json.RawMessage or [Object.Unmarshal] gives it), without first
// converting it to a Go string: when tok has no escapes, the URI is read in
// place and the only allocation of the decoded size is the File's bytes,
// which never alias tok. A token with escapes (PHP's encoder writes "\/", .NET's
// "\u002B") is unescaped exactly as encoding/json would, in three steps
// that keep the size check first: the header is unescaped into a small
// buffer and checked, the payload's decoded size is counted by a walk that
// allocates nothing, and only then is the payload unescaped into one more
// buffer (line breaks dropped) and decoded.
//
// A tok that is not a JSON string gives a runtime.RuleURIForm [*runtime.Error]; a malformed
// string token gives the error encoding/json gives for it.
//
// A tok that is a reference the fast path made (package inline) gives the
// File that stands for it, resolved by runtime.AddTool before the handler
// runs, or refused there with the error tok gets here as a value.
func decodeJSON(arg string, tok []byte, d descriptor.File) (runtime.File, error) {
	return decodeJSONInPlace(arg, tok, d, nil)
}

// decodeJSONInPlace is decodeJSON, which decodes a base64 payload without
// escapes as pl says when pl is not nil (see decodeBase64).
func decodeJSONInPlace(arg string, tok []byte, d descriptor.File, pl *placement) (runtime.File, error) {
	if ref, ok := liveRef(tok); ok {
		_, refusal := decodeValue(arg, tok, d, nil)
		return inline.NewRef(ref, refusal).(runtime.File), nil
	}
	return decodeValue(arg, tok, d, pl)
}

// decodeValue is decodeJSONInPlace for a value that is not a reference.
func decodeValue(arg string, tok []byte, d descriptor.File, pl *placement) (runtime.File, error) {
	uri, escaped, err := jsonString(arg, tok, d)
	if err != nil {
		return runtime.File{}, err
	}
	return decodeString(arg, uri, escaped, d, pl)
}

// decodeString is decodeValue for the contents uri of a JSON string
// token: still escaped when escaped is true, else ASCII without control
// characters (see jsonString). With pl not nil, a base64 payload of uri
// without escapes is decoded as pl says (see decodeBase64).
func decodeString(arg string, uri []byte, escaped bool, d descriptor.File, pl *placement) (runtime.File, error) {
	switch {
	case !escaped && isFileURI(uri):
		return fileRef(arg, uri, d)
	case escaped && len(uri) <= maxEscapedFileURI:
		if u := jsonwalk.Unquote(uri); isFileURI(u) {
			return fileRef(arg, u, d)
		}
	case escaped && escapedFileURI(uri):
		return fileRef(arg, uri, d) // too long, escapes and all
	}
	var f runtime.File
	var ferr *runtime.Error
	if escaped {
		f, ferr = decodeEscaped(arg, uri, d)
	} else {
		f, ferr = decode(arg, uri, d, true, pl)
	}
	if ferr != nil {
		return runtime.File{}, ferr
	}
	return f, nil
}

// validateJSON is validateURI for the raw JSON string token tok. It returns
// the URI, unescaped as encoding/json would, for the server's string field
// (its one allocation of the URI's size, made after the size check); on
// error it returns "".
func validateJSON(arg string, tok []byte, d descriptor.File) (string, error) {
	uri, escaped, err := jsonString(arg, tok, d)
	if err != nil {
		return "", err
	}
	if escaped {
		// Check the size before unescaping the whole URI.
		if _, err := checkEscaped(arg, uri, d); err != nil {
			return "", err
		}
		u := jsonwalk.Unquote(uri)
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

// decode implements Decode. clean reports that uri is known to hold no
// control characters (it came from a JSON string without escapes); pl,
// when not nil, how the fast path of inline files has its base64 payload
// decoded (see decodeBase64).
func decode(arg string, uri []byte, d descriptor.File, clean bool, pl *placement) (runtime.File, *runtime.Error) {
	p, err := check(arg, uri, d)
	if err != nil {
		return runtime.File{}, err
	}
	return decodePayload(arg, p.Header, p.payload, d, clean, pl)
}

// decodePayload decodes the payload of a URI whose header h passed the
// checks, checks the content against h's media type and returns the File.
// With pl not nil, a base64 payload is decoded as pl says (see
// decodeBase64); a content check that fails puts one decoded in place back
// first.
func decodePayload(arg string, h datauri.Header, payload []byte, d descriptor.File, clean bool, pl *placement) (runtime.File, *runtime.Error) {
	var data []byte
	var err *runtime.Error
	if h.Base64 {
		data, err = decodeBase64(arg, payload, d, clean, pl)
	} else {
		data, err = decodePercent(arg, payload, d)
	}
	if err != nil {
		return runtime.File{}, err
	}
	if !d.NoSniff {
		if err := checkContent(arg, h.MediaType, h.Charset(), data[:min(len(data), content.SniffLen)]); err != nil {
			if pl != nil && pl.undo != nil {
				pl.undo()
				pl.undo = nil
			}
			return runtime.File{}, err
		}
	}
	f := runtime.NewFile(h.MediaType, data)
	f.Params, f.Name = h.Params, runtime.SanitizeName(h.Name)
	return f, nil
}

// parsed is a data: URI whose header passed the checks.
type parsed struct {
	datauri.Header
	payload []byte
}

// check runs the checks that need no decoding: scheme, transfer mode,
// header, media type.
func check(arg string, uri []byte, d descriptor.File) (parsed, *runtime.Error) {
	hdr, payload, err := splitURI(arg, uri)
	if err != nil {
		if err.Rule == runtime.RuleScheme && isFileURI(uri) {
			// A file target takes references before it gets here: this one
			// keeps the data: URI as a string.
			return parsed{}, transferError(arg, d, "the server keeps this argument as a data: URI string and takes no uploaded files: send the file inline, as a data: URI")
		}
		if err.Rule == runtime.RuleScheme && slices.Contains(d.TransferModes, descriptor.Upload) {
			err.TransferModes = d.TransferModes // what the field takes instead
		}
		return parsed{}, err
	}
	if !d.AllowsInline() {
		return parsed{}, &runtime.Error{Arg: arg, Rule: runtime.RuleTransferMode, Reason: "is a data: URI, but it takes uploaded files only (transferModes: upload): call files/authorizeUpload, upload the bytes, and send the mcp-file: URI it returns"}
	}
	h, herr := datauri.ParseHeader(hdr)
	if herr != nil {
		return parsed{}, uriError(arg, herr)
	}
	if !d.Accepts(h.MediaType) {
		return parsed{}, mediaTypeError(arg, h.MediaType, d)
	}
	return parsed{Header: h, payload: payload}, nil
}

// mediaTypeError is the error of a file of media type mt that d's accept
// list does not allow.
func mediaTypeError(arg, mt string, d descriptor.File) *runtime.Error {
	return &runtime.Error{Arg: arg, Rule: runtime.RuleMediaType, MediaType: mt, Allowed: d.Allowed()}
}

func sizeError(arg string, n, limit int64) *runtime.Error {
	return &runtime.Error{Arg: arg, Rule: runtime.RuleMaxSize, Received: n, Limit: limit}
}

// base64Checked is base64Size for the payload of argument arg, checked: a
// length no base64 text has breaks runtime.RuleURIForm, and a decoded size over
// d's limit runtime.RuleMaxSize.
func base64Checked(arg string, p []byte, lineBreaks bool, d descriptor.File) (n int64, raw bool, err *runtime.Error) {
	n, raw, ok := datauri.Base64Size(p, lineBreaks)
	if !ok {
		return 0, false, formError(arg, datauri.BadBase64)
	}
	if limit := d.Limit(runtime.DefaultMaxSize); n > limit {
		return 0, false, sizeError(arg, n, limit)
	}
	return n, raw, nil
}

// decodeBase64 decodes the base64 payload p after checking its decoded size
// against d's limit. Line breaks are tolerated (see the package
// documentation); the fast path, without them, allocates exactly the
// decoded size and decodes with SIMD where the CPU has it.
//
// The fast path of inline files (package inline) has p, clean, decoded as
// pl says when pl is not nil. When pl.head gives the bytes decoded from the
// start of p's text before the message was whole (an inline.Splice), p is
// the rest of that text: the file is those bytes and p's (see decodeAfter).
// Else with pl.inPlace, p is decoded in place: the bytes returned are p's
// first ones (their capacity their length), p no longer holds the base64,
// and pl.undo is set to the function that writes it back. On error, p is
// as it was. The message the fast path reads the file from is its own, so
// the file's bytes then live in it.
func decodeBase64(arg string, p []byte, d descriptor.File, clean bool, pl *placement) ([]byte, *runtime.Error) {
	if pl != nil && pl.head != nil && clean {
		if head := pl.head(p); head != nil {
			return decodeAfter(arg, head, p, d)
		}
	}
	if !clean && datauri.HasLineBreak(p) {
		// Rare: RFC 2045 line breaks. Strip them into a copy; the
		// decoded size is checked before the copy is made.
		if _, _, err := base64Checked(arg, p, true, d); err != nil {
			return nil, err
		}
		p = datauri.WithoutLineBreaks(p)
	}
	n, raw, cerr := base64Checked(arg, p, false, d)
	if cerr != nil {
		return nil, cerr
	}
	if pl != nil && pl.inPlace && clean {
		u, ok := decodeInPlace(p, int(n), raw, inPlaceBlock)
		if !ok {
			return nil, base64Error(arg, p, raw)
		}
		pl.undo = u
		return p[:n:n], nil
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

// A placement is how the fast path of inline files (package inline) has a
// base64 payload decoded, where the generated decoder gives nil: into a
// buffer of its own.
type placement struct {
	// inPlace: into the payload's own bytes (decodeInPlace); undo is then
	// set to the function that writes the text back.
	inPlace bool
	undo    func()
	// head, when not nil, returns the bytes that the start of a payload's
	// text decoded to as the message was read, which the message no longer
	// holds (inline.Splice), for a payload p that begins where that text
	// was; nil for any other.
	head func(p []byte) []byte
}

// decodeAfter decodes the payload whose text is that of head (the bytes it
// decoded to: whole groups, without padding) followed by p, checking what
// decodeBase64 checks of the whole. p is the end of the text, at most a
// group and its padding where the text was plain base64: any byte of p
// outside the base64 alphabet and '=' is refused here, as the decoder of
// the whole text would refuse it or skip it (a line break). The file's
// bytes are head's, p's bytes appended in head's spare capacity.
func decodeAfter(arg string, head, p []byte, d descriptor.File) ([]byte, *runtime.Error) {
	for _, c := range p {
		if c != '=' && !isBase64Char(c) {
			return nil, formError(arg, datauri.BadBase64)
		}
	}
	n, raw, ok := datauri.Base64Size(p, false)
	if !ok {
		return nil, formError(arg, datauri.BadBase64)
	}
	if limit := d.Limit(runtime.DefaultMaxSize); int64(len(head))+n > limit {
		return nil, sizeError(arg, int64(len(head))+n, limit)
	}
	enc := base64.StdEncoding
	if raw {
		enc = base64.RawStdEncoding
	}
	rest := make([]byte, n)
	if m, err := enc.Decode(rest, p); err != nil || int64(m) != n {
		return nil, base64Error(arg, p, raw)
	}
	data := append(head, rest...)
	return data[:len(data):len(data)], nil
}

// isBase64Char reports whether c is of the standard base64 alphabet.
func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// inPlaceBlock is how much base64 decodeInPlace decodes at a time: a
// multiple of 4, whose decoded bytes stay in the CPU's cache until they
// are copied over the text they came from.
const inPlaceBlock = 32 << 10

// decodeInPlace decodes p, base64 without line breaks that decodes to n
// bytes (unpadded when raw), into p[:n], block bytes at a time. It
// returns the function that writes the text back (once: later calls do
// nothing), or, when p does not decode to n bytes (a line break in it
// included), false and p as it was. Each block is decoded into a
// buffer of its own, then copied to where its bytes go, which is before
// the block's own text (3 bytes for every 4 characters): the decoders'
// writes are never aimed at text they have yet to read, whatever their
// internals. The blocks are decoded as the whole is: every block but the
// last without padding, where a '=' is invalid as it is anywhere but at
// the end of the whole; the last as the whole would be.
func decodeInPlace(p []byte, n int, raw bool, block int) (undo func(), ok bool) {
	// The text of the whole groups of 3 bytes is written back from the
	// bytes (4 base64 characters stand for 3 bytes one to one); that of
	// the last group, from a copy of it.
	g := n / 3 * 4
	tail := string(p[g:])
	restore := func(o int) {
		copy(p, base64.RawStdEncoding.EncodeToString(p[:o/3*3]))
		copy(p[g:], tail)
	}
	buf := make([]byte, min(len(p), block)/4*3+3)
	o := 0
	for i := 0; i < len(p); i += block {
		j := min(i+block, len(p))
		enc := base64.RawStdEncoding
		if j == len(p) && !raw {
			enc = base64.StdEncoding
		}
		m, err := enc.Decode(buf, p[i:j])
		// Each block's bytes are known before they are copied: every
		// 4 characters but the last block's are 3 bytes, the last block's
		// are what is left of n. The decoders skip line breaks, which p
		// must not hold; a block they skipped some in decodes to fewer,
		// and is refused before its bytes overwrite anything, so that
		// restore writes back exactly the text there was.
		want := (j - i) / 4 * 3
		if j == len(p) {
			want = n - o
		}
		if err != nil || m != want {
			restore(o)
			return nil, false
		}
		o += copy(p[o:], buf[:m])
	}
	if o != n {
		restore(o)
		return nil, false
	}
	undone := false
	return func() {
		if !undone { // once: after that, p holds the text again
			undone = true
			restore(n)
		}
	}, true
}

// decodePercent decodes the percent-encoded payload p after checking its
// decoded size against d's limit.
func decodePercent(arg string, p []byte, d descriptor.File) ([]byte, *runtime.Error) {
	n := datauri.PercentSize(p)
	if n < 0 {
		return nil, formError(arg, "the data has an invalid %-escape")
	}
	if limit := d.Limit(runtime.DefaultMaxSize); n > limit {
		return nil, sizeError(arg, n, limit)
	}
	buf := make([]byte, n)
	if err := unpercent(arg, buf, p); err != nil {
		return nil, err
	}
	return buf, nil
}

// validate implements Validate.
func validate(arg string, uri []byte, d descriptor.File, clean bool) *runtime.Error {
	p, err := check(arg, uri, d)
	if err != nil {
		return err
	}
	pp := prefixes.Get().(*[content.SniffLen]byte) // the content check's matchers make a local array escape
	defer prefixes.Put(pp)
	prefix := pp[:]
	var n int
	if p.Base64 {
		n, err = validateBase64(arg, p.payload, d, clean, prefix[:])
	} else {
		size := datauri.PercentSize(p.payload)
		if size < 0 {
			return formError(arg, "the data has an invalid %-escape")
		}
		if limit := d.Limit(runtime.DefaultMaxSize); size > limit {
			return sizeError(arg, size, limit)
		}
		err = unpercent(arg, prefix[:], p.payload)
		n = int(min(size, content.SniffLen))
	}
	if err != nil {
		return err
	}
	if !d.NoSniff {
		return checkContent(arg, p.MediaType, p.Charset(), prefix[:n])
	}
	return nil
}

// chunk is how many base64 bytes validateBase64 decodes a step (a multiple
// of 4), and chunkOut what they decode to, with the SIMD decoder's slack.
const (
	chunk    = 4096
	chunkOut = chunk/4*3 + 32
)

// chunks, prefixes and headers hold the scratch buffers of validateBase64,
// validate and checkEscaped: taken from a pool, not allocated per file, so that an
// array of thousands of small files costs no more than its items.
var (
	chunks   = sync.Pool{New: func() any { return new([chunkOut]byte) }}
	prefixes = sync.Pool{New: func() any { return new([content.SniffLen]byte) }}
	headers  = sync.Pool{New: func() any { return new([headerBuf]byte) }}
)

// headerBuf is the unescaped prefix checkEscaped reads: long enough to hold
// the longest header, and one byte more to tell that there is more.
const headerBuf = len("data:") + datauri.MaxHeaderLen + 2

// validateBase64 checks the size and the validity of the base64 payload p,
// decoding it in chunks, and copies the first decoded bytes into prefix.
func validateBase64(arg string, p []byte, d descriptor.File, clean bool, prefix []byte) (int, *runtime.Error) {
	if !clean && datauri.HasLineBreak(p) {
		_, raw, cerr := base64Checked(arg, p, true, d)
		if cerr != nil {
			return 0, cerr
		}
		enc := stdbase64.StdEncoding
		if raw {
			enc = stdbase64.RawStdEncoding
		}
		r := stdbase64.NewDecoder(enc, bytes.NewReader(p))
		// A buffer of this rare path's own: prefix, passed to a Reader,
		// would escape to the heap on every call of the common path.
		tmp := make([]byte, len(prefix))
		k, err := io.ReadFull(r, tmp)
		copy(prefix, tmp[:k])
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		} else if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = nil
		}
		if err != nil {
			return 0, base64Error(arg, datauri.WithoutLineBreaks(p), raw)
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
	bp := chunks.Get().(*[chunkOut]byte) // the SIMD decoder makes a local array escape
	defer chunks.Put(bp)
	buf := bp[:]
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

// escapedPayload describes the payload of a URI held, escaped, in a JSON
// string: where it starts in the unescaped URI and its unescaped length.
type escapedPayload struct {
	datauri.Header
	off        int   // offset of the payload in the unescaped URI
	total      int64 // unescaped length of the payload
	lineBreaks int64 // CR and LF in a base64 payload
}

// checkEscaped makes the checks that need no decoding (scheme, form of the
// header, media type) and the size check on the URI held, escaped, in the
// JSON string contents s, unescaping only the header. The errors are those
// Decode gives for the unescaped URI.
func checkEscaped(arg string, s []byte, d descriptor.File) (escapedPayload, *runtime.Error) {
	// The unescaped prefix that splitURI and parseHeader look at.
	pb := headers.Get().(*[headerBuf]byte)
	defer headers.Put(pb)
	prefix := pb[:0]
	u := jsonwalk.NewUnescaper(s)
	var pending []byte // the part of the last piece beyond the prefix
	for len(prefix) < cap(prefix) {
		piece := u.Next()
		if piece == nil {
			break
		}
		k := min(len(piece), cap(prefix)-len(prefix))
		prefix, pending = append(prefix, piece[:k]...), piece[k:]
	}
	p, err := check(arg, prefix, d)
	if err != nil {
		return escapedPayload{}, err
	}
	// Count the rest of the payload on the same walk.
	c := payloadCounter{base64: p.Base64}
	c.add(p.payload)
	c.add(pending)
	for piece := u.Next(); piece != nil; piece = u.Next() {
		c.add(piece)
	}
	e := escapedPayload{Header: p.Header, off: len(prefix) - len(p.payload), total: c.total, lineBreaks: c.lineBreaks}
	var n int64
	if e.Base64 {
		var ok bool
		if n, _, ok = datauri.Base64Len(c.total-c.lineBreaks, c.last, c.prev); !ok {
			return e, formError(arg, datauri.BadBase64)
		}
	} else if n = c.total - 2*c.pct; n < 0 {
		return e, formError(arg, "the data has an invalid %-escape")
	}
	if limit := d.Limit(runtime.DefaultMaxSize); n > limit {
		return e, sizeError(arg, n, limit)
	}
	return e, nil
}

// payloadCounter counts an unescaped payload piece by piece: its length,
// its line breaks (base64) or '%' (percent-encoding), and the last two
// characters that are not line breaks.
type payloadCounter struct {
	base64                 bool
	total, lineBreaks, pct int64
	last, prev             byte
}

func (c *payloadCounter) add(piece []byte) {
	if len(piece) == 0 {
		return
	}
	c.total += int64(len(piece))
	if !c.base64 {
		c.pct += int64(bytes.Count(piece, []byte{'%'}))
		return
	}
	if len(piece) == 1 || bytes.IndexByte(piece, '\n') >= 0 || bytes.IndexByte(piece, '\r') >= 0 {
		for _, ch := range piece {
			if ch == '\r' || ch == '\n' {
				c.lineBreaks++
			} else {
				c.last, c.prev = ch, c.last
			}
		}
		return
	}
	c.last, c.prev = piece[len(piece)-1], piece[len(piece)-2]
}

// decodeEscaped is decode for a URI held, escaped, in the JSON string
// contents s. After the size check it unescapes the payload alone (without
// line breaks, for base64) and decodes that.
func decodeEscaped(arg string, s []byte, d descriptor.File) (runtime.File, *runtime.Error) {
	e, err := checkEscaped(arg, s, d)
	if err != nil {
		return runtime.File{}, err
	}
	payload := make([]byte, 0, e.total-e.lineBreaks)
	u := jsonwalk.NewUnescaper(s)
	for off, piece := e.off, u.Next(); piece != nil; piece = u.Next() {
		if off > 0 {
			k := min(off, len(piece))
			piece, off = piece[k:], off-k
		}
		if e.Base64 && e.lineBreaks > 0 {
			for _, c := range piece {
				if c != '\r' && c != '\n' {
					payload = append(payload, c)
				}
			}
			continue
		}
		payload = append(payload, piece...)
	}
	return decodePayload(arg, e.Header, payload, d, true, nil)
}

// maxEscapedFileURI bounds the JSON string contents, escaped, that are
// unescaped to see whether they are a file URI: six times the longest file
// URI, every character a \u escape.
const maxEscapedFileURI = 6 * hook.MaxURILen

// isFileURI reports whether uri has the scheme of an uploaded file's URI,
// mcp-file: (schemes are case-insensitive).
func isFileURI(uri []byte) bool {
	return len(uri) >= len(hook.FileScheme) && datauri.EqualFold(uri[:len(hook.FileScheme)], hook.FileScheme)
}

// escapedFileURI reports whether the JSON string contents s, escaped,
// begin with the scheme of a file URI.
func escapedFileURI(s []byte) bool {
	var head [len(hook.FileScheme)]byte
	n := 0
	u := jsonwalk.NewUnescaper(s)
	for piece := u.Next(); piece != nil && n < len(head); piece = u.Next() {
		n += copy(head[n:], piece)
	}
	return isFileURI(head[:n])
}

// fileRef returns the File that refers to uri, an uploaded file's URI sent
// for argument arg, for runtime.AddTool or runtime.Elicit to resolve
// before the handler runs; or the error when d takes no uploads. Only the
// length is checked here: the transfer layer, which holds the keys, checks
// the rest.
func fileRef(arg string, uri []byte, d descriptor.File) (runtime.File, error) {
	if !d.AllowsUpload() {
		return runtime.File{}, transferError(arg, d, "")
	}
	if len(uri) > hook.MaxURILen {
		return runtime.File{}, &runtime.Error{Arg: arg, Rule: runtime.RuleFileURI, Reason: "it is " + strconv.Itoa(len(uri)) + " bytes long, and the file URIs this server hands out are at most " + strconv.Itoa(hook.MaxURILen), Code: wire.ReasonMalformed}
	}
	return hook.NewRef(string(uri)).(runtime.File), nil
}

// transferError is the error of an uploaded file's URI sent for argument
// arg, which does not take it: because of d's transfer modes, or else for
// why.
func transferError(arg string, d descriptor.File, why string) *runtime.Error {
	if !d.AllowsUpload() {
		why = "it takes data: URIs only (transferModes: inline): send the file inline, as a data: URI"
	}
	return &runtime.Error{Arg: arg, Rule: runtime.RuleTransferMode, Reason: "is an uploaded file's URI (mcp-file:), but " + why}
}

// uriError is the error of argument arg for the datauri error e.
func uriError(arg string, e *datauri.Error) *runtime.Error {
	if e.NotData {
		return &runtime.Error{Arg: arg, Rule: runtime.RuleScheme, Scheme: e.Scheme, Reason: e.Reason}
	}
	return formError(arg, e.Reason)
}

func formError(arg, reason string) *runtime.Error {
	return &runtime.Error{Arg: arg, Rule: runtime.RuleURIForm, Reason: reason}
}

// splitURI is datauri.Split for argument arg.
func splitURI(arg string, uri []byte) (hdr, payload []byte, err *runtime.Error) {
	hdr, payload, e := datauri.Split(uri)
	if e != nil {
		return nil, nil, uriError(arg, e)
	}
	return hdr, payload, nil
}

// base64Error locates the first invalid base64 byte for the error text.
func base64Error(arg string, p []byte, raw bool) *runtime.Error {
	return uriError(arg, datauri.Base64Error(p, raw))
}

// unpercent is datauri.Unpercent for argument arg.
func unpercent(arg string, dst, p []byte) *runtime.Error {
	if e := datauri.Unpercent(dst, p); e != nil {
		return uriError(arg, e)
	}
	return nil
}

// checkContent checks the first decoded bytes of a file against its
// declared media type mt and charset (see package content).
func checkContent(arg, mt, charset string, prefix []byte) *runtime.Error {
	if detected, ok := content.Check(mt, charset, prefix); !ok {
		return &runtime.Error{Arg: arg, Rule: runtime.RuleContent, MediaType: mt, Detected: detected}
	}
	return nil
}

// jsonString returns the contents of the JSON string token tok, the value
// of the file argument arg that d describes, quotes removed, still escaped
// when escaped is true. Without escapes they are ASCII without control
// characters.
func jsonString(arg string, tok []byte, d descriptor.File) (s []byte, escaped bool, err error) {
	t := jsonwalk.TrimWS(tok)
	if len(t) == 0 || t[0] != '"' {
		return nil, false, typeError(arg, t, d, descriptor.Single)
	}
	if len(t) >= 2 && t[len(t)-1] == '"' && jsonwalk.Plain(t[1:len(t)-1]) {
		return t[1 : len(t)-1], false, nil
	}
	if end, ok := jsonwalk.ScanString(t, 0); !ok || end != len(t) {
		return nil, false, jsonwalk.DecodeError(tok, new(string))
	}
	return t[1 : len(t)-1], true, nil
}
