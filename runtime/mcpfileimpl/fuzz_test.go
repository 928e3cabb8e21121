package mcpfileimpl

import (
	"bytes"
	stdbase64 "encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

var fuzzSeeds = []string{
	sepPNG,
	"data:text/plain,hello%20world",
	"data:text/plain;base64,SGVsbG8gd29ybGQh",
	"data:text/plain;base64,SGVsbG8gd29ybGQ",
	"data:text/plain;base64,SGVs\r\nbG8g\nd29y\rbGQh",
	"data:,A%20brief%20note",
	"data:;charset=utf-8;name=a%2Fb.txt,x",
	"data:application/pdf;name=Report%20%28v2%29%3B%20final.pdf;base64,JVBERi0xLjcK",
	"data:image/png;base64;charset=utf-8,AAAA",
	"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/",
	"data:application/zip;base64,UEsDBAoAAAAAAA==",
	"https://example.com/x.png",
	"file:///etc/passwd",
	"mcp-file://server/file_01HXYZ",
	"",
	"data:image/png,%89PNG%0D%0A%1A%0A",
	"DATA:TEXT/PLAIN;BASE64,SGk=",
}

// FuzzDecode checks Decode's invariants on arbitrary values: no panic; an
// accepted file is within the limit and survives Encode; Validate agrees
// with Decode; no error text or redaction contains the payload.
func FuzzDecode(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, int64(i*7), uint8(i))
	}
	accepts := [][]string{nil, {"image/png", "image/jpeg"}, {"image/*"}, {"text/plain", ".txt"}, {".pdf"}, {"*/*"}, {"application/pdf"}}
	f.Fuzz(func(t *testing.T, uri string, maxSize int64, sel uint8) {
		d := descriptor.File{Accept: accepts[int(sel)%len(accepts)], MaxSize: maxSize % (1 << 16), NoSniff: sel&0x80 != 0}
		file, err := decodeURI("arg", uri, d)
		verr := validateURI("arg", uri, d)
		if isFileURI([]byte(uri)) {
			// A reference to an uploaded file, resolved later, or refused
			// as no file URI this server hands out (too long); a string
			// field takes none, whatever its length.
			if err == nil {
				if _, oerr := file.Open(); oerr == nil || file.Size() != 0 {
					t.Fatalf("decodeURI(%q) = a file of %d bytes (Open error %v), want an unresolved reference", uri, file.Size(), oerr)
				}
			} else {
				wantRule(t, "decodeURI("+uri+")", err, runtime.RuleFileURI)
			}
			wantRule(t, "validateURI("+uri+")", verr, runtime.RuleTransferMode)
			return
		}
		if err != nil {
			var e *runtime.Error
			if !errors.As(err, &e) || e.Arg != "arg" {
				t.Fatalf("decodeURI(%q) error %v (%T), want *runtime.Error for arg", uri, err, err)
			}
			if verr == nil || verr.Error() != err.Error() {
				t.Fatalf("decodeURI(%q) = %v but Validate = %v", uri, err, verr)
			}
			if i := strings.IndexByte(uri, ','); i >= 0 {
				payload := uri[i+1:]
				if len(payload) >= 16 && !strings.Contains(uri[:i], payload) && strings.Contains(err.Error(), payload) {
					t.Fatalf("decodeURI(%q): error text %q contains the payload", uri, err)
				}
			}
			checkErrorFields(t, uri, e)
		} else {
			if verr != nil {
				t.Fatalf("decodeURI(%q) succeeded but Validate = %v", uri, verr)
			}
			if file.Size() > d.Limit(runtime.DefaultMaxSize) {
				t.Fatalf("decodeURI(%q) accepted %d bytes over the limit %d", uri, file.Size(), d.Limit(runtime.DefaultMaxSize))
			}
			if file.MediaType != strings.ToLower(file.MediaType) || !d.Accepts(file.MediaType) {
				t.Fatalf("decodeURI(%q) media type %q", uri, file.MediaType)
			}
			if file.Name != runtime.SanitizeName(file.Name) {
				t.Fatalf("decodeURI(%q) name %q is not sanitized", uri, file.Name)
			}
			// Round trip through Encode.
			again, err := decodeURI("arg", datauri.Encode(file.MediaType, file.Bytes()), descriptor.File{NoSniff: true, MaxSize: 1 << 20})
			if err != nil || again.MediaType != file.MediaType || !bytes.Equal(again.Bytes(), file.Bytes()) {
				t.Fatalf("decodeURI(datauri.Encode(%q, %q)) = %v %q, %v", file.MediaType, file.Bytes(), again.MediaType, again.Bytes(), err)
			}
			// What fmt, slog and JSON show depends on the data's length only.
			other := runtime.NewFile(file.MediaType, bytes.Repeat([]byte{0xA5}, len(file.Bytes())))
			other.Params, other.Name = file.Params, file.Name
			if shown(file) != shown(other) {
				t.Fatalf("the printed forms of %q depend on its data: %q", uri, shown(file))
			}
		}
		// Redact shows at most the scheme or the media type, and a size.
		r := datauri.Redact(uri)
		m := redactedRE.FindStringSubmatch(r)
		if m == nil {
			t.Fatalf("datauri.Redact(%q) = %q, not a redacted form", uri, r)
		}
		if mt := m[1]; mt != "" && mt != "text/plain" && !strings.HasPrefix(strings.ToLower(uri), "data:"+mt) {
			t.Fatalf("datauri.Redact(%q) = %q shows a media type not at the start of the URI", uri, r)
		}
		if sc := m[3]; sc != "" && !strings.HasPrefix(strings.ToLower(uri), sc) {
			t.Fatalf("datauri.Redact(%q) = %q shows a scheme not at the start of the URI", uri, r)
		}
	})
}

