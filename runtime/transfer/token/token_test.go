package token

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

var (
	secretOld = bytes.Repeat([]byte{'o'}, 32)
	secretNew = bytes.Repeat([]byte{'n'}, 32)
	keyOld    = mustKey("old", secretOld)
	keyNew    = mustKey("new", secretNew)
	now       = time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC)
	digest    = sha256.Sum256([]byte("report"))
)

func mustKey(id string, secret []byte) Key {
	k, err := NewKey(id, secret)
	if err != nil {
		panic(err)
	}
	return k
}

func ring(t testing.TB, keys ...Key) *Keyring {
	t.Helper()
	r, err := NewKeyring(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func claims() Claims {
	return Claims{
		Purpose:   PurposeUpload,
		FileID:    "file_ABCDEFGHIJKLMNOPQRSTUVWXYZ",
		Owner:     "alice",
		Size:      248123,
		SHA256:    digest[:],
		MediaType: "application/pdf",
		Expires:   now.Add(15 * time.Minute),
	}
}

func sign(t testing.TB, r *Keyring, c Claims) string {
	t.Helper()
	tok, err := r.Sign(c)
	if err != nil {
		t.Fatalf("Sign(%+v): %v", c, err)
	}
	return tok
}

// checkErr fails unless err is an *Error of kind want that does not
// contain input.
func checkErr(t *testing.T, err error, want error, input string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, want) {
		t.Errorf("error = %v, want %v", err, want)
		return
	}
	if e.Len != len(input) {
		t.Errorf("error %q: Len = %d, want %d", err, e.Len, len(input))
	}
	if msg := strings.ReplaceAll(err.Error(), fileURIForm, ""); len(input) >= 4 && strings.Contains(msg, input) {
		t.Errorf("error %q contains its input", err)
	}
}

func TestSignVerify(t *testing.T) {
	r := ring(t, keyNew)
	full := claims()
	full.Owner = strings.Repeat("ü", MaxOwnerLen/2)
	full.FileID = strings.Repeat("F", MaxFileIDLen)
	full.MediaType = strings.Repeat("x", MaxMediaTypeLen)
	full.Purpose = strings.Repeat("p", MaxPurposeLen)
	full.Size = 1<<63 - 1
	full.Name = strings.Repeat("n", MaxNameLen)
	for _, c := range []Claims{
		claims(),
		{Purpose: PurposeDownload, FileID: "f", Size: 0, Expires: now.Add(time.Second)},
		{Purpose: PurposeUpload, FileID: "x-y_z", Owner: "", Size: 10 << 30, MediaType: "text/plain; charset=utf-8", Expires: now.Add(time.Hour + 500*time.Millisecond)},
		full,
	} {
		tok := sign(t, r, c)
		if len(tok) > MaxTokenLen || strings.ContainsAny(tok, "=+/") {
			t.Errorf("Sign(%+v) = %d bytes %q, want at most %d URL-safe", c, len(tok), tok, MaxTokenLen)
		}
		if again := sign(t, r, c); again == tok {
			t.Errorf("Sign twice = %q both times, want a fresh nonce each time", tok)
		}
		got, err := r.Verify(tok, c.Purpose, now)
		if err != nil {
			t.Errorf("Verify(Sign(%+v)): %v", c, err)
			continue
		}
		want := c
		want.Expires = c.Expires.Truncate(time.Second).UTC()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Verify(Sign(c)) = %+v, want %+v", got, want)
		}
	}
}

// sealToken returns payload sealed as a token under k, whatever it holds.
func sealToken(k Key, payload []byte) string {
	return k.id + "." + b64.EncodeToString(k.seal(nil, payload, sealAD(tokenDomain, k.id)))
}

