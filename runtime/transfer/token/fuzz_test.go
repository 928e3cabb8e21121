package token

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
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
	// The texts the package writes whatever the input may hold it by chance.
	msg := strings.NewReplacer(fileURIForm, "", `after "mcp-file:"`, "").Replace(err.Error())
	if len(input) >= 8 && strings.Contains(msg, input) {
		t.Fatalf("error %q holds its input", err)
	}
}

// FuzzVerify: Verify never panics, and accepts only tokens sealed with
// the claims of the seeds, written as Sign writes them. (The seeds differ
// in each fuzzing process, since each sealing draws a fresh nonce, so a
// token is checked by what it opens to: forging any other would break
// AES-GCM.)
func FuzzVerify(f *testing.F) {
	r := ring(f, keyNew, keyOld)
	old := ring(f, keyOld)
	var sealed []Claims
	for _, c := range []Claims{
		claims(),
		{Purpose: PurposeUpload, FileID: "f", Expires: now.Add(time.Hour)},
		{Purpose: PurposeUpload, FileID: "x", Owner: "bob", Size: 1 << 40, MediaType: "text/plain", Name: "a.txt", Expires: now.Add(time.Minute)},
		{Purpose: PurposeDownload, FileID: "f", Expires: now.Add(time.Hour)},
		{Purpose: PurposeUpload, FileID: "f", Expires: now.Add(-time.Hour)},
	} {
		for _, k := range []*Keyring{r, old} {
			f.Add(sign(f, k, c))
		}
		c.Expires = c.Expires.Truncate(time.Second).UTC()
		sealed = append(sealed, c)
	}
	text, _ := r.Seal("alice")
	for _, s := range []string{"", ".", "new.AA", "a.b.c", "!!.??", "new.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n", text} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := r.Verify(tok, PurposeUpload, now)
		if err != nil {
			checkRejection(t, err, tok)
			return
		}
		if !slices.ContainsFunc(sealed, func(s Claims) bool { return reflect.DeepEqual(s, c) }) {
			t.Fatalf("Verify(%q) = %+v: claims that were never sealed", tok, c)
		}
		if kid, body, _ := cutSealed(tok); kid+"."+b64.EncodeToString(body) != tok {
			t.Fatalf("Verify(%q) accepts a token Sign does not write", tok)
		}
	})
}

// FuzzParsePayload: parsePayload never panics and accepts exactly what
// appendPayload writes.
func FuzzParsePayload(f *testing.F) {
	c := claims()
	f.Add(appendPayload(nil, &c))
	f.Add(appendPayload(nil, &Claims{Purpose: "p", FileID: "f", Expires: now}))
	f.Add([]byte{})
	f.Add(make([]byte, tokenPad))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, reason := parsePayload(b)
		if reason != "" {
			return
		}
		if again := appendPayload(nil, &c); !bytes.Equal(again, b) {
			t.Fatalf("parsePayload(%x) = %+v, which encodes as %x", b, c, again)
		}
	})
}

// FuzzParseFileRef: parseFileRef never panics and accepts exactly what
// appendFileRef writes.
func FuzzParseFileRef(f *testing.F) {
	for _, ref := range []FileRef{ref(), {FileID: "x", Expires: now}, {FileID: "xyz", Expires: time.Unix(1<<62, 0)},
		{FileID: "sized", Expires: now, Sized: true, Size: 2500}, {FileID: "sum", Expires: now, SHA256Prefix: [SHA256PrefixLen]byte{7}},
		{FileID: "both", Expires: now, Sized: true, SHA256Prefix: [SHA256PrefixLen]byte{15: 1}}} {
		f.Add(appendFileRef(nil, &ref))
	}
	f.Add([]byte{})
	f.Add(make([]byte, 9))
	f.Fuzz(func(t *testing.T, b []byte) {
		ref, ok := parseFileRef(b)
		if !ok {
			return
		}
		if !isIDChars(ref.FileID, MaxFileIDLen) || ref.Expires.Unix() <= 0 || ref.Size < 0 || !ref.Sized && ref.Size != 0 {
			t.Fatalf("parseFileRef(%x) = %+v: out of range", b, ref)
		}
		if again := appendFileRef(nil, &ref); !bytes.Equal(again, b) {
			t.Fatalf("parseFileRef(%x) = %+v, which encodes as %x", b, ref, again)
		}
	})
}

// FuzzParseFileURI: ParseFileURI never panics, and accepts only URIs
// sealed for the references of the seeds, for their owners, written as
// FileURI writes them (see FuzzVerify for why not the seeds themselves).
func FuzzParseFileURI(f *testing.F) {
	r := ring(f, keyNew, keyOld)
	old := ring(f, keyOld)
	var sealed []FileRef
	for _, ref := range []FileRef{
		ref(),
		{Host: "127.0.0.1:8080", FileID: "file_X", Expires: now.Add(time.Minute)},
		{Host: "[::1]", FileID: "f", Owner: "bob", Expires: now.Add(time.Hour)},
		{Host: "server", FileID: "f", Expires: now.Add(-time.Hour)},
	} {
		for _, k := range []*Keyring{r, old} {
			f.Add(fileURI(f, k, ref), ref.Owner)
		}
		ref.Expires = ref.Expires.Truncate(time.Second).UTC()
		sealed = append(sealed, ref)
	}
	for _, s := range []string{"", "../etc/passwd", "/abs", "mcp-file://server/file_01HXYZ", "mcp-file://s/%2e%2e", "mcp-file://u@s/a?b#c", "mcp-file://server/new.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, uri, owner string) {
		got, err := r.ParseFileURI(uri, owner, now)
		if err != nil {
			checkRejection(t, err, uri)
			return
		}
		if !slices.Contains(sealed, got) {
			t.Fatalf("ParseFileURI(%q, %q) = %+v: a reference never sealed, or not for this owner", uri, owner, got)
		}
		kid, body, _ := cutSealed(uri[strings.LastIndexByte(uri, '/')+1:])
		if fileScheme+got.Host+"/"+kid+"."+b64.EncodeToString(body) != uri {
			t.Fatalf("ParseFileURI(%q) accepts a URI FileURI does not write", uri)
		}
	})
}
