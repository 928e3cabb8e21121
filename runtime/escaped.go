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
	var pending []byte // the part of the last piece beyond the prefix
	for len(prefix) < cap(prefix) {
		piece := u.next()
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
	c := payloadCounter{base64: p.base64}
	c.add(p.payload)
	c.add(pending)
	for piece := u.next(); piece != nil; piece = u.next() {
		c.add(piece)
	}
	e := escapedPayload{header: p.header, off: len(prefix) - len(p.payload), total: c.total, lineBreaks: c.lineBreaks}
	var n int64
	if e.base64 {
		var ok bool
		if n, _, ok = base64Len(c.total-c.lineBreaks, c.last, c.prev); !ok {
			return e, formError(arg, badBase64)
		}
	} else if n = c.total - 2*c.pct; n < 0 {
		return e, formError(arg, "the data has an invalid %-escape")
	}
	if limit := d.limit(); n > limit {
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
func decodeEscaped(arg string, s []byte, d Descriptor) (File, *Error) {
	e, err := checkEscaped(arg, s, d)
	if err != nil {
		return File{}, err
	}
	payload := make([]byte, 0, e.total-e.lineBreaks)
	u := unescaper{s: s}
	for off, piece := e.off, u.next(); piece != nil; piece = u.next() {
		if off > 0 {
			k := min(off, len(piece))
			piece, off = piece[k:], off-k
		}
		if e.base64 && e.lineBreaks > 0 {
			for _, c := range piece {
				if c != '\r' && c != '\n' {
					payload = append(payload, c)
				}
			}
			continue
		}
		payload = append(payload, piece...)
	}
	return decodePayload(arg, e.header, payload, d, true)
}
