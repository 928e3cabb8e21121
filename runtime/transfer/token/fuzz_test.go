package token

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// checkRejection fails unless err is an *Error of a known kind that does
// not hold input.
func checkRejection(t *testing.T, err error, input string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Len != len(input) {
		t.Fatalf("error %v (%T): want an *Error with Len %d", err, err, len(input))
	}
	switch e.Err {
	case ErrMalformed, ErrUnknownKey, ErrBadSignature, ErrWrongPurpose, ErrExpired:
	default:
		t.Fatalf("error %v: unknown kind %v", err, e.Err)
	}
	if msg := strings.ReplaceAll(err.Error(), fileURIForm, ""); len(input) >= 8 && strings.Contains(msg, input) {
		t.Fatalf("error %q holds its input", err)
	}
}

// FuzzVerify: Verify never panics, and accepts only the tokens signed
// here: a mutation of a genuine token never verifies, with other claims or
// the same.
func FuzzVerify(f *testing.F) {
	r := ring(f, keyNew, keyOld)
	old := ring(f, keyOld)
	signed := map[string]bool{}
	for _, c := range []Claims{
		claims(),
		{Purpose: PurposeUpload, FileID: "f", Expires: now.Add(time.Hour)},
		{Purpose: PurposeUpload, FileID: "x", Owner: "bob", Size: 1 << 40, MediaType: "text/plain", Expires: now.Add(time.Minute)},
		{Purpose: PurposeDownload, FileID: "f", Expires: now.Add(time.Hour)},
		{Purpose: PurposeUpload, FileID: "f", Expires: now.Add(-time.Hour)},
	} {
		for _, k := range []*Keyring{r, old} {
			tok := sign(f, k, c)
			signed[tok] = true
			f.Add(tok)
		}
	}
	for _, s := range []string{"", ".", "AQ.AA", "a.b.c", "!!.??", "AQNuZXc.AA\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := r.Verify(tok, PurposeUpload, now)
		if err != nil {
			checkRejection(t, err, tok)
			return
		}
		if !signed[tok] {
			t.Fatalf("Verify(%q) = %+v: a token not signed here verifies", tok, c)
		}
		p, _, _ := strings.Cut(tok, ".")
		payload, _ := b64.DecodeString(p)
		kid, _, _ := parsePayload(payload)
		if again := signWith(r.lookup(kid), &c); again != tok {
			t.Fatalf("Verify(%q) = %+v, which signs as %q", tok, c, again)
		}
	})
}

// FuzzParsePayload: parsePayload never panics and accepts exactly what
// appendPayload writes.
func FuzzParsePayload(f *testing.F) {
	c := claims()
	f.Add(appendPayload(nil, "new", &c))
	f.Add(appendPayload(nil, "k", &Claims{Purpose: "p", FileID: "f", Expires: now}))
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		kid, c, reason := parsePayload(b)
		if reason != "" {
			return
		}
		if again := appendPayload(nil, kid, &c); !bytes.Equal(again, b) {
			t.Fatalf("parsePayload(%x) = %q, %+v, which encodes as %x", b, kid, c, again)
		}
	})
}

// FuzzParseFileURI: ParseFileURI never panics, and accepts only the URIs
// made here, for the owner they were made for.
func FuzzParseFileURI(f *testing.F) {
	r := ring(f, keyNew, keyOld)
	old := ring(f, keyOld)
	made := map[[2]string]bool{}
	for _, ref := range []FileRef{
		ref(),
		{Host: "127.0.0.1:8080", FileID: "file_X", Expires: now.Add(time.Minute)},
		{Host: "[::1]", FileID: "f", Owner: "bob", Expires: now.Add(time.Hour)},
		{Host: "server", FileID: "f", Expires: now.Add(-time.Hour)},
	} {
		for _, k := range []*Keyring{r, old} {
			uri := fileURI(f, k, ref)
			made[[2]string{uri, ref.Owner}] = true
			f.Add(uri, ref.Owner)
		}
	}
	for _, s := range []string{"", "../etc/passwd", "/abs", "mcp-file://server/file_01HXYZ", "mcp-file://s/%2e%2e", "mcp-file://u@s/a?b#c"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, uri, owner string) {
		got, err := r.ParseFileURI(uri, owner, now)
		if err != nil {
			checkRejection(t, err, uri)
			return
		}
		if !made[[2]string{uri, owner}] {
			t.Fatalf("ParseFileURI(%q, %q) = %+v: a URI not made here for this owner parses", uri, owner, got)
		}
		kid := strings.Split(uri, ".")[len(strings.Split(uri, "."))-3]
		if again := fileURIWith(r.lookup(kid), &got); again != uri {
			t.Fatalf("ParseFileURI(%q) = %+v, which FileURI writes as %q", uri, got, again)
		}
	})
}
