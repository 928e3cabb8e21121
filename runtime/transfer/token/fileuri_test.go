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
	form := regexp.MustCompile(`^mcp-file://[a-z0-9.\-_:\[\]]+/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[1-9][0-9]*\.[A-Za-z0-9_-]{22}$`)
	for _, f := range []FileRef{
		ref(),
		{Host: "127.0.0.1:8080", FileID: NewFileID(), Expires: now.Add(time.Second)},
		{Host: "[::1]:443", FileID: "x", Owner: "ü@example.com", Expires: now.Add(500 * time.Millisecond).Add(time.Hour)},
		{Host: strings.Repeat("h", MaxHostLen), FileID: strings.Repeat("F", MaxFileIDLen), Owner: strings.Repeat("o", MaxOwnerLen), Expires: time.Unix(1<<62, 0)},
	} {
		uri := fileURI(t, r, f)
		if !form.MatchString(uri) || len(uri) > MaxFileURILen {
			t.Errorf("FileURI(%+v) = %q (%d bytes), want the documented form", f, uri, len(uri))
		}
		if strings.Contains(uri, "alice") {
			t.Errorf("FileURI(%+v) = %q writes the owner", f, uri)
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

// TestFileURITampered changes each part of a genuine URI.
func TestFileURITampered(t *testing.T) {
	r := ring(t, keyNew, keyOld)
	uri := fileURI(t, r, ref())
	rest := strings.TrimPrefix(uri, "mcp-file://server/")
	p := strings.Split(rest, ".")
	id, kid, exp, mac := p[0], p[1], p[2], p[3]
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
		{"file id", "mcp-file://server/" + flip(id) + "." + kid + "." + exp + "." + mac, ErrBadSignature},
		{"file id shorter", "mcp-file://server/" + id[1:] + "." + kid + "." + exp + "." + mac, ErrBadSignature},
		{"key id", "mcp-file://server/" + id + ".old." + exp + "." + mac, ErrBadSignature},
		{"unknown key id", "mcp-file://server/" + id + ".other." + exp + "." + mac, ErrUnknownKey},
		{"expiry later", "mcp-file://server/" + id + "." + kid + "." + exp + "9." + mac, ErrBadSignature},
		{"mac", "mcp-file://server/" + id + "." + kid + "." + exp + "." + flip(mac), ErrBadSignature},
		{"SEP example id", "mcp-file://server/file_01HXYZ", ErrMalformed},
		{"bare id", "mcp-file://server/" + id, ErrMalformed},
		{"mac cut", uri[:len(uri)-1], ErrMalformed},
		{"mac longer", uri + "A", ErrMalformed},
		{"expiry with leading zero", "mcp-file://server/" + id + "." + kid + ".0" + exp + "." + mac, ErrMalformed},
		{"expiry with sign", "mcp-file://server/" + id + "." + kid + ".+" + exp + "." + mac, ErrMalformed},
		{"expiry zero", "mcp-file://server/" + id + "." + kid + ".0." + mac, ErrMalformed},
		{"expiry overflow", "mcp-file://server/" + id + "." + kid + ".99999999999999999999." + mac, ErrMalformed},
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
		{"escaped", "mcp-file://server/" + id + "%2E" + kid + "." + exp + "." + mac, ErrMalformed},
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

// TestParseFileURIMalformed feeds paths, other schemes and traversal
// attempts: each is malformed, never a path, and the error says what a
// file URI looks like.
func TestParseFileURIMalformed(t *testing.T) {
	r := ring(t, keyNew)
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
		{"Mcp-File://server/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "lower case"},
		{"mcp-file://", "no host"},
		{"mcp-file:///etc/passwd", "no host"},
		{"mcp-file:////etc/passwd", "no host"},
		{"mcp-file://server", "no file id"},
		{"mcp-file://server/", "no file id"},
		{"mcp-file://server/../etc/passwd", "more than one segment"},
		{"mcp-file://server/..", "four parts"},
		{"mcp-file://server/a/b", "more than one segment"},
		{"mcp-file://server//etc/passwd", "more than one segment"},
		{"mcp-file://server/%2e%2e", "escapes"},
		{"mcp-file://server/%2e%2e%2fetc%2fpasswd", "escapes"},
		{"mcp-file://server/..%2f..%2fetc", "escapes"},
		{"mcp-file://server/file\x00.k.1.AAAAAAAAAAAAAAAAAAAAAA", "file id"},
		{"mcp-file://server/file_1\x00", "four parts"},
		{"mcp-file://server/.k.1.AAAAAAAAAAAAAAAAAAAAAA", "file id"},
		{"mcp-file://server/" + strings.Repeat("f", MaxFileIDLen+1) + ".k.1.AAAAAAAAAAAAAAAAAAAAAA", "file id"},
		{"mcp-file://server/f..1.AAAAAAAAAAAAAAAAAAAAAA", "key id"},
		{"mcp-file://server/f.k.x.AAAAAAAAAAAAAAAAAAAAAA", "expiry"},
		{"mcp-file://server/f.k.1.AAAA", "mac"},
		{"mcp-file://server/f.k.1.AAAAAAAAAAAAAAAAAAAAAA=", "mac"},
		{"mcp-file://server/f.k.1.AAAAAAAAAAAAAAAAAAAAAB", "mac"}, // stray bits
		{"mcp-file://server/f.k.1.AAAAAAAAAAAAAAAAAAAAAA.x", "four parts"},
		{"mcp-file://ser ver/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "host"},
		{"mcp-file://ser%41ver/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "host"},
		{"mcp-file://ser\\ver/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "host"},
		{"mcp-file://" + strings.Repeat("h", MaxHostLen+1) + "/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "host"},
		{"mcp-file://server/f.k.1.AAAAAAAAAAAAAAAAAAAAAA?", "query"},
		{"mcp-file://server?/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "query"},
		{"mcp-file://server/f.k.1.AAAAAAAAAAAAAAAAAAAAAA#", "fragment"},
		{"mcp-file://user@server/f.k.1.AAAAAAAAAAAAAAAAAAAAAA", "userinfo"},
		{"mcp-file://server/" + strings.Repeat("a", MaxFileURILen), "longer than"},
	} {
		_, err := r.ParseFileURI(tt.uri, "", now)
		checkErr(t, err, ErrMalformed, tt.uri)
		if err == nil {
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.reason) || !strings.Contains(msg, "want mcp-file://<host>/<file id>.<key id>.<expiry>.<mac>") {
			t.Errorf("ParseFileURI(%q) error %q, want one that says %q and what a file URI looks like", tt.uri, msg, tt.reason)
		}
	}
}

// TestFileURIAndTokenDoNotMix: a token's mac never passes as a file URI's,
// and a file URI is not a token.
func TestFileURIAndTokenDoNotMix(t *testing.T) {
	r := ring(t, keyNew)
	f := ref()
	tok := sign(t, r, Claims{Purpose: "file", FileID: f.FileID, Owner: f.Owner, Expires: f.Expires})
	_, mac, _ := strings.Cut(tok, ".")
	uri := fileURI(t, r, f)
	forged := uri[:strings.LastIndexByte(uri, '.')+1] + mac[:22]
	if _, err := r.ParseFileURI(forged, f.Owner, now); !errors.Is(err, ErrBadSignature) && !errors.Is(err, ErrMalformed) {
		t.Errorf("a token's mac in a file URI: %v, want a rejection", err)
	}
	if _, err := r.Verify(uri, "file", now); !errors.Is(err, ErrMalformed) {
		t.Errorf("Verify(file URI) = %v, want malformed", err)
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
