package token

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
	"sync"

	"github.com/mcpfile/mcpfile/runtime/internal/text"
)

// MinSecretLen is the shortest secret a [Key] may have, in bytes: the
// output size of SHA-256.
const MinSecretLen = 32

// MaxKeyIDLen is the longest key id, in bytes.
const MaxKeyIDLen = 32

// A Key seals and opens tokens and file URIs. Its ID names it in every
// token and file URI it seals, so that keys can rotate. Make one with
// [NewKey], [ParseKeyHex] or [RandomKey]; the zero Key is not usable. The
// secret stays behind a pointer, so that no fmt verb, %p included, prints
// it: formatting a Key prints its ID.
type Key struct {
	id     string
	secret *[]byte
	gcm    cipher.AEAD // keyed with a key derived from secret, see seal.go
}

// NewKey returns the key id with secret, which must have at least
// [MinSecretLen] bytes; it copies the secret. The id is 1 to
// [MaxKeyIDLen] characters of [A-Za-z0-9_-], or "" to derive it from the
// secret (8 characters of a hash of it), so that every replica configured
// with the same secret agrees on the id without being told it and a new
// secret gets a new id.
func NewKey(id string, secret []byte) (Key, error) {
	if len(secret) < MinSecretLen {
		return Key{}, fmt.Errorf("token: key secret has %d bytes, want at least %d", len(secret), MinSecretLen)
	}
	if id == "" {
		h := sha256.Sum256(append([]byte("mcpfile/key-id/v1\x00"), secret...))
		id = base64.RawURLEncoding.EncodeToString(h[:6])
	}
	if !isIDChars(id, MaxKeyIDLen) {
		return Key{}, fmt.Errorf("token: key id %q: want 1 to %d characters of [A-Za-z0-9_-]", id, MaxKeyIDLen)
	}
	b := append([]byte(nil), secret...)
	return Key{id: id, secret: &b, gcm: newGCM(b)}, nil
}

// ParseKeyHex returns the key of a secret written in hex, such as the
// value of MCPFILE_TRANSFER_KEY (64 hex characters: 32 bytes), with its id
// derived as by [NewKey]. Surrounding space is ignored.
func ParseKeyHex(s string) (Key, error) {
	s = strings.TrimSpace(s)
	secret, err := hex.DecodeString(s)
	if err != nil {
		// Not err itself: hex's error quotes the offending byte of the secret.
		return Key{}, fmt.Errorf("token: key is not hex (want %d hex characters)", 2*MinSecretLen)
	}
	return NewKey("", secret)
}

// RandomKey returns a new key with a random 32-byte secret from
// crypto/rand and a derived id. Tokens it signs are useless to a process
// that does not hold it, so a server that uses one serves uploads on
// itself alone.
func RandomKey() Key {
	secret := make([]byte, MinSecretLen)
	rand.Read(secret) // never fails: it crashes the program instead (Go 1.24+)
	k, _ := NewKey("", secret)
	return k
}

// ID returns the key's id.
func (k Key) ID() string { return k.id }

// Format prints the key's ID and hides its secret, whatever the verb.
func (k Key) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "token.Key{ID:%q}", k.id)
}

// A Keyring seals with its first key and accepts tokens and file URIs
// sealed by any of its keys. To rotate, put the new key first and keep the
// old one until everything it sealed has expired. A Keyring is immutable
// and safe for concurrent use; formatting it prints key ids only.
type Keyring struct {
	keys   []Key // keys[0] signs
	byID   map[string]*Key
	pseudo *sync.Pool // of the HMACs of Pseudonym, keyed from keys[0]
}

// NewKeyring returns a keyring of keys, the first of which signs. It is
// an error to pass no key, a zero Key, or two keys with the same id.
func NewKeyring(keys ...Key) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("token: keyring needs at least one key")
	}
	r := &Keyring{keys: make([]Key, len(keys)), byID: make(map[string]*Key, len(keys))}
	for i, k := range keys {
		if k.secret == nil {
			return nil, fmt.Errorf("token: key %d is the zero Key (use NewKey)", i)
		}
		if _, dup := r.byID[k.id]; dup {
			return nil, fmt.Errorf("token: key %q: duplicate id", k.id)
		}
		r.keys[i] = k
		r.byID[k.id] = &r.keys[i]
	}
	pk := r.keys[0].mac("mcpfile pseudonym key v1", nil)
	r.pseudo = &sync.Pool{New: func() any { return hmac.New(sha256.New, pk) }}
	return r, nil
}

// Format prints the keyring's key IDs, signing key first, and hides the
// secrets, whatever the verb.
func (r Keyring) Format(f fmt.State, verb rune) {
	ids := make([]string, len(r.keys))
	for i, k := range r.keys {
		ids[i] = k.id
	}
	fmt.Fprintf(f, "token.Keyring%q", ids)
}

// signer returns the signing key, or an error for a nil or zero Keyring.
func (r *Keyring) signer() (*Key, error) {
	if r == nil || len(r.keys) == 0 {
		return nil, errors.New("token: keyring has no keys (use NewKeyring)")
	}
	return &r.keys[0], nil
}

// SigningKeyID returns the id of the key that seals: the first. It is
// "" for a nil or zero Keyring.
func (r *Keyring) SigningKeyID() string {
	k, err := r.signer()
	if err != nil {
		return ""
	}
	return k.id
}

// lookup returns the key named id, or nil.
func (r *Keyring) lookup(id string) *Key {
	if r == nil {
		return nil
	}
	return r.byID[id]
}

// mac returns HMAC-SHA-256 under k of domain, a NUL, and msg.
func (k *Key) mac(domain string, msg []byte) []byte {
	h := hmac.New(sha256.New, *k.secret)
	h.Write([]byte(domain))
	h.Write([]byte{0})
	h.Write(msg)
	return h.Sum(nil)
}

// isIDChars reports whether s is 1 to max characters of [A-Za-z0-9_-].
func isIDChars(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDChar(s[i]) {
			return false
		}
	}
	return true
}

func isIDChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// PseudonymLen is the length of a [Keyring.Pseudonym]: hex of 6 bytes.
const PseudonymLen = 12

// Pseudonym returns what logs show of a principal s: hex of the first 6
// bytes of an HMAC-SHA-256 of s under a key derived from the signing key.
// It is the same on every replica with the same keys, so the records of
// one principal can be told apart from another's and followed, and it
// gives nothing of s away to whoever reads the logs without the key (an
// unkeyed hash of an email address is found by hashing addresses). It is
// "" for a nil or zero Keyring.
func (r *Keyring) Pseudonym(s string) string {
	if r == nil || r.pseudo == nil {
		return ""
	}
	h := r.pseudo.Get().(hash.Hash)
	h.Reset()
	h.Write(text.Bytes(s)) // not kept: HMAC copies what it hashes
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	r.pseudo.Put(h)
	var out [PseudonymLen]byte
	hex.Encode(out[:], sum[:PseudonymLen/2])
	return string(out[:])
}
