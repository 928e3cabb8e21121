package token

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func ref() FileRef {
	return FileRef{Host: "server", FileID: "file_ABCDEFGHIJKLMNOPQRSTUVWXYZ", Owner: "alice", Expires: now.Add(time.Hour)}
}

func fileURI(t testing.TB, r *Keyring, f FileRef) string {
	t.Helper()
	uri, err := r.FileURI(f)
	if err != nil {
		t.Fatalf("FileURI(%+v): %v", f, err)
	}
	return uri
}

func TestFileURIRoundTrip(t *testing.T) {
	r := ring(t, keyNew)
	form := regexp.MustCompile(`^mcp-file://[a-z0-9.\-_:\[\]]+/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`)
	longest := ring(t, mustKey(strings.Repeat("k", MaxKeyIDLen), secretNew))
	for _, f := range []FileRef{
		ref(),
		{Host: "127.0.0.1:8080", FileID: NewFileID(), Expires: now.Add(time.Second)},
		{Host: "[::1]:443", FileID: "x", Owner: "ü@example.com", Expires: now.Add(500 * time.Millisecond).Add(time.Hour)},
		{Host: strings.Repeat("h", MaxHostLen), FileID: strings.Repeat("F", MaxFileIDLen), Owner: strings.Repeat("o", MaxOwnerLen), Expires: time.Unix(1<<62, 0)},
		{Host: "h", FileID: "y", Expires: now.Add(time.Hour)},
		{Host: "h", FileID: "yz", Expires: now.Add(time.Hour)},
		{Host: "h", FileID: "xyz", Expires: now.Add(time.Hour)},
		{Host: "h", FileID: "wxyz", Expires: now.Add(time.Hour)},
		{Host: "h", FileID: "____-", Expires: now.Add(time.Hour)},
		{Host: "h", FileID: "sized", Expires: now.Add(time.Hour), Sized: true},
		{Host: "h", FileID: "sized", Expires: now.Add(time.Hour), Sized: true, Size: 1<<63 - 1},
		{Host: "h", FileID: "digest", Expires: now.Add(time.Hour), SHA256Prefix: [SHA256PrefixLen]byte{15: 1}},
		{Host: strings.Repeat("h", MaxHostLen), FileID: strings.Repeat("F", MaxFileIDLen), Owner: "o", Expires: now.Add(time.Hour),
			Sized: true, Size: 2500, SHA256Prefix: [SHA256PrefixLen]byte{0: 0xff, 15: 0xff}},
	} {
		uri := fileURI(t, r, f)
		if !form.MatchString(uri) || len(uri) > MaxFileURILen {
			t.Errorf("FileURI(%+v) = %q (%d bytes), want the documented form", f, uri, len(uri))
		}
		if again := fileURI(t, r, f); again == uri {
			t.Errorf("FileURI twice = %q both times, want a fresh nonce each time", uri)
		}
		if long := fileURI(t, longest, f); len(long) > MaxFileURILen {
			t.Errorf("FileURI(%+v) under the longest key id: %d bytes, want at most %d", f, len(long), MaxFileURILen)
		}
		got, err := r.ParseFileURI(uri, f.Owner, now)
		if err != nil {
			t.Errorf("ParseFileURI(FileURI(%+v)): %v", f, err)
			continue
		}
		want := f
		want.Expires = f.Expires.Truncate(time.Second).UTC()
		if got != want {
			t.Errorf("ParseFileURI(FileURI(f)) = %+v, want %+v", got, want)
		}
	}
	// The host is case-insensitive on the way in and lower case out.
	f := ref()
	f.Host = "Server.EXAMPLE"
	uri := fileURI(t, r, f)
	if !strings.HasPrefix(uri, "mcp-file://server.example/") {
		t.Errorf("FileURI(host %q) = %q, want the host in lower case", f.Host, uri)
	}
}

func TestFileURIOwner(t *testing.T) {
	r := ring(t, keyNew)
	uri := fileURI(t, r, ref())
	for _, owner := range []string{"", "bob", "Alice", "alice ", strings.Repeat("o", MaxOwnerLen+1), "\xff"} {
		_, err := r.ParseFileURI(uri, owner, now)
		checkErr(t, err, ErrBadSignature, uri)
	}
	f := ref()
	f.Owner = ""
	uri = fileURI(t, r, f)
	_, err := r.ParseFileURI(uri, "alice", now)
	checkErr(t, err, ErrBadSignature, uri)
}

