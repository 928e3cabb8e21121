package token

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on file URIs.
const (
	MaxHostLen = 253
	// MaxFileURILen bounds the length of a file URI: the longest host, key
	// id and file id take 476 bytes, and 509 with a size and a SHA-256.
	MaxFileURILen = 512
)

const (
	fileScheme    = "mcp-file://"
	fileURIDomain = "mcpfile/file-uri/v2\x00"
)

// A FileRef is what a file URI names: the file FileID on the server Host,
// usable by Owner until Expires, and, when they were known as the URI was
// made, the size and SHA-256 that were authorized for its bytes, which
// every read of the file checks the stored bytes against.
type FileRef struct {
	Host    string    // the server: 1 to MaxHostLen characters of [a-z0-9.-_:[]]; FileURI lowers its case
	FileID  string    // 1 to MaxFileIDLen characters of [A-Za-z0-9_-], e.g. from NewFileID
	Owner   string    // the principal, "" without auth; bound into the URI but not written in it
	Expires time.Time // kept to the second (truncated); after 1970
	// Sized reports whether Size is the file's authorized length in bytes
	// (0 or more); a URI made before the size is known has none.
	Sized bool
	Size  int64
	// SHA256Prefix is the first SHA256PrefixLen bytes of the file's
	// authorized SHA-256, or zero when none is known. The prefix keeps the
	// longest URI within MaxFileURILen; 128 bits are as hard to match with
	// other bytes as the whole digest is for any practical purpose.
	SHA256Prefix [SHA256PrefixLen]byte
}

// SHA256PrefixLen is how many bytes of a file's SHA-256 a file URI keeps.
const SHA256PrefixLen = 16

// NewFileID returns a new random file id: "file_" and 26 base32
// characters, 130 bits from crypto/rand.
func NewFileID() string { return "file_" + rand.Text() }

// FileURI returns the mcp-file URI of ref, sealed with the keyring's first
// key:
//
//	mcp-file://<host>/<key id>.<sealed>
//
// where sealed is the file id, expiry and what was authorized of the
// file's bytes (its size and SHA-256, as far as ref knows them), encrypted
// and authenticated together with the host, key id and owner, in
// base64url. Only the host
// and key id can be read from it; the same ref gives a different URI each
// time. It is an error for ref to break the limits documented on
// [FileRef].
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

// fileURIWith returns a file URI of valid ref under k.
func fileURIWith(k *Key, ref *FileRef) string {
	var buf [8 + 1 + MaxFileIDLen + 1 + 8 + SHA256PrefixLen]byte
	plain := appendFileRef(buf[:0], ref)
	sealed := k.seal(nil, plain, fileURIAD(k.id, ref.Host, ref.Owner))
	return fileScheme + ref.Host + "/" + k.id + "." + b64.EncodeToString(sealed)
}

// ParseFileURI checks a file URI sent by the caller owner ("" without auth)
// and returns what it names. The URI must be one [Keyring.FileURI] wrote,
// sealed by a key of the keyring for this host and owner (its tag compared
// in constant time) and unexpired at now; anything else, a path included,
// is rejected and never resolved. A URI of another owner fails like a
// forged one, with [ErrBadSignature]. The error is an [*Error] that wraps
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
	kid, sealed, reason := cutSealed(path)
	if reason != "" {
		return fail(ErrMalformed, "path: "+reason)
	}
	if len(owner) > MaxOwnerLen || !utf8.ValidString(owner) {
		// The caller's principal, not the URI's: a URI cannot be for it.
		return fail(ErrBadSignature, "owner cannot be sealed")
	}
	k := r.lookup(kid)
	if k == nil {
		return fail(ErrUnknownKey, fmt.Sprintf("key id %q", kid))
	}
	plain, ok := k.open(sealed, fileURIAD(kid, host, owner))
	if !ok {
		return fail(ErrBadSignature, "")
	}
	ref, ok := parseFileRef(plain)
	if !ok {
		// Sealed by a holder of the key, yet not as FileURI seals.
		return fail(ErrMalformed, "sealed fields out of range")
	}
	ref.Host, ref.Owner = host, owner
	if !now.Before(ref.Expires) {
		return fail(ErrExpired, "at "+ref.Expires.Format(time.RFC3339))
	}
	return ref, nil
}

