package token

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
)

// Purposes of tokens. A token of one purpose is rejected where another is
// wanted, so a download token cannot upload. Other purposes may be used:
// 1 to [MaxPurposeLen] characters of [A-Za-z0-9_-].
const (
	PurposeUpload   = "upload"
	PurposeDownload = "download"
	// PurposePage is an upload page's (URL-mode elicitation of a file from
	// a person): its claims name the file ID the upload is stored under,
	// its owner (sealed, see [Keyring.Seal]) and expiry; Size is the most
	// bytes the file may have, MediaType the accept list (entries joined by
	// commas, "" for any) and Name the message the page shows (sealed).
	PurposePage = "page"
)

// Limits on claims. Sign refuses claims beyond them, and Verify rejects a
// token that carries them as malformed.
const (
	MaxPurposeLen   = 32
	MaxFileIDLen    = 128
	MaxOwnerLen     = 1024
	MaxMediaTypeLen = 255
	MaxNameLen      = 1024
	// MaxTokenLen bounds the length of a token: the longest claims, under
	// the longest key id, seal in 3,441 bytes.
	MaxTokenLen = 4096
)

// Claims are what a token grants: to do Purpose with the file FileID, of
// Owner, of Size bytes with digest SHA256, type MediaType and name Name,
// until Expires.
type Claims struct {
	Purpose   string    // PurposeUpload, PurposeDownload, …
	FileID    string    // 1 to MaxFileIDLen characters of [A-Za-z0-9_-], e.g. from NewFileID
	Owner     string    // the principal; "" without auth. Valid UTF-8, at most MaxOwnerLen bytes
	Size      int64     // in bytes, ≥ 0
	SHA256    []byte    // nil when no digest was declared, else 32 bytes
	MediaType string    // "" when none was declared; printable ASCII, at most MaxMediaTypeLen bytes
	Name      string    // the file name, sanitized by the issuer, "" for none; valid UTF-8, at most MaxNameLen bytes
	Expires   time.Time // kept to the second (truncated); after 1970
}

const (
	tokenDomain = "mcpfile/token/v2\x00"
	// tokenPad is the block the sealed claims are padded to, so that a
	// token's length tells little of the lengths of owner and name.
	tokenPad = 32
)

var b64 = base64.RawURLEncoding.Strict()

// Sign returns a token for c, sealed (encrypted and authenticated) with the
// keyring's first key, so that whoever holds the token can use it but not
// read it. The token is "<key id>.<base64url>" (no padding), at most
// [MaxTokenLen] bytes; the same claims give a different token each time.
// It is an error for c to break the limits documented on [Claims].
func (r *Keyring) Sign(c Claims) (string, error) {
	k, err := r.signer()
	if err != nil {
		return "", err
	}
	if field, rule := checkClaims(&c); field != "" {
		return "", fmt.Errorf("token: cannot sign: %s: %s", field, rule)
	}
	return signWith(k, &c), nil
}

// signWith returns a token for valid claims c under k.
func signWith(k *Key, c *Claims) string {
	var buf [256]byte
	payload := appendPayload(buf[:0], c)
	return k.id + "." + b64.EncodeToString(k.seal(nil, payload, sealAD(tokenDomain, k.id)))
}

// Verify checks tok and returns its claims: the token must be well formed,
// sealed by a key of the keyring (its tag compared in constant time),
// issued for purpose and unexpired at now. Checks run in that order, so
// nothing is said about the claims of a token that fails to open. The
// error is an [*Error] that wraps [ErrMalformed], [ErrUnknownKey],
// [ErrBadSignature], [ErrWrongPurpose] or [ErrExpired]. The caller still
// checks the owner.
func (r *Keyring) Verify(tok, purpose string, now time.Time) (Claims, error) {
	fail := func(kind error, reason string) (Claims, error) {
		return Claims{}, &Error{Input: inputToken, Len: len(tok), Err: kind, Reason: reason}
	}
	if len(tok) > MaxTokenLen {
		return fail(ErrMalformed, fmt.Sprintf("longer than %d bytes", MaxTokenLen))
	}
	kid, body, reason := cutSealed(tok)
	if reason != "" {
		return fail(ErrMalformed, reason)
	}
	k := r.lookup(kid)
	if k == nil {
		return fail(ErrUnknownKey, fmt.Sprintf("key id %q", kid))
	}
	payload, ok := k.open(body, sealAD(tokenDomain, kid))
	if !ok {
		return fail(ErrBadSignature, "")
	}
	c, reason := parsePayload(payload)
	if reason != "" {
		// Sealed by a holder of the key, yet not as Sign seals.
		return fail(ErrMalformed, reason)
	}
	if c.Purpose != purpose {
		return fail(ErrWrongPurpose, fmt.Sprintf("issued for %q, want %q", c.Purpose, purpose))
	}
	if !now.Before(c.Expires) {
		return fail(ErrExpired, "at "+c.Expires.Format(time.RFC3339))
	}
	return c, nil
}