func TestFileURIExpiredAndRotation(t *testing.T) {
	f := ref()
	uri := fileURI(t, ring(t, keyOld), f)
	_, err := ring(t, keyOld).ParseFileURI(uri, "alice", f.Expires)
	checkErr(t, err, ErrExpired, uri)
	if _, err := ring(t, keyNew, keyOld).ParseFileURI(uri, "alice", now); err != nil {
		t.Errorf("ring [new old] rejects a URI of old: %v", err)
	}
	_, err = ring(t, keyNew).ParseFileURI(uri, "alice", now)
	checkErr(t, err, ErrUnknownKey, uri)
}

// TestLongestFileURI: the longest host, key id and file id give a URI of
// the length MaxFileURILen's comment states.
func TestLongestFileURI(t *testing.T) {
	r := ring(t, mustKey(strings.Repeat("k", MaxKeyIDLen), secretNew))
	uri := fileURI(t, r, FileRef{Host: strings.Repeat("h", MaxHostLen), FileID: strings.Repeat("F", MaxFileIDLen), Owner: strings.Repeat("o", MaxOwnerLen), Expires: time.Unix(1<<62, 0)})
	if len(uri) != 476 || len(uri) > MaxFileURILen {
		t.Errorf("longest file URI: %d bytes, want 476 (at most %d)", len(uri), MaxFileURILen)
	}
	uri = fileURI(t, r, FileRef{Host: strings.Repeat("h", MaxHostLen), FileID: strings.Repeat("F", MaxFileIDLen), Owner: strings.Repeat("o", MaxOwnerLen), Expires: time.Unix(1<<62, 0),
		Sized: true, Size: 1<<63 - 1, SHA256Prefix: [SHA256PrefixLen]byte{1}})
	if len(uri) != 509 || len(uri) > MaxFileURILen {
		t.Errorf("longest file URI with a size and a SHA-256: %d bytes, want 509 (at most %d)", len(uri), MaxFileURILen)
	}
}

// TestFileURIBadSize: FileURI refuses a size it could not seal.
func TestFileURIBadSize(t *testing.T) {
	r := ring(t, keyNew)
	for _, f := range []FileRef{
		{Host: "h", FileID: "x", Expires: now.Add(time.Hour), Sized: true, Size: -1},
		{Host: "h", FileID: "x", Expires: now.Add(time.Hour), Size: 10},
	} {
		if uri, err := r.FileURI(f); err == nil || !strings.Contains(err.Error(), "size") {
			t.Errorf("FileURI(%+v) = %q, %v; want an error about the size", f, uri, err)
		}
	}
}

// TestFileURITampered changes each part of a genuine URI.
func TestFileURITampered(t *testing.T) {
	r := ring(t, keyNew, keyOld)
	uri := fileURI(t, r, ref())
	rest := strings.TrimPrefix(uri, "mcp-file://server/")
	kid, sealed, _ := strings.Cut(rest, ".")
	raw, _ := b64.DecodeString(sealed)
	flip := func(s string) string {
		c := byte('A')
		if s[0] == 'A' {
			c = 'B'
		}
		return string(c) + s[1:]
	}
	for _, tt := range []struct {
		name, uri string
		want      error
	}{
		{"host", "mcp-file://server2/" + rest, ErrBadSignature},
		{"host with port", "mcp-file://server:80/" + rest, ErrBadSignature},
		{"key id", "mcp-file://server/old." + sealed, ErrBadSignature},
		{"unknown key id", "mcp-file://server/other." + sealed, ErrUnknownKey},
		{"sealed", "mcp-file://server/" + kid + "." + flip(sealed), ErrBadSignature},
		{"sealed shorter", "mcp-file://server/" + kid + "." + b64.EncodeToString(raw[:len(raw)-1]), ErrBadSignature},
		{"sealed longer", "mcp-file://server/" + kid + "." + b64.EncodeToString(append(raw, 0)), ErrBadSignature},
		{"sealed too short", "mcp-file://server/" + kid + "." + sealed[:36], ErrMalformed},
		{"SEP example id", "mcp-file://server/file_01HXYZ", ErrMalformed},
		{"sealed cut", uri[:len(uri)-1], ErrMalformed},
		{"stray bits", uri[:len(uri)-1] + "B", ErrMalformed},
		{"upper-case scheme", "MCP-FILE://server/" + rest, ErrMalformed},
		{"upper-case host", "mcp-file://SERVER/" + rest, ErrMalformed},
		{"query", uri + "?x=1", ErrMalformed},
		{"empty query", uri + "?", ErrMalformed},
		{"fragment", uri + "#x", ErrMalformed},
		{"userinfo", "mcp-file://alice@server/" + rest, ErrMalformed},
		{"userinfo with password", "mcp-file://a:b@server/" + rest, ErrMalformed},
		{"second segment", uri + "/x", ErrMalformed},
		{"dot segment", "mcp-file://server/./" + rest, ErrMalformed},
		{"trailing slash", uri + "/", ErrMalformed},
		{"escaped", "mcp-file://server/" + kid + "%2E" + sealed, ErrMalformed},
		{"second dot", uri + ".x", ErrMalformed},
		{"newline", uri + "\n", ErrMalformed},
		{"leading space", " " + uri, ErrMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.ParseFileURI(tt.uri, "alice", now)
			if err == nil {
				t.Fatalf("ParseFileURI(%q) = %+v, want an error", tt.uri, got)
			}
			checkErr(t, err, tt.want, tt.uri)
		})
	}
}