var redactedRE = regexp.MustCompile(`^(?:data:([^;,]+)(;base64)?,|data:|([a-z][a-z0-9+.-]*):)?\[[0-9]+ bytes\]$`)

// knownReasons are the texts of Error.Reason, numbers left out.
var knownReasons = map[string]bool{
	"a value without a scheme": true, "an empty string": true, "the data is not valid base64": true,
	"the data is not valid base64 (at data offset )": true, "it has leading whitespace": true,
	"the data has a control character that must be %-escaped (at data offset )": true,
	"the data has an invalid %-escape (at data offset )":                        true, "the data has an invalid %-escape": true,
	"the media type and parameters are longer than  bytes, or there is no comma": true,
	"there is no comma before the data":                                          true, "a media type parameter has an invalid name": true,
	"a media type parameter has an invalid value": true, "a media type parameter has no value": true,
	"a media type parameter is repeated": true, "the media type is not of the form type/subtype": true,
	`";base64" must come last, right before the comma`: true,
}

var digitsRE = regexp.MustCompile(`\b[0-9]+\b`)

// checkErrorFields checks that what an error for uri shows comes from the
// URI's scheme or header, from the sniffer, or from this package's texts.
func checkErrorFields(t *testing.T, uri string, e *runtime.Error) {
	t.Helper()
	lower := strings.ToLower(uri)
	head := lower
	if i := strings.IndexByte(lower, ','); i >= 0 {
		head = lower[:i]
	}
	if e.MediaType != "" && e.MediaType != "text/plain" && !strings.Contains(head, e.MediaType) {
		t.Fatalf("decodeURI(%q): error media type %q is not from the header", uri, e.MediaType)
	}
	if e.Scheme != "" && !strings.HasPrefix(lower, e.Scheme) {
		t.Fatalf("decodeURI(%q): error scheme %q is not the URI's", uri, e.Scheme)
	}
	if e.Reason != "" && !knownReasons[digitsRE.ReplaceAllString(e.Reason, "")] {
		t.Fatalf("decodeURI(%q): unknown reason %q", uri, e.Reason)
	}
	if e.Detected != "" && e.Detected != "text/plain" && !strings.Contains(e.Detected, "/") {
		t.Fatalf("decodeURI(%q): detected %q", uri, e.Detected)
	}
}

