package token

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sealing is authenticated encryption, AES-256-GCM with a random 96-bit
// nonce, under a key derived from a Key's secret. Sealed texts, tokens and
// file URIs all use it, each with its own domain at the head of the
// additional data, so that none of them opens as another.
const (
	sealDomain   = "mcpfile/seal/v1\x00"
	nonceLen     = 12
	tagLen       = 16
	sealOverhead = nonceLen + tagLen
)

// Seal returns s encrypted and authenticated (AES-256-GCM) under the
// keyring's first key, as URL-safe text "<key id>.<base64url>": for what a
// token must carry but no one who sees the token may read, such as the
// principal an upload page is for (a page's URL is shown to people, and
// URL-mode elicitation forbids identifying information in it). Sealing
// the same s twice gives different texts. Open reverses it with any key
// of the keyring.
func (r *Keyring) Seal(s string) (string, error) {
	k, err := r.signer()
	if err != nil {
		return "", err
	}
	return k.id + "." + b64.EncodeToString(k.seal(nil, []byte(s), sealAD(sealDomain, k.id))), nil
}

// Open returns the text that Seal sealed as sealed, or an error wrapping
// [ErrMalformed] (not sealed text), [ErrUnknownKey] or [ErrBadSignature]
// (altered, or sealed under another key); the error never holds sealed.
func (r *Keyring) Open(sealed string) (string, error) {
	fail := func(kind error, reason string) (string, error) {
		return "", &Error{Input: inputSealed, Len: len(sealed), Err: kind, Reason: reason}
	}
	kid, body, reason := cutSealed(sealed)
	if reason != "" {
		return fail(ErrMalformed, reason)
	}
	k := r.lookup(kid)
	if k == nil {
		return fail(ErrUnknownKey, "sealed under a key this keyring does not hold")
	}
	plain, ok := k.open(body, sealAD(sealDomain, kid))
	if !ok {
		return fail(ErrBadSignature, "altered, or sealed under another key")
	}
	return string(plain), nil
}

// cutSealed splits "<key id>.<base64url>" and decodes the second part
// strictly, as [decodeB64] does. It returns a reason that quotes nothing
// of s when s is not of that form, or too short to be sealed.
func cutSealed(s string) (kid string, body []byte, reason string) {
	kid, enc, ok := strings.Cut(s, ".")
	if !ok {
		return "", nil, "want <key id>.<base64url>"
	}
	if !isIDChars(kid, MaxKeyIDLen) {
		return "", nil, fmt.Sprintf("key id: want 1 to %d characters of [A-Za-z0-9_-]", MaxKeyIDLen)
	}
	body, ok = decodeB64(enc)
	if !ok || len(body) < sealOverhead {
		return "", nil, "not base64url of a sealed text"
	}
	return kid, body, ""
}

// sealAD returns the additional data of a text sealed for domain under the
// key kid: the domain, which ends in a NUL, then the key id.
func sealAD(domain, kid string) []byte {
	return append(append(make([]byte, 0, len(domain)+len(kid)+64), domain...), kid...)
}

// seal appends to dst a random nonce, then plain encrypted and
// authenticated under k with the additional data ad.
func (k *Key) seal(dst, plain, ad []byte) []byte {
	dst = slices.Grow(dst, sealOverhead+len(plain))
	n := len(dst)
	dst = dst[:n+nonceLen]
	rand.Read(dst[n:]) // never fails (Go 1.24+)
	return k.gcm.Seal(dst, dst[n:], plain, ad)
}

// open returns what seal sealed in b under k with the additional data ad,
// or false when b was altered, sealed under another key or with other
// additional data. The tag is checked in constant time. It decrypts in
// place: b is overwritten.
func (k *Key) open(b, ad []byte) ([]byte, bool) {
	if len(b) < sealOverhead {
		return nil, false
	}
	plain, err := k.gcm.Open(b[nonceLen:nonceLen], b[:nonceLen], b[nonceLen:], ad)
	return plain, err == nil
}

// newGCM returns the AES-256-GCM of a key with secret, keyed with a key
// derived from the secret for sealing alone. It is safe for concurrent
// use: it holds its key schedule and nothing else.
func newGCM(secret []byte) cipher.AEAD {
	k := Key{secret: &secret}
	block, err := aes.NewCipher(k.mac(sealDomain, nil)) // 32 bytes: AES-256
	if err != nil {
		panic(errors.New("token: " + err.Error())) // a 32-byte key never fails
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(errors.New("token: " + err.Error()))
	}
	return aead
}