// sealFileURI returns plain sealed as a file URI's path under k for host
// and owner, whatever it holds.
func sealFileURI(k Key, host, owner string, plain []byte) string {
	return fileScheme + host + "/" + k.id + "." + b64.EncodeToString(k.seal(nil, plain, fileURIAD(k.id, host, owner)))
}

// TestParseFileURISealedMalformed seals what FileURI never writes: each
// is malformed, though it opens.
func TestParseFileURISealedMalformed(t *testing.T) {
	r := ring(t, keyNew)
	f := ref()
	good := appendFileRef(nil, &f)
	zeroExp := append([]byte(nil), good...)
	copy(zeroExp, make([]byte, 8))
	for _, tt := range []struct {
		name  string
		plain []byte
	}{
		{"empty", nil},
		{"expiry only", good[:8]},
		{"no file id", good[:9]},
		{"cut", good[:len(good)-1]},
		{"trailing byte", append(append([]byte(nil), good...), 0)},
		{"expiry zero", zeroExp},
		{"expiry past int64", append([]byte{0x80, 0, 0, 0, 0, 0, 0, 1}, good[8:]...)},
		{"id length zero", append(append([]byte(nil), good[:8]...), 0)},
		{"id too long", append(append([]byte(nil), good[:8]...), append([]byte{MaxFileIDLen + 1}, make([]byte, 97)...)...)},
		{"id length and bytes disagree", append(append([]byte(nil), good[:8]...), 2, 0xff, 0xff, 0xff)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			uri := sealFileURI(keyNew, "server", "alice", tt.plain)
			got, err := r.ParseFileURI(uri, "alice", now)
			if err == nil {
				t.Fatalf("ParseFileURI(%q) = %+v, want an error", uri, got)
			}
			checkErr(t, err, ErrMalformed, uri)
		})
	}
}

// TestParseFileURIMalformed feeds paths, other schemes and traversal
// attempts: each is malformed, never a path, and the error says what a
// file URI looks like.
func TestParseFileURIMalformed(t *testing.T) {
	r := ring(t, keyNew)
	sealed := "k." + strings.Repeat("A", 40)
	for _, tt := range []struct{ uri, reason string }{
		{"", "empty"},
		{"../etc/passwd", "never paths"},
		{"/etc/passwd", "never paths"},
		{"etc/passwd", "never paths"},
		{"C:\\Windows\\win.ini", "scheme is not mcp-file"},
		{"\\\\server\\share", "never paths"},
		{"file_01HXYZ", "never paths"},
		{"file:///etc/passwd", "scheme is not mcp-file"},
		{"https://server/file_1", "scheme is not mcp-file"},
		{"data:text/plain,hi", "scheme is not mcp-file"},
		{"mcp-resource://reports/monthly.pdf", "scheme is not mcp-file"},
		{"mcp-file:file_1", `want "//"`},
		{"mcp-file:/server/file_1", `want "//"`},
		{"Mcp-File://server/" + sealed, "lower case"},
		{"mcp-file://", "no host"},
		{"mcp-file:///etc/passwd", "no host"},
		{"mcp-file:////etc/passwd", "no host"},
		{"mcp-file://server", "no file id"},
		{"mcp-file://server/", "no file id"},
		{"mcp-file://server/../etc/passwd", "more than one segment"},
		{"mcp-file://server/..", "key id"},
		{"mcp-file://server/a/b", "more than one segment"},
		{"mcp-file://server//etc/passwd", "more than one segment"},
		{"mcp-file://server/%2e%2e", "escapes"},
		{"mcp-file://server/%2e%2e%2fetc%2fpasswd", "escapes"},
		{"mcp-file://server/..%2f..%2fetc", "escapes"},
		{"mcp-file://server/file_1", "want <key id>.<base64url>"},
		{"mcp-file://server/k\x00." + strings.Repeat("A", 40), "key id"},
		{"mcp-file://server/" + sealed + "\x00", "not base64url"},
		{"mcp-file://server/." + strings.Repeat("A", 40), "key id"},
		{"mcp-file://server/" + strings.Repeat("k", MaxKeyIDLen+1) + "." + strings.Repeat("A", 40), "key id"},
		{"mcp-file://server/k.AAAA", "not base64url of a sealed text"},
		{"mcp-file://server/" + sealed + "=", "not base64url"},
		{"mcp-file://server/k." + strings.Repeat("A", 38) + "B", "not base64url"}, // stray bits
		{"mcp-file://server/" + sealed + ".x", "not base64url"},
		{"mcp-file://ser ver/" + sealed, "host"},
		{"mcp-file://ser%41ver/" + sealed, "host"},
		{"mcp-file://ser\\ver/" + sealed, "host"},
		{"mcp-file://" + strings.Repeat("h", MaxHostLen+1) + "/" + sealed, "host"},
		{"mcp-file://server/" + sealed + "?", "query"},
		{"mcp-file://server?/" + sealed, "query"},
		{"mcp-file://server/" + sealed + "#", "fragment"},
		{"mcp-file://user@server/" + sealed, "userinfo"},
		{"mcp-file://server/" + strings.Repeat("a", MaxFileURILen), "longer than"},
	} {
		_, err := r.ParseFileURI(tt.uri, "", now)
		checkErr(t, err, ErrMalformed, tt.uri)
		if err == nil {
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.reason) || !strings.Contains(msg, "want mcp-file://<host>/<key id>.<sealed>") {
			t.Errorf("ParseFileURI(%q) error %q, want one that says %q and what a file URI looks like", tt.uri, msg, tt.reason)
		}
	}
}

