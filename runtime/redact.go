package runtime

import (
	"strconv"
)

// Redact returns a form of uri that is safe for logs, traces and error
// reports: "data:<type>[;base64],[<n> bytes]" for a data: URI, where n is the
// decoded size the payload's length implies (its length for malformed
// data), without parameters (a legacy name= parameter may be personal); for
// any other value only its scheme and length ("https:[42 bytes]"), or only
// its length. Use it where a server keeps a file argument as a string.
func Redact(uri string) string {
	b := stringBytes(uri)
	hdr, payload, err := splitURI("", b)
	if err != nil {
		if err.Rule == RuleScheme && err.Scheme != "" {
			return err.Scheme + ":[" + strconv.Itoa(len(uri)) + " bytes]"
		}
		if err.Rule == RuleURIForm {
			return "data:[" + strconv.Itoa(len(uri)) + " bytes]"
		}
		return "[" + strconv.Itoa(len(uri)) + " bytes]"
	}
	h, reason := parseHeader(hdr)
	if reason != "" {
		return "data:[" + strconv.Itoa(len(uri)) + " bytes]"
	}
	var n int64
	if h.base64 {
		var ok bool
		if n, _, ok = base64Size(payload, true); !ok {
			n = int64(len(payload))
		}
	} else {
		n = max(percentSize(payload), 0)
	}
	s := "data:" + h.mediaType
	if h.base64 {
		s += ";base64"
	}
	return s + ",[" + strconv.FormatInt(n, 10) + " bytes]"
}