// shown is every form in which a runtime.File prints, logs or marshals.
func shown(f runtime.File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v|%+v|%#v|%s|%q|%x|%d|", f, f, f, f, f, f, f)
	slog.New(slog.NewTextHandler(&b, nil)).Info("", "f", f)
	slog.New(slog.NewJSONHandler(&b, nil)).Info("", "f", f)
	j, _ := json.Marshal(f)
	b.Write(j)
	return timeRE.ReplaceAllString(b.String(), "")
}

var timeRE = regexp.MustCompile(`time=\S+|"time":"[^"]*"`)

// FuzzDecodeJSON checks that DecodeJSON and ValidateJSON on a raw token
// agree with encoding/json followed by Decode and Validate.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range fuzzSeeds {
		tok, _ := json.Marshal(s)
		f.Add(tok)
		f.Add(bytes.ReplaceAll(tok, []byte("/"), []byte(`\/`)))
		f.Add(bytes.ReplaceAll(tok, []byte("+"), []byte(`\u002B`)))
	}
	f.Add([]byte(`"data:text/plain,a\ud800b"`))
	f.Add([]byte(`"data:text/plain,a\x"`))
	f.Add([]byte(`42`))
	f.Fuzz(func(t *testing.T, tok []byte) {
		d := descriptor.File{MaxSize: 1 << 16}
		file, err := decodeJSON("arg", tok, d)
		uri, verr := validateJSON("arg", tok, d)
		var s string
		jerr := json.Unmarshal(tok, &s)
		t0 := jsonwalk.TrimWS(tok)
		if len(t0) == 0 || t0[0] != '"' {
			var e *runtime.Error
			if !errors.As(err, &e) || e.Rule != runtime.RuleType || !errors.As(verr, &e) {
				t.Fatalf("decodeJSON(%q) = %v, ValidateJSON = %v; want runtime.RuleType", tok, err, verr)
			}
			return
		}
		if jerr != nil {
			if err == nil || err.Error() != jerr.Error() || verr == nil || verr.Error() != jerr.Error() {
				t.Fatalf("decodeJSON(%q) = %v, ValidateJSON = %v; want encoding/json's %v", tok, err, verr, jerr)
			}
			return
		}
		want, werr := decodeURI("arg", s, d)
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("decodeJSON(%q) = %v, decodeURI(%q) = %v", tok, err, s, werr)
		}
		if err == nil && (file.MediaType != want.MediaType || !bytes.Equal(file.Bytes(), want.Bytes()) || file.Name != want.Name || fmt.Sprint(file.Params) != fmt.Sprint(want.Params)) {
			t.Fatalf("decodeJSON(%q) = %+v, Decode = %+v", tok, file, want)
		}
		if wv := validateURI("arg", s, d); (verr == nil) != (wv == nil) || (verr != nil && verr.Error() != wv.Error()) {
			t.Fatalf("validateJSON(%q) = %v, Validate = %v", tok, verr, wv)
		}
		if verr == nil && uri != s {
			t.Fatalf("validateJSON(%q) = %q, want %q", tok, uri, s)
		}
	})
}

