package token

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"strings"
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
	aead := k.aead()
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(s)+aead.Overhead())
	rand.Read(nonce) // never fails (Go 1.24+)
	return k.id + "." + b64.EncodeToString(aead.Seal(nonce, nonce, []byte(s), []byte(sealDomain+k.id))), nil
}

// Open returns the text that Seal sealed as sealed, or an error wrapping
// [ErrMalformed] (not sealed text), [ErrUnknownKey] or [ErrBadSignature]
// (altered, or sealed under another key); the error never holds sealed.
func (r *Keyring) Open(sealed string) (string, error) {
	fail := func(kind error, reason string) (string, error) {
		return "", &Error{Input: inputSealed, Len: len(sealed), Err: kind, Reason: reason}
	}
	id, body, ok := strings.Cut(sealed, ".")
	if !ok {
		return fail(ErrMalformed, "want <key id>.<base64url>")
	}
	k := r.lookup(id)
	if k == nil {
		return fail(ErrUnknownKey, "sealed under a key this keyring does not hold")
	}
	b, err := b64.DecodeString(body)
	aead := k.aead()
	if err != nil || len(b) < aead.NonceSize()+aead.Overhead() {
		return fail(ErrMalformed, "not base64url of a sealed text")
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(sealDomain+k.id))
	if err != nil {
		return fail(ErrBadSignature, "altered, or sealed under another key")
	}
	return string(plain), nil
}

const sealDomain = "mcpfile/seal/v1\x00"

// aead is the key's AES-256-GCM, keyed with a key derived from its secret
// for sealing alone.
func (k *Key) aead() cipher.AEAD {
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
