package token

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"time"
)

// inClear returns the forms in which b could be read from a token or URI:
// b itself and, at each of the three byte alignments, the characters of
// its standard and URL-safe base64 that depend on b alone.
func inClear(b []byte) []string {
	forms := []string{string(b)}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for skip := range 3 {
			s := enc.EncodeToString(append(make([]byte, skip), b...))
			from := (skip*8 + 5) / 6      // first character of b's bits alone
			to := (skip + len(b)) * 8 / 6 // last character of whole bits
			if to-from >= 4 {
				forms = append(forms, s[from:to])
			}
		}
	}
	return forms
}

// TestNothingInClear mints every kind of token and a file URI for a
// principal and a file with a name, media type, size and digest, and looks
// for each of them, as bytes or base64 at any alignment, in what was
// minted: none may be read without the key.
func TestNothingInClear(t *testing.T) {
	const (
		owner = "alice@example.com"
		name  = "secret-report.pdf"
		media = "application/vnd.secret+pdf"
		id    = "file_SECRETFILEIDENTIFIERXYZ"
	)
	sum := sha256.Sum256([]byte("the report"))
	exp := now.Add(15 * time.Minute)
	secrets := map[string][]byte{
		"owner":       []byte(owner),
		"name":        []byte(name),
		"media type":  []byte(media),
		"file id":     []byte(id),
		"digest":      sum[:],
		"size":        binary.BigEndian.AppendUint64(nil, 248123),
		"expiry":      binary.BigEndian.AppendUint64(nil, uint64(exp.Unix())),
		"expiry text": []byte(strconv.FormatInt(exp.Unix(), 10)),
	}
	r := ring(t, keyNew)
	minted := map[string]string{
		"file URI": fileURI(t, r, FileRef{Host: "files.example.net", FileID: id, Owner: owner, Expires: exp}),
	}
	for _, purpose := range []string{PurposeUpload, PurposeDownload} {
		minted[purpose+" token"] = sign(t, r, Claims{Purpose: purpose, FileID: id, Owner: owner, Size: 248123,
			SHA256: sum[:], MediaType: media, Name: name, Expires: exp})
	}
	// A page token seals the owner and message itself too (see PurposePage).
	sealedOwner, _ := r.Seal(owner)
	sealedName, _ := r.Seal(name)
	minted["page token"] = sign(t, r, Claims{Purpose: PurposePage, FileID: id, Owner: sealedOwner, Size: 248123,
		MediaType: media, Name: sealedName, Expires: exp})
	for what, s := range minted {
		for secret, b := range secrets {
			for _, form := range inClear(b) {
				if strings.Contains(s, form) {
					t.Errorf("the %s %q holds the %s as %q", what, s, secret, form)
				}
			}
		}
		if !strings.HasPrefix(strings.TrimPrefix(s, "mcp-file://files.example.net/"), keyNew.ID()+".") {
			t.Errorf("the %s %q does not start with its key id", what, s)
		}
	}
}
