package token

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestSeal: sealed text opens to what was sealed under any key of the
// keyring, hides it, differs each time, and refuses alteration and
// foreign keys without quoting what it was given.
func TestSeal(t *testing.T) {
	old, cur := RandomKey(), RandomKey()
	signer, _ := NewKeyring(cur, old)
	before, _ := NewKeyring(old)
	other, _ := NewKeyring(RandomKey())
	const owner = "alice.smith@example.com"
	a, err := signer.Seal(owner)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := signer.Seal(owner)
	if a == b || strings.Contains(a, "alice") || strings.Contains(a, "example") {
		t.Errorf("Seal(%q) = %q and %q: want two different texts that hide it", owner, a, b)
	}
	if got, err := signer.Open(a); err != nil || got != owner {
		t.Errorf("Open = %q, %v", got, err)
	}
	rotated, _ := before.Seal(owner) // sealed before the rotation
	if got, err := signer.Open(rotated); err != nil || got != owner {
		t.Errorf("Open of text sealed under the older key = %q, %v", got, err)
	}
	if empty, _ := signer.Seal(""); empty == "" {
		t.Error("Seal(\"\") is empty")
	} else if got, err := signer.Open(empty); err != nil || got != "" {
		t.Errorf("Open(Seal(\"\")) = %q, %v", got, err)
	}
	id, body, _ := strings.Cut(a, ".")
	raw, _ := b64.DecodeString(body)
	raw[len(raw)-1] ^= 1
	flipped := id + "." + b64.EncodeToString(raw)
	for _, c := range []struct{ in, want string }{
		{flipped, "altered"},
		{"nodot", "want <key id>"},
		{a[:strings.IndexByte(a, '.')] + ".!!!!", "not base64url"},
	} {
		if _, err := signer.Open(c.in); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.in) {
			t.Errorf("Open(%q): %v, want an error with %q that does not quote it", c.in, err, c.want)
		}
	}
	if _, err := other.Open(a); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Errorf("Open under another keyring: %v", err)
	}
}

// FuzzOpen: Open never panics, opens only what Seal made, round trips,
// and its errors never hold their input.
func FuzzOpen(f *testing.F) {
	k, _ := NewKey("k1", make([]byte, 32))
	r, _ := NewKeyring(k)
	sealed, _ := r.Seal("alice")
	f.Add(sealed, "alice")
	f.Add("k1.AAAA", "")
	f.Add("k1.", "x")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, in, plain string) {
		if got, err := r.Open(in); err == nil {
			if again, err := r.Seal(got); err != nil || func() string { s, _ := r.Open(again); return s }() != got {
				t.Fatalf("Open(%q) = %q, which does not round trip", in, got)
			}
		} else if len(in) > 8 && strings.Contains(err.Error(), in) {
			t.Fatalf("Open's error quotes its input: %v", err)
		}
		s, err := r.Seal(plain)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.Open(s); err != nil || got != plain {
			t.Fatalf("Open(Seal(%q)) = %q, %v", plain, got, err)
		}
	})
}

// TestSealConcurrently seals and opens tokens, file URIs and texts from
// many goroutines with one keyring, whose keys share one AES-GCM each:
// every one round trips (and -race finds no shared state).
func TestSealConcurrently(t *testing.T) {
	r := ring(t, keyNew, keyOld)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				c := claims()
				c.Size = int64(i*1000 + j)
				tok, err := r.Sign(c)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := r.Verify(tok, PurposeUpload, now); err != nil || got.Size != c.Size {
					t.Errorf("Verify(Sign(size %d)) = size %d, %v", c.Size, got.Size, err)
				}
				f := ref()
				f.FileID = "f" + strconv.Itoa(i*1000+j)
				uri, err := r.FileURI(f)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := r.ParseFileURI(uri, f.Owner, now); err != nil || got.FileID != f.FileID {
					t.Errorf("ParseFileURI(FileURI(%q)) = %q, %v", f.FileID, got.FileID, err)
				}
				s, _ := r.Seal(f.FileID)
				if got, err := r.Open(s); err != nil || got != f.FileID {
					t.Errorf("Open(Seal(%q)) = %q, %v", f.FileID, got, err)
				}
			}
		})
	}
	wg.Wait()
}