// fileURIAD returns the additional data a file URI is sealed with: the
// domain, key id, a NUL, and the host and owner, length-prefixed as in a
// token's payload.
func fileURIAD(kid, host, owner string) []byte {
	b := make([]byte, 0, len(fileURIDomain)+len(kid)+4+len(host)+len(owner))
	b = append(append(append(b, fileURIDomain...), kid...), 0)
	b = appendStr8(b, host)
	return appendStr16(b, owner)
}

// appendFileRef appends what a file URI seals of valid ref to b:
//
//	expires   8 bytes, Unix seconds, big-endian
//	file id   1-byte length in characters, then the characters packed
//	          6 bits each: the bytes that base64url decodes them to, after
//	          'A's to a multiple of four characters
//
//	what was authorized, only when something was:
//	  flags   1 byte: refSized, refSHA256, or both
//	  size    8 bytes, big-endian, with refSized
//	  sha256  the first SHA256PrefixLen bytes of the digest, with refSHA256
//
// Packing keeps the longest file URI within MaxFileURILen.
func appendFileRef(b []byte, ref *FileRef) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(ref.Expires.Unix()))
	b = append(b, byte(len(ref.FileID)))
	var id [MaxFileIDLen + 3]byte
	n := copy(id[:], ref.FileID)
	for ; n%4 != 0; n++ {
		id[n] = 'A'
	}
	b, _ = b64.AppendDecode(b, id[:n]) // characters of [A-Za-z0-9_-] in whole groups always decode
	var flags byte
	if ref.Sized {
		flags |= refSized
	}
	if ref.SHA256Prefix != ([SHA256PrefixLen]byte{}) {
		flags |= refSHA256
	}
	if flags == 0 {
		return b
	}
	b = append(b, flags)
	if ref.Sized {
		b = binary.BigEndian.AppendUint64(b, uint64(ref.Size))
	}
	if flags&refSHA256 != 0 {
		b = append(b, ref.SHA256Prefix[:]...)
	}
	return b
}

// The flags of what a file URI says was authorized.
const (
	refSized  = 1 << iota // the size follows
	refSHA256             // the SHA-256's prefix follows
)

// parseFileRef is the inverse of appendFileRef: it accepts exactly what
// appendFileRef writes for a valid ref, and returns all of ref but its
// Host and Owner.
func parseFileRef(b []byte) (FileRef, bool) {
	if len(b) < 9 {
		return FileRef{}, false
	}
	exp := binary.BigEndian.Uint64(b)
	n, packed := int(b[8]), b[9:]
	if exp == 0 || exp > math.MaxInt64 || n == 0 || n > MaxFileIDLen || len(packed) < (n+3)/4*3 {
		return FileRef{}, false
	}
	packed, rest := packed[:(n+3)/4*3], packed[(n+3)/4*3:]
	var buf [MaxFileIDLen + 3]byte
	id := b64.AppendEncode(buf[:0], packed)
	for _, c := range id[n:] {
		if c != 'A' {
			return FileRef{}, false
		}
	}
	ref := FileRef{FileID: string(id[:n]), Expires: time.Unix(int64(exp), 0).UTC()}
	if len(rest) == 0 {
		return ref, true
	}
	flags, rest := rest[0], rest[1:]
	if flags == 0 || flags&^(refSized|refSHA256) != 0 {
		return FileRef{}, false
	}
	if flags&refSized != 0 {
		if len(rest) < 8 || binary.BigEndian.Uint64(rest) > math.MaxInt64 {
			return FileRef{}, false
		}
		ref.Sized, ref.Size, rest = true, int64(binary.BigEndian.Uint64(rest)), rest[8:]
	}
	if flags&refSHA256 != 0 {
		if len(rest) < SHA256PrefixLen {
			return FileRef{}, false
		}
		copy(ref.SHA256Prefix[:], rest)
		rest = rest[SHA256PrefixLen:]
		if ref.SHA256Prefix == ([SHA256PrefixLen]byte{}) {
			return FileRef{}, false
		}
	}
	return ref, len(rest) == 0
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
	case ref.Sized && ref.Size < 0:
		return "size", "want 0 or more bytes"
	case !ref.Sized && ref.Size != 0:
		return "size", "want Sized with a size"
	}
	ref.Expires = time.Unix(ref.Expires.Unix(), 0).UTC()
	return "", ""
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