// TestFileURIAndTokenDoNotMix: a token's sealed part never passes as a
// file URI's, nor a file URI's or a sealed text as a token, under the same
// key.
func TestFileURIAndTokenDoNotMix(t *testing.T) {
	r := ring(t, keyNew)
	f := ref()
	tok := sign(t, r, Claims{Purpose: "file", FileID: f.FileID, Owner: f.Owner, Expires: f.Expires})
	uri := fileURI(t, r, f)
	if _, err := r.ParseFileURI("mcp-file://server/"+tok, f.Owner, now); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a token as a file URI's path: %v, want a bad signature", err)
	}
	sealed, _ := r.Seal(string(appendFileRef(nil, &f)))
	if _, err := r.ParseFileURI("mcp-file://server/"+sealed, f.Owner, now); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a sealed text as a file URI's path: %v, want a bad signature", err)
	}
	if _, err := r.Verify(uri, "file", now); !errors.Is(err, ErrMalformed) {
		t.Errorf("Verify(file URI) = %v, want malformed", err)
	}
	if _, err := r.Verify(strings.TrimPrefix(uri, "mcp-file://server/"), "file", now); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Verify(file URI's path) = %v, want a bad signature", err)
	}
	if _, err := r.Open(tok); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Open(token) = %v, want a bad signature", err)
	}
}

func TestFileURIErrors(t *testing.T) {
	r := ring(t, keyNew)
	for _, tt := range []struct {
		change func(*FileRef)
		want   string
	}{
		{func(f *FileRef) { f.Host = "" }, "host"},
		{func(f *FileRef) { f.Host = "a/b" }, "host"},
		{func(f *FileRef) { f.Host = "u@h" }, "host"},
		{func(f *FileRef) { f.Host = "h?" }, "host"},
		{func(f *FileRef) { f.Host = strings.Repeat("h", MaxHostLen+1) }, "host"},
		{func(f *FileRef) { f.FileID = "" }, "file id"},
		{func(f *FileRef) { f.FileID = "../x" }, "file id"},
		{func(f *FileRef) { f.FileID = "a.b" }, "file id"},
		{func(f *FileRef) { f.Owner = "\xff" }, "owner"},
		{func(f *FileRef) { f.Expires = time.Time{} }, "expires"},
	} {
		f := ref()
		tt.change(&f)
		if uri, err := r.FileURI(f); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FileURI(%+v) = %q, %v, want an error about %s", f, uri, err, tt.want)
		}
	}
	var zero *Keyring
	if _, err := zero.FileURI(ref()); err == nil {
		t.Error("nil Keyring makes file URIs")
	}
	if _, err := zero.ParseFileURI(fileURI(t, r, ref()), "alice", now); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("nil Keyring parses file URIs: %v", err)
	}
}

func TestNewFileID(t *testing.T) {
	seen := map[string]bool{}
	form := regexp.MustCompile(`^file_[A-Z2-7]{26}$`)
	for range 1000 {
		id := NewFileID()
		if !form.MatchString(id) || !isIDChars(id, MaxFileIDLen) || seen[id] {
			t.Fatalf("NewFileID() = %q: want a new file_ and 26 base32 characters", id)
		}
		seen[id] = true
	}
}