// member is one member of a JSON object, value compacted.
// FuzzBase64 compares the base64 path (size arithmetic, SIMD decoder,
// line-break handling) with encoding/base64 on arbitrary payloads.
func FuzzBase64(f *testing.F) {
	for _, s := range []string{"", "QQ", "QUI", "QUJD", "QUJDRA==", "QUJDRA=", "QUJD\r\nRA==", "=QUJ", strings.Repeat("QUJD", 20) + "RA==", strings.Repeat("/+9z", 30),
		strings.Repeat("QUJD", 19) + "\r\n\r\n" + "RA==", strings.Repeat("QUJD", 20) + "\nQUI=", "QUJD\r\n" + strings.Repeat("QUJD", 20) + "RA=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := decodeBase64("arg", []byte(p), descriptor.File{MaxSize: 1 << 20}, false, nil)
		stripped := strings.NewReplacer("\r", "", "\n", "").Replace(p)
		enc := stdbase64.StdEncoding
		if len(stripped)%4 != 0 {
			enc = stdbase64.RawStdEncoding
		}
		want, werr := enc.DecodeString(stripped)
		if (err == nil) != (werr == nil) {
			t.Fatalf("decodeBase64(%q) = %v, encoding/base64 = %v", p, err, werr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("decodeBase64(%q) = %x, encoding/base64 = %x", p, got, want)
		}
		if err == nil && len(got) != cap(got) && !strings.ContainsAny(p, "\r\n") {
			t.Fatalf("decodeBase64(%q): cap %d, len %d", p, cap(got), len(got))
		}
		verr := func() *runtime.Error {
			var prefix [content.SniffLen]byte
			_, e := validateBase64("arg", []byte(p), descriptor.File{MaxSize: 1 << 20}, false, prefix[:])
			return e
		}()
		if (verr == nil) != (err == nil) || (err != nil && verr.Error() != err.Error()) {
			t.Fatalf("validateBase64(%q) = %v, decodeBase64 = %v", p, verr, err)
		}
		if strings.ContainsAny(p, "\r\n") {
			// Not decoded in place (the quick walk of inline files may
			// hand such text over all the same): refused, the text as it was.
			n, raw, ok := datauri.Base64Size([]byte(p), false)
			if !ok {
				return
			}
			for _, block := range []int{4, 8, 12, 32, 64} {
				q := []byte(p)
				if _, ok := decodeInPlace(q, int(n), raw, block); ok {
					t.Fatalf("decodeInPlace(%q, block %d): line breaks taken", p, block)
				}
				if string(q) != p {
					t.Fatalf("decodeInPlace(%q, block %d): text after a refusal %q", p, block, q)
				}
			}
			return
		}
		// In place: the same bytes or error, in blocks of any size, and
		// the text as it was after an error or an undo.
		// After a splice: the text cut after any whole group of alphabet
		// characters, the first part decoded as the message was read, gives
		// the same bytes, and never succeeds where the whole fails.
		for k := 0; k+4 <= len(p); k += 4 {
			if !isBase64Text(p[:k+4]) {
				break
			}
			head, herr := stdbase64.RawStdEncoding.DecodeString(p[:k+4])
			if herr != nil {
				t.Fatalf("alphabet text %q: %v", p[:k+4], herr)
			}
			head = append(make([]byte, 0, len(head)+3), head...)
			got, aerr := decodeAfter("arg", head, []byte(p[k+4:]), descriptor.File{MaxSize: 1 << 20})
			if (aerr == nil) != (err == nil) || (err == nil && !bytes.Equal(got, want)) {
				t.Fatalf("decodeAfter(%q, %q) = %x, %v; the whole: %x, %v", p[:k+4], p[k+4:], got, aerr, want, err)
			}
		}
		q := []byte(p)
		pl := &placement{inPlace: true}
		got, ierr := decodeBase64("arg", q, descriptor.File{MaxSize: 1 << 20}, true, pl)
		undo := pl.undo
		if (ierr == nil) != (err == nil) || (err != nil && ierr.Error() != err.Error()) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("decodeBase64(%q) in place = %x, %v; want %x, %v", p, got, ierr, want, err)
		}
		if err == nil && (cap(got) != len(got) || (len(got) > 0 && &got[0] != &q[0])) {
			t.Fatalf("decodeBase64(%q) in place: not p's first bytes", p)
		}
		if undo != nil {
			undo()
			undo()
		}
		if string(q) != p {
			t.Fatalf("decodeBase64(%q) in place: text after undo %q", p, q)
		}
		n, raw, ok := datauri.Base64Size([]byte(p), false)
		if !ok {
			return
		}
		for _, block := range []int{4, 8, 12, 32, 64} {
			q := []byte(p)
			undo, ok := decodeInPlace(q, int(n), raw, block)
			if ok != (err == nil) || (ok && !bytes.Equal(q[:n], want)) {
				t.Fatalf("decodeInPlace(%q, block %d) = %x, %v; want %x, %v", p, block, q[:n], ok, want, err)
			}
			if ok {
				undo()
			}
			if string(q) != p {
				t.Fatalf("decodeInPlace(%q, block %d): text after %v %q", p, block, ok, q)
			}
		}
	})
}

// isBase64Text reports whether s is only characters of the base64 alphabet.
func isBase64Text(s string) bool {
	for i := range len(s) {
		if !isBase64Char(s[i]) {
			return false
		}
	}
	return true
}
