package runtime

import "bytes"

// This file decodes a URI held in a JSON string with escapes (the slow path
// of DecodeJSON and ValidateJSON; some encoders escape '/' or '+' in every
// string). It checks the size before anything of the payload's size is
// allocated, as the fast path does: a hostile token costs a walk, not a copy.

// escapedPayload describes the payload of a URI held, escaped, in a JSON
// string: where it starts in the unescaped URI and its unescaped length.
type escapedPayload struct {
	header
	off        int   // offset of the payload in the unescaped URI
	total      int64 // unescaped length of the payload
	lineBreaks int64 // CR and LF in a base64 payload
}

// checkEscaped makes the checks that need no decoding (scheme, form of the
// header, media type) and the size check on the URI held, escaped, in the
// JSON string contents s, unescaping only the header. The errors are those
// Decode gives for the unescaped URI.
func checkEscaped(arg string, s []byte, d Descriptor) (escapedPayload, *Error) {
	// The unescaped prefix that splitURI and parseHeader look at: long
	// enough to hold the longest header, and one byte more to tell that
	// there is more.
	var pb [len("data:") + maxHeaderLen + 2]byte
	prefix := pb[:0]
	u := unescaper{s: s}
	for len(prefix) < cap(prefix) {
		piece := u.next()
		if piece == nil {
			break
		}
		prefix = append(prefix, piece[:min(len(piece), cap(prefix)-len(prefix))]...)
	}
	p, err := check(arg, prefix, d)
	if err != nil {
		return escapedPayload{}, err
	}
	e := escapedPayload{header: p.header, off: len(prefix) - len(p.payload)}

	// Count the payload: its length, line breaks or '%', its last two
	// characters that are not line breaks.
	var pct int64
	var last, prev byte
	walkPayload(s, e.off, func(piece []byte) {
		e.total += int64(len(piece))
		if !e.base64 {
			pct += int64(bytes.Count(piece, []byte{'%'}))
			return
		}
		e.lineBreaks += int64(bytes.Count(piece, []byte{'\n'}) + bytes.Count(piece, []byte{'\r'}))
		var t [2]byte
		k := 0
		for i := len(piece) - 1; i >= 0 && k < 2; i-- {
			if c := piece[i]; c != '\r' && c != '\n' {
				t[k] = c
				k++
			}
		}
		switch k {
		case 2:
			last, prev = t[0], t[1]
		case 1:
			last, prev = t[0], last
		}
	})
	var n int64
	if e.base64 {
		var ok bool
		if n, _, ok = base64Len(e.total-e.lineBreaks, last, prev); !ok {
			return e, formError(arg, badBase64)
		}
	} else if n = e.total - 2*pct; n < 0 {
		return e, formError(arg, "the data has an invalid %-escape")
	}
	if limit := d.limit(); n > limit {
		return e, sizeError(arg, n, limit)
	}
	return e, nil
}

// walkPayload calls fn with the unescaped pieces of the JSON string contents
// s from the unescaped offset off on.
func walkPayload(s []byte, off int, fn func(piece []byte)) {
	u := unescaper{s: s}
	for piece := u.next(); piece != nil; piece = u.next() {
		if off > 0 {
			k := min(off, len(piece))
			piece, off = piece[k:], off-k
			if len(piece) == 0 {
				continue
			}
		}
		fn(piece)
	}
}

// decodeEscaped is decode for a URI held, escaped, in the JSON string
// contents s. After the size check it unescapes the payload alone (without
// line breaks, for base64) and decodes that.
func decodeEscaped(arg string, s []byte, d Descriptor) (File, *Error) {
	e, err := checkEscaped(arg, s, d)
	if err != nil {
		return File{}, err
	}
	payload := make([]byte, 0, e.total-e.lineBreaks)
	walkPayload(s, e.off, func(piece []byte) {
		if !e.base64 || e.lineBreaks == 0 {
			payload = append(payload, piece...)
			return
		}
		for _, c := range piece {
			if c != '\r' && c != '\n' {
				payload = append(payload, c)
			}
		}
	})
	var data []byte
	if e.base64 {
		data, err = decodeBase64(arg, payload, d, true)
	} else {
		data, err = decodePercent(arg, payload, d)
	}
	if err != nil {
		return File{}, err
	}
	if !d.NoSniff {
		if err := checkContent(arg, e.mediaType, data[:min(len(data), sniffLen)]); err != nil {
			return File{}, err
		}
	}
	return File{MediaType: e.mediaType, Params: e.params, Name: e.name, Data: data}, nil
}
