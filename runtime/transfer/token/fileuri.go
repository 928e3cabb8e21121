package token

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on file URIs.
const (
	MaxHostLen = 253
	// MaxFileURILen bounds the length of a file URI: the longest host, file
	// id, key id and expiry take 469 bytes.
	MaxFileURILen = 512
)

const (
	fileScheme    = "mcp-file://"
	fileURIDomain = "mcpfile/file-uri/v1"
	fileURIMACLen = 16
)

// A FileRef is what a file URI names: the file FileID on the server Host,
// usable by Owner until Expires.
type FileRef struct {
	Host    string    // the server: 1 to MaxHostLen characters of [a-z0-9.-_:[]]; FileURI lowers its case
	FileID  string    // 1 to MaxFileIDLen characters of [A-Za-z0-9_-], e.g. from NewFileID
	Owner   string    // the principal, "" without auth; signed into the URI but not written in it
	Expires time.Time // kept to the second (truncated); after 1970
}

// NewFileID returns a new random file id: "file_" and 26 base32
// characters, 130 bits from crypto/rand.
func NewFileID() string { return "file_" + rand.Text() }

// FileURI returns the mcp-file URI of ref, signed with the keyring's first
// key:
//
//	mcp-file://<host>/<file id>.<key id>.<expiry>.<mac>
//
// The same ref and key always give the same URI. It is an error for ref to
// break the limits documented on [FileRef].
func (r *Keyring) FileURI(ref FileRef) (string, error) {
	k, err := r.signer()
	if err != nil {
		return "", err
	}
	ref.Host = strings.ToLower(ref.Host)
	if field, rule := checkFileRef(&ref); field != "" {
		return "", fmt.Errorf("token: cannot make file URI: %s: %s", field, rule)
	}
	return fileURIWith(k, &ref), nil
}

// fileURIWith returns the file URI of valid ref under k.
func fileURIWith(k *Key, ref *FileRef) string {
	exp := ref.Expires.Unix()
	mac := fileURIMAC(k, ref.Host, ref.FileID, ref.Owner, exp)
	return fileScheme + ref.Host + "/" + ref.FileID + "." + k.id + "." + strconv.FormatInt(exp, 10) + "." + b64.EncodeToString(mac)
}

// ParseFileURI checks a file URI sent by the caller owner ("" without auth)
// and returns what it names. The URI must be exactly as [Keyring.FileURI]
// wrote it, signed by a key of the keyring for this owner (compared in
// constant time) and unexpired at now; anything else, a path included, is
// rejected and never resolved. A URI of another owner fails like a forged
// one, with [ErrBadSignature]. The error is an [*Error] that wraps
// [ErrMalformed], [ErrUnknownKey], [ErrBadSignature] or [ErrExpired]. The
// caller decides whether ref.Host must be its own.
func (r *Keyring) ParseFileURI(uri, owner string, now time.Time) (FileRef, error) {
	fail := func(kind error, reason string) (FileRef, error) {
		return FileRef{}, &Error{Input: inputFileURI, Len: len(uri), Err: kind, Reason: reason}
	}
	if len(uri) > MaxFileURILen {
		return fail(ErrMalformed, fmt.Sprintf("longer than %d bytes", MaxFileURILen))
	}
	rest, ok := strings.CutPrefix(uri, fileScheme)
	if !ok {
		return fail(ErrMalformed, schemeProblem(uri))
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		if rest[i] == '?' {
			return fail(ErrMalformed, "query not allowed")
		}
		return fail(ErrMalformed, "fragment not allowed")
	}
	host, path, ok := strings.Cut(rest, "/")
	switch {
	case strings.Contains(host, "@"):
		return fail(ErrMalformed, "userinfo not allowed")
	case host == "":
		return fail(ErrMalformed, "no host")
	case !isHost(host):
		return fail(ErrMalformed, "host: want 1 to 253 characters of [a-z0-9.-_:[]]")
	case !ok || path == "":
		return fail(ErrMalformed, "no file id")
	case strings.Contains(path, "%"):
		return fail(ErrMalformed, "%-escapes not allowed")
	case strings.Contains(path, "/"):
		return fail(ErrMalformed, "path has more than one segment")
	}
	parts := strings.Split(path, ".")
	if len(parts) != 4 {
		return fail(ErrMalformed, "path: want four parts joined by dots")
	}
	id, kid, exps, macs := parts[0], parts[1], parts[2], parts[3]
	if !isIDChars(id, MaxFileIDLen) {
		return fail(ErrMalformed, fmt.Sprintf("file id: want 1 to %d characters of [A-Za-z0-9_-]", MaxFileIDLen))
	}
	if !isIDChars(kid, MaxKeyIDLen) {
		return fail(ErrMalformed, fmt.Sprintf("key id: want 1 to %d characters of [A-Za-z0-9_-]", MaxKeyIDLen))
	}
	exp, ok := parseUnix(exps)
	if !ok {
		return fail(ErrMalformed, "expiry: want Unix seconds in decimal")
	}
	mac, ok := decodeB64(macs)
	if !ok || len(mac) != fileURIMACLen {
		return fail(ErrMalformed, "mac: want 16 bytes of base64url without padding")
	}
	if len(owner) > MaxOwnerLen || !utf8.ValidString(owner) {
		// The caller's principal, not the URI's: a URI cannot be for it.
		return fail(ErrBadSignature, "owner cannot be signed")
	}
	k := r.lookup(kid)
	if k == nil {
		return fail(ErrUnknownKey, fmt.Sprintf("key id %q", kid))
	}
	if !hmac.Equal(mac, fileURIMAC(k, host, id, owner, exp)) {
		return fail(ErrBadSignature, "")
	}
	ref := FileRef{Host: host, FileID: id, Owner: owner, Expires: time.Unix(exp, 0).UTC()}
	if !now.Before(ref.Expires) {
		return fail(ErrExpired, "at "+ref.Expires.Format(time.RFC3339))
	}
	return ref, nil
}