// TestLongestToken: the longest claims under the longest key id give a
// token of the length MaxTokenLen's comment states.
func TestLongestToken(t *testing.T) {
	c := Claims{
		Purpose:   strings.Repeat("p", MaxPurposeLen),
		FileID:    strings.Repeat("F", MaxFileIDLen),
		Owner:     strings.Repeat("o", MaxOwnerLen),
		Size:      1<<63 - 1,
		SHA256:    digest[:],
		MediaType: strings.Repeat("m", MaxMediaTypeLen),
		Name:      strings.Repeat("n", MaxNameLen),
		Expires:   time.Unix(1<<62, 0),
	}
	tok := sign(t, ring(t, mustKey(strings.Repeat("k", MaxKeyIDLen), secretNew)), c)
	if len(tok) != 3441 || len(tok) > MaxTokenLen {
		t.Errorf("longest token: %d bytes, want 3441 (at most %d)", len(tok), MaxTokenLen)
	}
}

// TestVerifySpliced moves a genuine token's sealed part under another key
// id, and puts texts sealed for other uses in place of a token: none
// opens.
func TestVerifySpliced(t *testing.T) {
	r := ring(t, keyNew, keyOld)
	tok := sign(t, r, claims())
	_, body, _ := strings.Cut(tok, ".")
	sealed, err := r.Seal(string(appendPayload(nil, &Claims{Purpose: PurposeUpload, FileID: "f", Expires: now.Add(time.Hour)})))
	if err != nil {
		t.Fatal(err)
	}
	uri := fileURI(t, r, ref())
	for _, tt := range []struct{ name, tok string }{
		{"under the other key's id", "old." + body},
		{"a sealed text", sealed},
		{"a file URI's path", uri[strings.LastIndexByte(uri, '/')+1:]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Verify(tt.tok, PurposeUpload, now)
			checkErr(t, err, ErrBadSignature, tt.tok)
		})
	}
}

// TestVerifyFlippedBits flips each bit of a token's sealed part: each
// result is rejected as a bad signature, or as malformed where the flip
// breaks the base64's last character.
func TestVerifyFlippedBits(t *testing.T) {
	r := ring(t, keyNew)
	tok := sign(t, r, claims())
	kid, body, _ := cutSealed(tok)
	for i := range len(body) * 8 {
		body[i/8] ^= 1 << (i % 8)
		forged := kid + "." + b64.EncodeToString(body)
		body[i/8] ^= 1 << (i % 8)
		_, err := r.Verify(forged, PurposeUpload, now)
		checkErr(t, err, ErrBadSignature, forged)
	}
}

// TestVerifyChangedCharacters changes each character of a token to each
// other base64url character, and inserts and deletes one: none verifies.
func TestVerifyChangedCharacters(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	r := ring(t, keyNew)
	tok := sign(t, r, Claims{Purpose: PurposeUpload, FileID: "f", Expires: now.Add(time.Hour)})
	for i := range len(tok) {
		for _, c := range []byte(alphabet) {
			for _, forged := range []string{
				tok[:i] + string(c) + tok[i+1:],
				tok[:i] + string(c) + tok[i:],
				tok[:i] + tok[i+1:],
			} {
				if forged == tok {
					continue
				}
				if got, err := r.Verify(forged, PurposeUpload, now); err == nil {
					t.Fatalf("Verify(%q) = %+v, want an error", forged, got)
				}
			}
		}
	}
}

func TestVerifyPurpose(t *testing.T) {
	r := ring(t, keyNew)
	tok := sign(t, r, claims())
	for _, purpose := range []string{PurposeDownload, "", "Upload", "uploadx"} {
		_, err := r.Verify(tok, purpose, now)
		checkErr(t, err, ErrWrongPurpose, tok)
	}
}

func TestVerifyExpired(t *testing.T) {
	r := ring(t, keyNew)
	c := claims()
	tok := sign(t, r, c)
	if _, err := r.Verify(tok, PurposeUpload, c.Expires.Add(-time.Nanosecond)); err != nil {
		t.Errorf("Verify just before expiry: %v", err)
	}
	for _, at := range []time.Time{c.Expires, c.Expires.Add(time.Second), now.AddDate(1, 0, 0)} {
		_, err := r.Verify(tok, PurposeUpload, at)
		checkErr(t, err, ErrExpired, tok)
	}
}

