package token_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// TestPseudonym: a principal's pseudonym is 12 hex digits, the same under
// the same signing key (another replica's keyring, a later call), another
// under another key or for another principal, and holds nothing of it.
func TestPseudonym(t *testing.T) {
	ring := func(b byte, more ...token.Key) *token.Keyring {
		t.Helper()
		k, err := token.NewKey("k", bytes.Repeat([]byte{b}, 32))
		if err != nil {
			t.Fatal(err)
		}
		r, err := token.NewKeyring(append([]token.Key{k}, more...)...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, again, other := ring(1), ring(1), ring(2)
	p := a.Pseudonym("alice@example.com")
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(p) || strings.Contains(p, "alice") {
		t.Fatalf("Pseudonym = %q, want 12 hex digits", p)
	}
	if a.Pseudonym("alice@example.com") != p || again.Pseudonym("alice@example.com") != p {
		t.Errorf("the same principal under the same key has another pseudonym")
	}
	if other.Pseudonym("alice@example.com") == p || a.Pseudonym("bob@example.com") == p || a.Pseudonym("") == p {
		t.Errorf("another key or principal has the same pseudonym %q", p)
	}
	var none *token.Keyring
	if none.Pseudonym("alice@example.com") != "" {
		t.Errorf("a nil keyring gives a pseudonym")
	}
}

func BenchmarkPseudonym(b *testing.B) {
	k, _ := token.NewKey("k", bytes.Repeat([]byte{1}, 32))
	r, _ := token.NewKeyring(k)
	b.ReportAllocs()
	for b.Loop() {
		r.Pseudonym("alice@example.com")
	}
}