// checkClaims checks c against the limits and truncates its expiry to the
// second. It returns the field and rule broken, or "", "".
func checkClaims(c *Claims) (field, rule string) {
	switch {
	case !isIDChars(c.Purpose, MaxPurposeLen):
		return "purpose", fmt.Sprintf("want 1 to %d characters of [A-Za-z0-9_-]", MaxPurposeLen)
	case !isIDChars(c.FileID, MaxFileIDLen):
		return "file id", fmt.Sprintf("want 1 to %d characters of [A-Za-z0-9_-]", MaxFileIDLen)
	case len(c.Owner) > MaxOwnerLen || !utf8.ValidString(c.Owner):
		return "owner", fmt.Sprintf("want valid UTF-8 of at most %d bytes", MaxOwnerLen)
	case c.Size < 0:
		return "size", "negative"
	case c.SHA256 != nil && len(c.SHA256) != 32:
		return "sha256", "want nil or 32 bytes"
	case len(c.MediaType) > MaxMediaTypeLen || !text.PrintableASCII(c.MediaType):
		return "media type", fmt.Sprintf("want printable ASCII of at most %d bytes", MaxMediaTypeLen)
	case len(c.Name) > MaxNameLen || !utf8.ValidString(c.Name):
		return "name", fmt.Sprintf("want valid UTF-8 of at most %d bytes", MaxNameLen)
	case c.Expires.Unix() <= 0:
		return "expires", "want a time after 1970"
	}
	c.Expires = time.Unix(c.Expires.Unix(), 0).UTC()
	return "", ""
}

// appendPayload appends the binary payload of valid claims c to b:
//
//	purpose   1-byte length, bytes
//	file id   1-byte length, bytes
//	owner     2-byte length, bytes
//	size      8 bytes
//	sha256    1-byte length (0 or 32), bytes
//	mediatype 1-byte length, bytes
//	name      2-byte length, bytes
//	expires   8 bytes, Unix seconds
//	padding   zero bytes, to a multiple of tokenPad bytes
//
// Lengths and numbers are big-endian. Neither a version nor the key id is
// written: both are in the additional data the payload is sealed with.
func appendPayload(b []byte, c *Claims) []byte {
	start := len(b)
	b = appendStr8(b, c.Purpose)
	b = appendStr8(b, c.FileID)
	b = appendStr16(b, c.Owner)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Size))
	b = append(b, byte(len(c.SHA256)))
	b = append(b, c.SHA256...)
	b = appendStr8(b, c.MediaType)
	b = appendStr16(b, c.Name)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Expires.Unix()))
	for (len(b)-start)%tokenPad != 0 {
		b = append(b, 0)
	}
	return b
}

// parsePayload is the inverse of appendPayload. It accepts exactly the
// payloads appendPayload writes for claims that checkClaims accepts, and
// otherwise returns a reason that quotes nothing of the input.
func parsePayload(b []byte) (c Claims, reason string) {
	d := decoder{b: b}
	c.Purpose = d.str(d.byte())
	c.FileID = d.str(d.byte())
	c.Owner = d.str(int(d.uint16()))
	size := d.uint64()
	if n := d.byte(); n > 0 {
		c.SHA256 = []byte(d.str(n))
	}
	c.MediaType = d.str(d.byte())
	c.Name = d.str(int(d.uint16()))
	exp := d.uint64()
	switch {
	case d.bad:
		return Claims{}, "payload is truncated"
	case len(b)%tokenPad != 0 || len(d.b) >= tokenPad || strings.Trim(string(d.b), "\x00") != "":
		return Claims{}, "payload is not padded as sealed"
	case size > math.MaxInt64 || exp > math.MaxInt64:
		return Claims{}, "number out of range"
	}
	c.Size = int64(size)
	c.Expires = time.Unix(int64(exp), 0).UTC()
	if field, rule := checkClaims(&c); field != "" {
		return Claims{}, field + ": " + rule
	}
	return c, ""
}

// A decoder reads a payload; past its end it reads zeros and sets bad.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) take(n int) []byte {
	if n > len(d.b) {
		d.bad, d.b = true, nil
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) byte() int {
	if p := d.take(1); p != nil {
		return int(p[0])
	}
	return 0
}

func (d *decoder) uint16() uint16 {
	if p := d.take(2); p != nil {
		return binary.BigEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) uint64() uint64 {
	if p := d.take(8); p != nil {
		return binary.BigEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) str(n int) string { return string(d.take(n)) }

func appendStr8(b []byte, s string) []byte {
	return append(append(b, byte(len(s))), s...)
}

func appendStr16(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

// decodeB64 decodes base64url without padding, strictly: it rejects the
// CR and LF that encoding/base64 would skip, and stray bits in the last
// character, so that one byte string has one encoding.
func decodeB64(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if !isIDChar(s[i]) {
			return nil, false
		}
	}
	b, err := b64.DecodeString(s)
	return b, err == nil
}