func TestRotation(t *testing.T) {
	old := ring(t, keyOld)
	tok := sign(t, old, claims())
	if _, err := ring(t, keyNew, keyOld).Verify(tok, PurposeUpload, now); err != nil {
		t.Errorf("ring [new old] rejects a token of old: %v", err)
	}
	_, err := ring(t, keyNew).Verify(tok, PurposeUpload, now)
	checkErr(t, err, ErrUnknownKey, tok)
	// A new key under the old key's id is a bad signature, not a pass.
	_, err = ring(t, mustKey("old", secretNew)).Verify(tok, PurposeUpload, now)
	checkErr(t, err, ErrBadSignature, tok)
	// The ring [new old] signs with new.
	tok = sign(t, ring(t, keyNew, keyOld), claims())
	if _, err := ring(t, keyNew).Verify(tok, PurposeUpload, now); err != nil {
		t.Errorf("ring [new old] does not sign with new: %v", err)
	}
}

func TestVerifyMalformed(t *testing.T) {
	r := ring(t, keyNew)
	tok := sign(t, r, claims())
	kid, m, _ := strings.Cut(tok, ".")
	c := claims()
	payload := appendPayload(nil, &c)
	for _, tt := range []struct{ name, tok string }{
		{"empty", ""},
		{"dot", "."},
		{"no dot", kid + m},
		{"extra dot", tok + ".x"},
		{"extra dot inside", kid + ".." + m},
		{"huge", strings.Repeat("A", MaxTokenLen+1)},
		{"huge valid-looking", kid + "." + m + strings.Repeat("A", MaxTokenLen)},
		{"bad base64", kid + ".!!!!"},
		{"padding", tok + "="},
		{"standard base64", kid + "." + strings.ReplaceAll(m, "-", "+") + "+/"},
		{"newline", kid + "." + m[:4] + "\n" + m[4:]},
		{"carriage return", kid + "." + m[:4] + "\r" + m[4:]},
		{"space", " " + tok},
		{"truncated to a partial base64 group", tok[:len(tok)-3]},
		{"too short to be sealed", kid + "." + m[:36]},
		{"empty key id", "." + m},
		{"key id with a bad character", "n~w." + m},
		{"key id too long", strings.Repeat("k", MaxKeyIDLen+1) + "." + m},
		// Sealed under the key, but not as Sign seals.
		{"payload cut", sealToken(keyNew, payload[:len(payload)-1])},
		{"payload padded twice", sealToken(keyNew, append(payload, make([]byte, tokenPad)...))},
		{"padding not zero", sealToken(keyNew, append(payload[:len(payload)-1], 1))},
		{"payload empty", sealToken(keyNew, nil)},
		{"bad file id", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "../etc", Expires: c.Expires}))},
		{"negative size", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "f", Size: -1, Expires: c.Expires}))},
		{"short digest", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "f", SHA256: []byte{1}, Expires: c.Expires}))},
		{"control in media type", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "f", MediaType: "a\nb", Expires: c.Expires}))},
		{"bad UTF-8 owner", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "f", Owner: "\xff", Expires: c.Expires}))},
		{"expires 1970", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "f", Expires: time.Unix(0, 0)}))},
		{"expires before 1970", sealToken(keyNew, appendPayload(nil, &Claims{Purpose: "upload", FileID: "f", Expires: time.Unix(-5, 0)}))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Verify(tt.tok, PurposeUpload, now)
			if err == nil {
				t.Fatalf("Verify(%q) = %+v, want an error", tt.tok, got)
			}
			checkErr(t, err, ErrMalformed, tt.tok)
		})
	}
}