// schemeProblem says why uri does not start with "mcp-file://".
func schemeProblem(uri string) string {
	switch {
	case uri == "":
		return "empty"
	case len(uri) >= len(fileScheme) && strings.EqualFold(uri[:len(fileScheme)], fileScheme):
		return "scheme and host must be lower case, as issued"
	case strings.HasPrefix(uri, "mcp-file:"):
		return `want "//" and a host after "mcp-file:"`
	}
	if i := strings.IndexAny(uri, ":/\\"); i > 0 && uri[i] == ':' {
		return "scheme is not mcp-file"
	}
	return "not a URI (file URIs are never paths)"
}

// checkFileRef checks ref against the limits and truncates its expiry to
// the second. It returns the field and rule broken, or "", "".
func checkFileRef(ref *FileRef) (field, rule string) {
	switch {
	case !isHost(ref.Host):
		return "host", "want 1 to 253 characters of [a-z0-9.-_:[]]"
	case !isIDChars(ref.FileID, MaxFileIDLen):
		return "file id", fmt.Sprintf("want 1 to %d characters of [A-Za-z0-9_-]", MaxFileIDLen)
	case len(ref.Owner) > MaxOwnerLen || !utf8.ValidString(ref.Owner):
		return "owner", fmt.Sprintf("want valid UTF-8 of at most %d bytes", MaxOwnerLen)
	case ref.Expires.Unix() <= 0:
		return "expires", "want a time after 1970"
	}
	ref.Expires = time.Unix(ref.Expires.Unix(), 0).UTC()
	return "", ""
}

// fileURIMAC returns the truncated HMAC-SHA-256 under k of a file URI's
// fields, each length-prefixed as in a token's payload.
func fileURIMAC(k *Key, host, id, owner string, exp int64) []byte {
	b := make([]byte, 0, 64+len(owner))
	b = appendStr8(b, host)
	b = appendStr8(b, k.id)
	b = appendStr8(b, id)
	b = appendStr16(b, owner)
	b = binary.BigEndian.AppendUint64(b, uint64(exp))
	return k.mac(fileURIDomain, b)[:fileURIMACLen]
}

// parseUnix parses positive decimal seconds without sign or leading zero,
// the one way strconv.FormatInt writes them.
func parseUnix(s string) (int64, bool) {
	if s == "" || s[0] == '0' || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// isHost reports whether s is 1 to MaxHostLen characters of
// [a-z0-9.-_:[]]: a lower-case DNS name or IP address, with a port.
func isHost(s string) bool {
	if len(s) == 0 || len(s) > MaxHostLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte(".-_:[]", c) >= 0) {
			return false
		}
	}
	return true
}