func TestErrorsNeverHoldTheToken(t *testing.T) {
	r := ring(t, keyNew)
	tok := sign(t, r, claims())
	for _, tt := range []struct {
		tok     string
		purpose string
		now     time.Time
		r       *Keyring
	}{
		{tok, PurposeUpload, now.AddDate(1, 0, 0), r},
		{tok, PurposeDownload, now, r},
		{tok, PurposeUpload, now, ring(t, keyOld)},
		{tok, PurposeUpload, now, ring(t, mustKey("new", secretOld))},
		{tok + "x", PurposeUpload, now, r},
	} {
		_, err := tt.r.Verify(tt.tok, tt.purpose, tt.now)
		msg := fmt.Sprintf("%v %+v %#v", err, err, err)
		_, m, _ := strings.Cut(tt.tok, ".") // the key id may be named, what it sealed not
		if err == nil || strings.Contains(msg, m) || strings.Contains(msg, m[:8]) {
			t.Errorf("error %s: want an error without the token", msg)
		}
		if want := fmt.Sprintf("token (%d bytes): ", len(tt.tok)); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q, want it to start with %q", err, want)
		}
	}
}

func TestSignErrors(t *testing.T) {
	r := ring(t, keyNew)
	for _, tt := range []struct {
		change func(*Claims)
		want   string
	}{
		{func(c *Claims) { c.Purpose = "" }, "purpose"},
		{func(c *Claims) { c.Purpose = "up load" }, "purpose"},
		{func(c *Claims) { c.Purpose = strings.Repeat("p", MaxPurposeLen+1) }, "purpose"},
		{func(c *Claims) { c.FileID = "" }, "file id"},
		{func(c *Claims) { c.FileID = "a/b" }, "file id"},
		{func(c *Claims) { c.FileID = "a.b" }, "file id"},
		{func(c *Claims) { c.FileID = strings.Repeat("f", MaxFileIDLen+1) }, "file id"},
		{func(c *Claims) { c.Owner = strings.Repeat("o", MaxOwnerLen+1) }, "owner"},
		{func(c *Claims) { c.Owner = "\xff" }, "owner"},
		{func(c *Claims) { c.Size = -1 }, "size"},
		{func(c *Claims) { c.SHA256 = []byte{} }, "sha256"},
		{func(c *Claims) { c.SHA256 = make([]byte, 33) }, "sha256"},
		{func(c *Claims) { c.MediaType = "text/plain\x00" }, "media type"},
		{func(c *Claims) { c.MediaType = "t/" + strings.Repeat("x", MaxMediaTypeLen) }, "media type"},
		{func(c *Claims) { c.Expires = time.Time{} }, "expires"},
	} {
		c := claims()
		tt.change(&c)
		if tok, err := r.Sign(c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Sign(%+v) = %q, %v, want an error about %s", c, tok, err, tt.want)
		}
	}
	var zero *Keyring
	if _, err := zero.Sign(claims()); err == nil {
		t.Error("nil Keyring signs")
	}
	if _, err := new(Keyring).Sign(claims()); err == nil {
		t.Error("zero Keyring signs")
	}
	if _, err := zero.Verify("x.y", PurposeUpload, now); err == nil {
		t.Error("nil Keyring verifies")
	}
}

func TestNewKeyErrors(t *testing.T) {
	for _, tt := range []struct {
		id     string
		secret []byte
		want   string
	}{
		{"a.b", secretNew, "id"},
		{"a/b", secretNew, "id"},
		{strings.Repeat("k", MaxKeyIDLen+1), secretNew, "id"},
		{"k", make([]byte, MinSecretLen-1), "31 bytes"},
		{"", nil, "0 bytes"},
	} {
		if k, err := NewKey(tt.id, tt.secret); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewKey(%q, %d bytes) = %v, %v, want an error about %q", tt.id, len(tt.secret), k, err, tt.want)
		}
	}
	k, err := NewKey("", secretNew)
	if err != nil || len(k.ID()) != 8 || !isIDChars(k.ID(), MaxKeyIDLen) {
		t.Errorf("NewKey(\"\", secret) = %v, %v, want a derived 8-character id", k, err)
	}
}

func TestNewKeyringErrors(t *testing.T) {
	for _, tt := range []struct {
		keys []Key
		want string
	}{
		{nil, "at least one key"},
		{[]Key{{}}, "zero Key"},
		{[]Key{keyNew, {}}, "zero Key"},
		{[]Key{keyNew, keyOld, mustKey("new", secretOld)}, "duplicate"},
	} {
		if _, err := NewKeyring(tt.keys...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewKeyring(%v) error = %v, want one about %q", tt.keys, err, tt.want)
		}
	}
}

func TestNewKeyCopiesTheSecret(t *testing.T) {
	secret := bytes.Repeat([]byte{'k'}, 32)
	r := ring(t, mustKey("k", secret))
	tok := sign(t, r, claims())
	secret[0] = 'x'
	if _, err := r.Verify(tok, PurposeUpload, now); err != nil {
		t.Errorf("changing a secret after NewKey changes the key: %v", err)
	}
}

func TestParseKeyHex(t *testing.T) {
	const hex64 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	k, err := ParseKeyHex(" " + hex64 + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(*k.secret) != 32 || (*k.secret)[31] != 0x1f || !isIDChars(k.ID(), MaxKeyIDLen) || len(k.ID()) != 8 {
		t.Errorf("ParseKeyHex = %v %x", k, *k.secret)
	}
	if k2, _ := ParseKeyHex(strings.ToUpper(hex64)); k2.ID() != k.ID() {
		t.Errorf("ids differ for the same secret: %q, %q", k.ID(), k2.ID())
	}
	if k3, _ := ParseKeyHex(hex64[:62] + "ff"); k3.ID() == k.ID() {
		t.Errorf("ids equal for different secrets: %q", k.ID())
	}
	for _, bad := range []string{"", "00", hex64[:62], hex64[:63], hex64[:62] + "zz", "secret-password-that-is-long-enough-to-be-32"} {
		_, err := ParseKeyHex(bad)
		if err == nil {
			t.Errorf("ParseKeyHex(%q): no error", bad)
		} else if len(bad) > 4 && strings.Contains(err.Error(), bad[len(bad)-4:]) {
			t.Errorf("ParseKeyHex error %q echoes the secret", err)
		}
	}
}

func TestRandomKey(t *testing.T) {
	a, b := RandomKey(), RandomKey()
	if len(*a.secret) != 32 || bytes.Equal(*a.secret, *b.secret) || a.ID() == b.ID() {
		t.Errorf("RandomKey() = %v, %v: want distinct 32-byte keys", a, b)
	}
	if _, err := NewKeyring(a, b); err != nil {
		t.Error(err)
	}
}

// TestFormatHidesSecrets prints keys and keyrings with every verb.
func TestFormatHidesSecrets(t *testing.T) {
	secret := []byte("SECRETSECRETSECRETSECRETSECRET!!")
	k := mustKey("k1", secret)
	r := ring(t, k, keyOld)
	secrets := []string{string(secret), fmt.Sprintf("%x", secret), fmt.Sprint(secret), base64.StdEncoding.EncodeToString(secret), "111 111 111", "o o o", "[111", "[83", "oooo", "OOOO"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%p", "%T"} {
		for _, arg := range []any{k, &k, *r, r, []Key{k}, struct{ K Key }{k}} {
			got := fmt.Sprintf(verb, arg)
			for _, s := range secrets {
				if strings.Contains(got, s) {
					t.Errorf("Sprintf(%q, %T) = %q: shows the secret", verb, arg, got)
				}
			}
		}
	}
	if got, want := fmt.Sprint(k), `token.Key{ID:"k1"}`; got != want {
		t.Errorf("Sprint(key) = %q, want %q", got, want)
	}
	if got, want := fmt.Sprint(r), `token.Keyring["k1" "old"]`; got != want {
		t.Errorf("Sprint(keyring) = %q, want %q", got, want)
	}
}
