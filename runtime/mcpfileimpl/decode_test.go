package mcpfileimpl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/internal/testfiles"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	asmbase64 "github.com/segmentio/asm/base64"
)

// sepPNG is SEP-2356's 1×1 PNG: 70 bytes, a valid signature and IHDR, a bad
// IDAT checksum.
const sepPNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="

func TestDecodeForms(t *testing.T) {
	tests := []struct {
		name, uri string
		wantType  string
		wantData  string
		wantParam map[string]string
	}{
		{"percent", "data:text/plain,hello%20world", "text/plain", "hello world", nil},
		{"base64", "data:text/plain;base64,SGVsbG8gd29ybGQh", "text/plain", "Hello world!", nil},
		{"base64 one pad", "data:text/plain;base64,SGVsbG8gd29ybGQ=", "text/plain", "Hello world", nil},
		{"base64 unpadded 3", "data:text/plain;base64,SGVsbG8gd29ybGQ", "text/plain", "Hello world", nil},
		{"base64 unpadded 2", "data:text/plain;base64,SGVsbG8gd29ybA", "text/plain", "Hello worl", nil},
		{"base64 CRLF line breaks", "data:text/plain;base64,SGVs\r\nbG8g\nd29y\rbGQh", "text/plain", "Hello world!", nil},
		{"base64 line break in padding", "data:text/plain;base64,SGVsbG8gd29ybGQ=\n", "text/plain", "Hello world", nil},
		{"empty base64", "data:text/plain;base64,", "text/plain", "", nil},
		{"empty percent", "data:,", "text/plain", "", nil},
		{"no media type", "data:,A%20brief%20note", "text/plain", "A brief note", nil},
		{"only charset", "data:;charset=utf-8,%E2%9C%93", "text/plain", "✓", map[string]string{"charset": "utf-8"}},
		{"no media type base64", "data:;base64,SGk=", "text/plain", "Hi", nil},
		{"case-insensitive scheme and marker", "DATA:Text/Plain;BASE64,SGk=", "text/plain", "Hi", nil},
		{"params", "data:text/plain;charset=UTF-8;format=flowed,hi", "text/plain", "hi", map[string]string{"charset": "UTF-8", "format": "flowed"}},
		{"param name case", "data:text/plain;Charset=utf-8,hi", "text/plain", "hi", map[string]string{"charset": "utf-8"}},
		{"literal bytes", "data:text/plain,a b+c/d?e=f", "text/plain", "a b+c/d?e=f", nil},
		{"utf8 literal", "data:text/plain;charset=utf-8,héllo", "text/plain", "héllo", map[string]string{"charset": "utf-8"}},
		{"lower-case hex", "data:text/plain,%e2%9c%93", "text/plain", "✓", nil},
		{"octet-stream", "data:application/octet-stream;base64,AAEC", "application/octet-stream", "\x00\x01\x02", nil},
		{"vendor type", "data:application/vnd.example+cbor;base64,AAEC", "application/vnd.example+cbor", "\x00\x01\x02", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := decodeURI("file", tt.uri, descriptor.File{})
			if err != nil {
				t.Fatalf("decodeURI(%q) error: %v", tt.uri, err)
			}
			if f.MediaType != tt.wantType || string(f.Bytes()) != tt.wantData {
				t.Errorf("decodeURI(%q) = %q %q, want %q %q", tt.uri, f.MediaType, f.Bytes(), tt.wantType, tt.wantData)
			}
			if !mapsEqual(f.Params, tt.wantParam) {
				t.Errorf("decodeURI(%q).Params = %v, want %v", tt.uri, f.Params, tt.wantParam)
			}
			if len(f.Bytes()) != cap(f.Bytes()) && !strings.Contains(tt.name, "line break") {
				t.Errorf("decodeURI(%q): cap(Bytes()) = %d, len %d: want one buffer of the decoded size", tt.uri, cap(f.Bytes()), len(f.Bytes()))
			}
			if err := validateURI("file", tt.uri, descriptor.File{}); err != nil {
				t.Errorf("validateURI(%q) = %v, want nil", tt.uri, err)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestDecodeSEPPNG(t *testing.T) {
	f, err := decodeURI("image", sepPNG, descriptor.File{Accept: []string{"image/png", "image/jpeg"}, MaxSize: 5242880})
	if err != nil {
		t.Fatal(err)
	}
	if f.MediaType != "image/png" || f.Size() != 70 || !bytes.HasPrefix(f.Bytes(), []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("decodeURI(sepPNG) = %s, want image/png of 70 bytes", f)
	}
	if f.Params != nil || f.Name != "" {
		t.Errorf("decodeURI(sepPNG) Params %v Name %q, want none", f.Params, f.Name)
	}
}

func wantRule(t *testing.T, call string, err error, rule runtime.Rule) *runtime.Error {
	t.Helper()
	var e *runtime.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s = %v (%T), want *runtime.Error with rule %s", call, err, err, rule)
	}
	if e.Rule != rule {
		t.Fatalf("%s: rule %s (%v), want %s", call, e.Rule, e, rule)
	}
	return e
}

// TestDecodeFileURIs: an uploaded file's URI becomes a reference where
// the field takes uploads, and an error naming the transfer mode where it
// does not; a data: URI is refused where only uploads are taken.
func TestDecodeFileURIs(t *testing.T) {
	inline := descriptor.File{TransferModes: []string{"inline"}}
	upload := descriptor.File{TransferModes: []string{"upload"}}
	both := descriptor.File{TransferModes: []string{"inline", "upload"}}
	const uri = "mcp-file://server/file_01HXYZ.k1.1776794400.drAfHvSAlmWtsoOvTYbGEw"
	for _, d := range []descriptor.File{{}, upload, both} {
		for _, u := range []string{uri, "MCP-FILE://server/x"} {
			f, err := decodeURI("document", u, d)
			if err != nil {
				t.Fatalf("decodeURI(%s) with transferModes %v: %v", u, d.TransferModes, err)
			}
			if _, err := f.Open(); err == nil || !strings.Contains(err.Error(), "not resolved") {
				t.Errorf("Open of an unresolved reference = %v, want an error saying it was not resolved", err)
			}
			tok, _ := json.Marshal(u)
			if _, err := decodeJSON("document", tok, d); err != nil {
				t.Errorf("decodeJSON(%s): %v", tok, err)
			}
		}
		// PHP's encoder escapes the slashes.
		if _, err := decodeJSON("document", []byte(`"mcp-file:\/\/server\/file_01HXYZ"`), d); err != nil {
			t.Errorf("decodeJSON of an escaped file URI: %v", err)
		}
		long := "mcp-file://server/" + strings.Repeat("a", 600)
		_, err := decodeURI("document", long, d)
		e := wantRule(t, "decodeURI(long file URI)", err, runtime.RuleFileURI)
		if want := "Argument 'document' is not a usable file URI: it is 618 bytes long, and the file URIs this server hands out are at most 512."; e.Error() != want {
			t.Errorf("got  %s\nwant %s", e, want)
		}
	}

	_, err := decodeURI("document", uri, inline)
	e := wantRule(t, "decodeURI(file URI) inline only", err, runtime.RuleTransferMode)
	if want := "Argument 'document' is an uploaded file's URI (mcp-file:), but it takes data: URIs only (transferModes: inline): send the file inline, as a data: URI."; e.Error() != want {
		t.Errorf("got  %s\nwant %s", e, want)
	}
	err = validateURI("document", uri, both)
	e = wantRule(t, "validateURI(file URI)", err, runtime.RuleTransferMode)
	if want := "Argument 'document' is an uploaded file's URI (mcp-file:), but the server keeps this argument as a data: URI string and takes no uploaded files: send the file inline, as a data: URI."; e.Error() != want {
		t.Errorf("got  %s\nwant %s", e, want)
	}

	const data = "data:text/plain;base64,SGk="
	_, err = decodeURI("document", data, upload)
	e = wantRule(t, "decodeURI(data URI) upload only", err, runtime.RuleTransferMode)
	if want := "Argument 'document' is a data: URI, but it takes uploaded files only (transferModes: upload): call files/authorizeUpload, upload the bytes, and send the mcp-file: URI it returns."; e.Error() != want {
		t.Errorf("got  %s\nwant %s", e, want)
	}
	for _, tok := range []string{`"` + data + `"`, `"data:text\/plain;base64,SGk="`} {
		_, err = decodeJSON("document", []byte(tok), upload)
		wantRule(t, "decodeJSON("+tok+") upload only", err, runtime.RuleTransferMode)
	}
	wantRule(t, "validateURI(data URI) upload only", validateURI("document", data, upload), runtime.RuleTransferMode)
	for _, d := range []descriptor.File{{}, inline, both} {
		if _, err := decodeURI("document", data, d); err != nil {
			t.Errorf("decodeURI(data URI) with transferModes %v: %v", d.TransferModes, err)
		}
	}
}

func TestDecodeSchemes(t *testing.T) {
	tests := []struct{ uri, want string }{
		{"https://example.com/cat.png", `Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.`},
		{"http://169.254.169.254/latest/meta-data/", `Argument 'image' is not a data: URI: received scheme "http:", only data: URIs are accepted.`},
		{"file:///etc/passwd", `Argument 'image' is not a data: URI: received scheme "file:", only data: URIs are accepted.`},
		{"FILE:///etc/passwd", `Argument 'image' is not a data: URI: received scheme "file:", only data: URIs are accepted.`},
		{"javascript:alert(1)", `Argument 'image' is not a data: URI: received scheme "javascript:", only data: URIs are accepted.`},
		{"/tmp/x.png", `Argument 'image' is not a data: URI: received a value without a scheme, only data: URIs are accepted.`},
		{"../../etc/passwd", `Argument 'image' is not a data: URI: received a value without a scheme, only data: URIs are accepted.`},
		{"x.png", `Argument 'image' is not a data: URI: received a value without a scheme, only data: URIs are accepted.`},
		{"iVBORw0KGgoAAAANSUhEUg==", `Argument 'image' is not a data: URI: received a value without a scheme, only data: URIs are accepted.`},
		{"", `Argument 'image' is not a data: URI: received an empty string, only data: URIs are accepted.`},
		{"dat:image/png;base64,AAAA", `Argument 'image' is not a data: URI: received scheme "dat:", only data: URIs are accepted.`},
		{"datax:image/png;base64,AAAA", `Argument 'image' is not a data: URI: received scheme "datax:", only data: URIs are accepted.`},
		{strings.Repeat("a", 200) + ":x", `Argument 'image' is not a data: URI: received scheme "` + strings.Repeat("a", 64) + `…:", only data: URIs are accepted.`},
	}
	for _, tt := range tests {
		_, err := decodeURI("image", tt.uri, descriptor.File{})
		e := wantRule(t, "decodeURI("+tt.uri+")", err, runtime.RuleScheme)
		if e.Error() != tt.want {
			t.Errorf("decodeURI(%q) error\n got %s\nwant %s", tt.uri, e, tt.want)
		}
		if err := validateURI("image", tt.uri, descriptor.File{}); err == nil || err.Error() != tt.want {
			t.Errorf("validateURI(%q) = %v, want %s", tt.uri, err, tt.want)
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	long := "data:text/plain;x=" + strings.Repeat("a", 3000) + ",hi"
	tests := []struct{ uri, reason string }{
		{"data:image/png;base64", "there is no comma before the data"},
		{"data:", "there is no comma before the data"},
		{"data:" + strings.Repeat("A", 5000), "the media type and parameters are longer than 2048 bytes, or there is no comma"},
		{long, "the media type and parameters are longer than 2048 bytes, or there is no comma"},
		{" data:text/plain,hi", "it has leading whitespace"},
		{"data:image/png;base64,iVBOR!0KGgo=", "the data is not valid base64 (at data offset 5)"},
		{"data:image/png;base64,iVBORw0KG", "the data is not valid base64"},
		{"data:image/png;base64,iVB=Rw0K", "the data is not valid base64 (at data offset 4)"},
		{"data:image/png;base64,iVBO Rw0", "the data is not valid base64 (at data offset 4)"},
		{"data:image/png;base64,iVBO\tRw0", "the data is not valid base64 (at data offset 4)"},
		{"data:image/png;base64,iVBO Rw0K", "the data is not valid base64"},
		{"data:image/png;base64,iVBO%2BRw0", "the data is not valid base64 (at data offset 4)"},
		{"data:image/png;base64,iVBO-_w0", "the data is not valid base64 (at data offset 4)"},
		{"data:image/png;base64,====", "the data is not valid base64 (at data offset 0)"},
		{"data:image/png;base64,AAAA=AAA", "the data is not valid base64 (at data offset 4)"},
		{"data:text/plain,100%", "the data has an invalid %-escape (at data offset 3)"},
		{"data:text/plain,100%2", "the data has an invalid %-escape (at data offset 3)"},
		{"data:text/plain,%", "the data has an invalid %-escape"},
		{"data:text/plain,a%zzb", "the data has an invalid %-escape (at data offset 1)"},
		{"data:text/plain,a%%41", "the data has an invalid %-escape (at data offset 1)"},
		{"data:text/plain,a\nb", "the data has a control character that must be %-escaped (at data offset 1)"},
		{"data:text/plain,a\x00b", "the data has a control character that must be %-escaped (at data offset 1)"},
		{"data:image/png;base64;charset=utf-8,AAAA", `";base64" must come last, right before the comma`},
		{"data:base64,AAAA", "the media type is not of the form type/subtype"},
		{"data:;base64;base64,AAAA", `";base64" must come last, right before the comma`},
		{"data:image,AAAA", "the media type is not of the form type/subtype"},
		{"data:image/,AAAA", "the media type is not of the form type/subtype"},
		{"data:/png,AAAA", "the media type is not of the form type/subtype"},
		{"data:image/pn g,AAAA", "the media type is not of the form type/subtype"},
		{"data:image/*;base64,AAAA", "the media type is not of the form type/subtype"},
		{"data:*/*;base64,AAAA", "the media type is not of the form type/subtype"},
		{"data:image/png/x,AAAA", "the media type is not of the form type/subtype"},
		{"data:image/pñg,AAAA", "the media type is not of the form type/subtype"},
		{"data:text/plain;charset,hi", "a media type parameter has no value"},
		{"data:text/plain;;charset=x,hi", "a media type parameter has no value"},
		{"data:text/plain;charset=,hi", "a media type parameter has an invalid value"},
		{`data:text/plain;charset="utf-8",hi`, "a media type parameter has an invalid value"},
		{"data:text/plain;charset=%ZZ,hi", "a media type parameter has an invalid value"},
		{"data:text/plain;charset=%FF,hi", "a media type parameter has an invalid value"},
		{"data:text/plain;charset=%0A,hi", "a media type parameter has an invalid value"},
		{"data:text/plain;=x,hi", "a media type parameter has an invalid name"},
		{"data:text/plain;charset=a;Charset=b,hi", "a media type parameter is repeated"},
		{"data:text/plain;name=a;name=b,hi", "a media type parameter is repeated"},
	}
	for _, tt := range tests {
		_, err := decodeURI("image", tt.uri, descriptor.File{NoSniff: true})
		e := wantRule(t, "decodeURI("+tt.uri+")", err, runtime.RuleURIForm)
		want := "Argument 'image' is not a valid data: URI: " + tt.reason + "; the form is data:[<mediatype>][;base64],<data>."
		if e.Error() != want {
			t.Errorf("decodeURI(%q) error\n got %s\nwant %s", tt.uri, e, want)
		}
		if err := validateURI("image", tt.uri, descriptor.File{NoSniff: true}); err == nil {
			t.Errorf("validateURI(%q) = nil, want an error", tt.uri)
		} else if !strings.Contains(err.Error(), strings.SplitN(tt.reason, " (", 2)[0]) {
			t.Errorf("validateURI(%q) = %v, want reason %q", tt.uri, err, tt.reason)
		}
	}
}

func TestAccepts(t *testing.T) {
	tests := []struct {
		accept []string
		mt     string
		want   bool
	}{
		{nil, "image/png", true},
		{nil, "anything", true},
		{[]string{}, "application/x-whatever", true},
		{[]string{"image/png"}, "image/png", true},
		{[]string{"image/png"}, "IMAGE/PNG", true},
		{[]string{"Image/PNG"}, "image/png", true},
		{[]string{"image/png"}, "image/png;charset=utf-8", true},
		{[]string{"image/png"}, "image/png ; foo=bar", true},
		{[]string{"image/png;q=0.9"}, "image/png", true},
		{[]string{"image/png"}, "image/jpeg", false},
		{[]string{"image/png"}, "image/pngx", false},
		{[]string{"image/png"}, "image", false},
		{[]string{"image/png"}, "", false},
		{[]string{"image/png", "image/jpeg"}, "image/jpeg", true},
		{[]string{"image/*"}, "image/webp", true},
		{[]string{"image/*"}, "IMAGE/WEBP", true},
		{[]string{"image/*"}, "image/", false},
		{[]string{"image/*"}, "imagex/png", false},
		{[]string{"image/*"}, "video/mp4", false},
		{[]string{"image/*"}, "text/plain", false},
		{[]string{"*/*"}, "video/mp4", true},
		{[]string{"*/*"}, "garbage", true},
		{[]string{".pdf"}, "application/zip", true},
		{[]string{".pdf", ".docx"}, "text/plain", true},
		{[]string{".pdf", "application/pdf"}, "application/pdf", true},
		{[]string{".pdf", "application/pdf"}, "application/zip", false},
		{[]string{"application/pdf"}, "application/pdf+zip", false},
		{[]string{"text/plain"}, "text/plain; charset=US-ASCII", true},
	}
	for _, tt := range tests {
		if got := (descriptor.File{Accept: tt.accept}).Accepts(tt.mt); got != tt.want {
			t.Errorf("descriptor.File{Accept: %q}.Accepts(%q) = %v, want %v", tt.accept, tt.mt, got, tt.want)
		}
	}
}

func TestDecodeMediaType(t *testing.T) {
	d := descriptor.File{Accept: []string{"image/png", "image/jpeg", ".png"}}
	_, err := decodeURI("image", "data:text/plain,hello", d)
	e := wantRule(t, "Decode", err, runtime.RuleMediaType)
	want := `Argument 'image' has a media type that accept does not allow: received "text/plain", allowed are image/png, image/jpeg.`
	if e.Error() != want {
		t.Errorf("error\n got %s\nwant %s", e, want)
	}
	if e.MediaType != "text/plain" || len(e.Allowed) != 2 {
		t.Errorf("error fields MediaType %q Allowed %q", e.MediaType, e.Allowed)
	}
	// No media type: RFC 2397's text/plain is what accept sees.
	_, err = decodeURI("image", "data:,hello", d)
	wantRule(t, "decodeURI(data:,hello)", err, runtime.RuleMediaType)
	// Case and parameters do not matter.
	if _, err := decodeURI("image", "data:IMAGE/PNG;foo=bar;base64,"+sepPNG[len("data:image/png;base64,"):], d); err != nil {
		t.Errorf("decodeURI(IMAGE/PNG with a parameter) = %v", err)
	}
	// Wildcards.
	if _, err := decodeURI("photo", sepPNG, descriptor.File{Accept: []string{"image/*"}}); err != nil {
		t.Errorf("decodeURI(png, image/*) = %v", err)
	}
}

func TestDecodeMaxSize(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 100)
	b64 := "data:text/plain;base64," + base64.StdEncoding.EncodeToString(data)
	raw := "data:text/plain;base64," + base64.RawStdEncoding.EncodeToString(data)
	pct := "data:text/plain," + strings.Repeat("%78", 50) + strings.Repeat("x", 50)
	for _, uri := range []string{b64, raw, pct} {
		if f, err := decodeURI("doc", uri, descriptor.File{MaxSize: 100}); err != nil || f.Size() != 100 {
			t.Errorf("decodeURI(100 bytes, maxSize 100) = %d bytes, %v; want accepted", f.Size(), err)
		}
		if err := validateURI("doc", uri, descriptor.File{MaxSize: 100}); err != nil {
			t.Errorf("validateURI(100 bytes, maxSize 100) = %v", err)
		}
		_, err := decodeURI("doc", uri, descriptor.File{MaxSize: 99})
		e := wantRule(t, "decodeURI(100 bytes, maxSize 99)", err, runtime.RuleMaxSize)
		if want := "Argument 'doc' exceeds maxSize: received 100 bytes, limit is 99."; e.Error() != want {
			t.Errorf("error\n got %s\nwant %s", e, want)
		}
		if e.Received != 100 || e.Limit != 99 {
			t.Errorf("error Received %d Limit %d, want 100 99", e.Received, e.Limit)
		}
		if err := validateURI("doc", uri, descriptor.File{MaxSize: 99}); err == nil || err.Error() != e.Error() {
			t.Errorf("validateURI(100 bytes, maxSize 99) = %v, want %v", err, e)
		}
	}
	// Sizes of every padding case.
	for n := 0; n < 12; n++ {
		uri := datauri.Encode("application/octet-stream", make([]byte, n))
		if _, err := decodeURI("f", uri, descriptor.File{MaxSize: int64(max(n, 1))}); err != nil {
			t.Errorf("decodeURI(%d bytes, maxSize %d) = %v", n, max(n, 1), err)
		}
		if n > 1 {
			if _, err := decodeURI("f", uri, descriptor.File{MaxSize: int64(n - 1)}); err == nil {
				t.Errorf("decodeURI(%d bytes, maxSize %d) = nil, want maxSize", n, n-1)
			}
		}
	}
	// Line breaks do not count, padding is found behind them.
	for _, uri := range []string{"data:text/plain;base64,SGVs\nbG8=\r\n", "data:text/plain;base64,SGVsbG8\n=", "data:text/plain;base64,\nSGVsbG8"} {
		if f, err := decodeURI("doc", uri, descriptor.File{MaxSize: 5}); err != nil || string(f.Bytes()) != "Hello" {
			t.Errorf("decodeURI(%q, maxSize 5) = %q, %v; want Hello", uri, f.Bytes(), err)
		}
		if err := validateURI("doc", uri, descriptor.File{MaxSize: 5}); err != nil {
			t.Errorf("validateURI(%q, maxSize 5) = %v", uri, err)
		}
		if _, err := decodeURI("doc", uri, descriptor.File{MaxSize: 4}); err == nil {
			t.Errorf("decodeURI(%q, maxSize 4) = nil, want maxSize", uri)
		}
	}
	lb := "data:text/plain;base64," + strings.Repeat("eHh4\r\n", 33) + "eA=="
	if f, err := decodeURI("doc", lb, descriptor.File{MaxSize: 100}); err != nil || f.Size() != 100 {
		t.Errorf("decodeURI(wrapped 100 bytes, maxSize 100) = %d, %v", f.Size(), err)
	}
	if _, err := decodeURI("doc", lb, descriptor.File{MaxSize: 99}); err == nil {
		t.Errorf("decodeURI(wrapped 100 bytes, maxSize 99) = nil, want maxSize")
	}
	if err := validateURI("doc", lb, descriptor.File{MaxSize: 100}); err != nil {
		t.Errorf("validateURI(wrapped 100 bytes, maxSize 100) = %v", err)
	}
}

func TestDefaultMaxSize(t *testing.T) {
	if runtime.DefaultMaxSize != 32<<20 {
		t.Fatalf("runtime.DefaultMaxSize = %d, want 32 MiB", runtime.DefaultMaxSize)
	}
	defer func(v int64) { runtime.DefaultMaxSize = v }(runtime.DefaultMaxSize)
	runtime.DefaultMaxSize = 10
	_, err := decodeURI("f", datauri.Encode("application/octet-stream", make([]byte, 11)), descriptor.File{})
	e := wantRule(t, "decodeURI(11 bytes, default 10)", err, runtime.RuleMaxSize)
	if e.Limit != 10 {
		t.Errorf("Limit = %d, want 10", e.Limit)
	}
	if _, err := decodeURI("f", datauri.Encode("application/octet-stream", make([]byte, 10)), descriptor.File{}); err != nil {
		t.Errorf("decodeURI(10 bytes, default 10) = %v", err)
	}
	// An explicit MaxSize overrides the default, also upwards.
	if _, err := decodeURI("f", datauri.Encode("application/octet-stream", make([]byte, 11)), descriptor.File{MaxSize: 11}); err != nil {
		t.Errorf("decodeURI(11 bytes, maxSize 11, default 10) = %v", err)
	}
}

// TestMaxSizeBeforeAllocation checks that an oversized argument is rejected
// without allocating anything near its decoded size.
func TestMaxSizeBeforeAllocation(t *testing.T) {
	const n = 48 << 20 // 48 MiB of base64, 36 MiB decoded
	big := "data:application/octet-stream;base64," + strings.Repeat("QUFB", n/4)
	pct := "data:application/octet-stream," + strings.Repeat("%41", n/3)
	tok := []byte(`"` + big + `"`)
	esc := []byte(`"data:application\/octet-stream;base64,` + strings.Repeat(`QUF\u0042`, n/4) + `"`)
	escPct := []byte(`"data:text\/plain,` + strings.Repeat(`\u002541`, n/3) + `"`)
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"Decode base64", func() error { _, err := decodeURI("f", big, descriptor.File{MaxSize: 1 << 20}); return err }},
		{"Decode percent", func() error { _, err := decodeURI("f", pct, descriptor.File{MaxSize: 1 << 20}); return err }},
		{"Decode default", func() error { _, err := decodeURI("f", big, descriptor.File{}); return err }},
		{"DecodeJSON", func() error { _, err := decodeJSON("f", tok, descriptor.File{MaxSize: 1 << 20}); return err }},
		{"Validate", func() error { return validateURI("f", big, descriptor.File{MaxSize: 1 << 20}) }},
		{"DecodeJSON escaped", func() error { _, err := decodeJSON("f", esc, descriptor.File{MaxSize: 1 << 20}); return err }},
		{"DecodeJSON escaped percent", func() error { _, err := decodeJSON("f", escPct, descriptor.File{MaxSize: 1 << 20}); return err }},
		{"ValidateJSON escaped", func() error { _, err := validateJSON("f", esc, descriptor.File{MaxSize: 1 << 20}); return err }},
	} {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		err := c.f()
		goruntime.ReadMemStats(&after)
		if e := wantRule(t, c.name, err, runtime.RuleMaxSize); e.Received != n/4*3 && e.Received != n/3 {
			t.Errorf("%s: Received %d, want %d", c.name, e.Received, n/4*3)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("%s allocated %d bytes rejecting an oversized file, want almost none", c.name, got)
		}
	}
}

func TestContentCheck(t *testing.T) {
	pngBytes := testfiles.Image(t, "png")
	jpegBytes := testfiles.Image(t, "jpeg")
	gifBytes := testfiles.Image(t, "gif")
	webp := append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 24)...)
	// The comment of high bytes after the header is what PDF writers put
	// there (ISO 32000-1, 7.5.2): it makes the file binary, not text.
	pdf := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\ntrailer\n<< >>\n%%EOF\n")
	zipb := testfiles.Zip(t)
	text := []byte("hello, this is plain text\n")
	tests := []struct {
		mt       string
		data     []byte
		ok       bool
		detected string
	}{
		{"image/png", pngBytes, true, ""},
		{"image/apng", pngBytes, true, ""},
		{"image/png", text, false, "text/plain"},
		{"image/png", jpegBytes, false, "image/jpeg"},
		{"image/png", nil, false, "text/plain"},
		{"image/jpeg", jpegBytes, true, ""},
		{"image/jpg", jpegBytes, true, ""},
		{"image/jpeg", pngBytes, false, "image/png"},
		{"image/gif", gifBytes, true, ""},
		{"image/webp", webp, true, ""},
		{"image/webp", pngBytes, false, "image/png"},
		{"application/pdf", pdf, true, ""},
		{"application/pdf", text, false, "text/plain"},
		{"application/pdf", []byte{0, 1, 2, 3}, false, "application/octet-stream"},
		{"application/zip", zipb, true, ""},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", zipb, true, ""},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", text, false, "text/plain"},
		{"application/epub+zip", zipb, true, ""},
		{"text/plain", text, true, ""},
		{"text/plain", nil, true, ""},
		{"text/csv", []byte("a,b\n1,2\n"), true, ""},
		{"text/html", []byte("<!DOCTYPE html><p>hi"), true, ""},
		{"text/plain", []byte("<!DOCTYPE html><p>hi"), true, ""},
		{"application/json", []byte(`{"a":1}`), true, ""},
		{"application/ld+json", []byte(`{"a":1}`), true, ""},
		{"image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), true, ""},
		{"text/plain", pngBytes, false, "image/png"},
		{"text/plain", pdf, false, "application/pdf"},
		{"text/plain", []byte("abc\x00def"), false, "application/octet-stream"},
		{"application/json", zipb, false, "application/zip"},
		{"text/plain", []byte("\xfe\xff\x00h\x00i"), true, ""}, // UTF-16 with a BOM is text
		// Types the sniffer cannot recognise are not blocked.
		{"application/octet-stream", text, true, ""},
		{"application/octet-stream", pngBytes, true, ""},
		{"image/tiff", text, false, "text/plain"},
		{"image/avif", []byte{1, 2, 3}, false, "application/octet-stream"},
		{"video/mp4", text, false, "text/plain"},
		{"video/quicktime", text, true, ""},
		{"audio/mpeg", []byte{0xff, 0xfb, 0x90, 0x00}, true, ""},
		{"application/msword", text, true, ""},
	}
	for _, tt := range tests {
		uri := datauri.Encode(tt.mt, tt.data)
		_, err := decodeURI("file", uri, descriptor.File{})
		verr := validateURI("file", uri, descriptor.File{})
		if tt.ok {
			if err != nil || verr != nil {
				t.Errorf("decodeURI(%s, %.12q) = %v, Validate = %v; want accepted", tt.mt, tt.data, err, verr)
			}
			continue
		}
		e := wantRule(t, "decodeURI("+tt.mt+")", err, runtime.RuleContent)
		if e.Detected != tt.detected || e.MediaType != tt.mt {
			t.Errorf("decodeURI(%s, %.12q): MediaType %q Detected %q, want %q %q", tt.mt, tt.data, e.MediaType, e.Detected, tt.mt, tt.detected)
		}
		if verr == nil || verr.Error() != err.Error() {
			t.Errorf("validateURI(%s) = %v, want %v", tt.mt, verr, err)
		}
		if _, err := decodeURI("file", uri, descriptor.File{NoSniff: true}); err != nil {
			t.Errorf("decodeURI(%s, NoSniff) = %v, want accepted", tt.mt, err)
		}
	}
}

func TestContentErrorText(t *testing.T) {
	_, err := decodeURI("image", "data:image/png;base64,aGVsbG8gd29ybGQ=", descriptor.File{Accept: []string{"image/png"}})
	want := `Argument 'image' fails the content check: declared "image/png" but the bytes are text; send image/png data or declare the real media type.`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	_, err = decodeURI("notes", datauri.Encode("text/plain", []byte{0, 1, 2, 3}), descriptor.File{})
	want = `Argument 'notes' fails the content check: declared "text/plain" but the bytes are unrecognised binary data; send text or declare the real media type.`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	_, err = decodeURI("notes", datauri.Encode("text/plain", testfiles.Image(t, "png")), descriptor.File{})
	want = `Argument 'notes' fails the content check: declared "text/plain" but the bytes are image/png; send text or declare the real media type.`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestErrorTexts(t *testing.T) {
	tests := []struct {
		err  *runtime.Error
		want string
	}{
		{&runtime.Error{Arg: "image", Rule: runtime.RuleMaxSize, Received: 15728640, Limit: 5242880},
			"Argument 'image' exceeds maxSize: received 15728640 bytes, limit is 5242880."},
		{&runtime.Error{Arg: "documents", Rule: runtime.RuleMaxFiles, Received: 5, Limit: 3},
			"Argument 'documents' exceeds maxFiles: received 5 files, limit is 3."},
		{&runtime.Error{Arg: "documents[1]", Rule: runtime.RuleMediaType, MediaType: "text/plain", Allowed: []string{"application/pdf"}},
			`Argument 'documents[1]' has a media type that accept does not allow: received "text/plain", allowed are application/pdf.`},
		{&runtime.Error{Arg: "x", Rule: runtime.RuleMediaType, MediaType: strings.Repeat("a", 100), Allowed: []string{"a/b"}},
			`Argument 'x' has a media type that accept does not allow: received "` + strings.Repeat("a", 64) + `…", allowed are a/b.`},
		{&runtime.Error{Arg: "x", Rule: runtime.Rule("other")}, `Argument 'x' breaks rule "other".`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error()\n got %s\nwant %s", got, tt.want)
		}
	}
}

func TestLegacyName(t *testing.T) {
	tests := []struct{ uri, name string }{
		{"data:application/pdf;name=Report%20%28v2%29%3B%20final.pdf;base64,JVBERi0xLjcK", "Report (v2); final.pdf"},
		{"data:text/plain;name=..%2F..%2Fetc%2Fpasswd,x", "passwd"},
		{"data:text/plain;name=C%3A%5CWindows%5Cwin.ini,x", "win.ini"},
		{"data:text/plain;name=..,x", ""},
		{"data:text/plain;name=a%E2%80%AEfdp.exe,x", "afdp.exe"},
		{"data:text/plain;NAME=notes.txt;charset=utf-8,x", "notes.txt"},
	}
	for _, tt := range tests {
		f, err := decodeURI("f", tt.uri, descriptor.File{})
		if err != nil {
			t.Errorf("decodeURI(%q) = %v", tt.uri, err)
			continue
		}
		if f.Name != tt.name {
			t.Errorf("decodeURI(%q).Name = %q, want %q", tt.uri, f.Name, tt.name)
		}
		if _, ok := f.Params["name"]; ok {
			t.Errorf("decodeURI(%q).Params has name: %v", tt.uri, f.Params)
		}
	}
}

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("é", 200) + ".pdf"
	tests := []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"Report (v2); final.pdf", "Report (v2); final.pdf"},
		{"../../etc/passwd", "passwd"},
		{`..\..\boot.ini`, "boot.ini"},
		{"/abs/path/x.png", "x.png"},
		{"dir/", ""},
		{"..", ""},
		{".", ""},
		{"...", ""},
		{"  spaced.txt  ", "spaced.txt"},
		{"trailing.", "trailing"},
		{".hidden", ".hidden"},
		{"a\x00b\nc\x7f.txt", "abc.txt"},
		{"a\u202egnp.exe", "agnp.exe"},
		{"bad\xffutf8.txt", "badutf8.txt"},
		{`con:stream?*.txt`, "con_stream__.txt"},
		{"", ""},
		{"日本語.txt", "日本語.txt"},
		{long, strings.Repeat("é", 125) + ".pdf"},
		{strings.Repeat("a", 300), strings.Repeat("a", 255)},
	}
	for _, tt := range tests {
		got := runtime.SanitizeName(tt.in)
		if got != tt.want {
			t.Errorf("runtime.SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > 255 || strings.ContainsAny(got, "/\\\x00") || got == ".." {
			t.Errorf("runtime.SanitizeName(%q) = %q breaks an invariant", tt.in, got)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	types := []string{"application/octet-stream", "image/png", "text/plain", "application/vnd.ms-excel", "x-custom/y.z+w"}
	for _, mt := range types {
		for n := range 70 {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*7 + n)
			}
			f, err := decodeURI("f", datauri.Encode(mt, data), descriptor.File{NoSniff: true})
			if err != nil {
				t.Fatalf("decodeURI(datauri.Encode(%s, %d bytes)) = %v", mt, n, err)
			}
			if f.MediaType != mt || !bytes.Equal(f.Bytes(), data) {
				t.Fatalf("decodeURI(datauri.Encode(%s, %x)) = %s %x", mt, data, f.MediaType, f.Bytes())
			}
		}
	}
	f, err := decodeURI("f", datauri.Encode("text/plain;charset=utf-8", []byte("hé")), descriptor.File{})
	if err != nil || f.MediaType != "text/plain" || f.Params["charset"] != "utf-8" || string(f.Bytes()) != "hé" {
		t.Errorf("round trip with a parameter = %v %v", f, err)
	}
	for _, bad := range []string{"", "image", "image/png,x", "image/png;base64", "a b/c"} {
		uri := datauri.Encode(bad, []byte("x"))
		if !strings.HasPrefix(uri, "data:application/octet-stream;base64,") {
			t.Errorf("datauri.Encode(%q) = %q, want application/octet-stream", bad, uri)
		}
	}
	if got := datauri.Encode("image/png", []byte("\x89PNG")); got != "data:image/png;base64,iVBORw==" {
		t.Errorf("Encode = %q", got)
	}
}

// TestJSONEscapes checks DecodeJSON on tokens that encoders escape.
func TestJSONEscapes(t *testing.T) {
	payload := base64.StdEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe, 0x3e, 0x3f, 0x01, 0x02, 0x03, 0x04})
	if !strings.ContainsAny(payload, "+/") {
		t.Fatalf("payload %q has no + or /", payload)
	}
	plain := `"data:application/octet-stream;base64,` + payload + `"`
	escaped := map[string]string{
		"slash":       strings.ReplaceAll(plain, "/", `\/`),
		"plus u":      strings.ReplaceAll(plain, "+", `\u002B`),
		"plus u lc":   strings.ReplaceAll(plain, "+", `\u002b`),
		"all letters": `"` + jsonEscapeAll(plain[1:len(plain)-1]) + `"`,
		"newline":     `"data:application/octet-stream;base64,` + payload[:4] + `\n` + payload[4:] + `"`,
		"plain":       plain,
	}
	for name, tok := range escaped {
		var s string
		if err := json.Unmarshal([]byte(tok), &s); err != nil {
			t.Fatalf("%s: bad test token %s: %v", name, tok, err)
		}
		want, err := decodeURI("f", s, descriptor.File{})
		if err != nil {
			t.Fatalf("%s: decodeURI(%q) = %v", name, s, err)
		}
		got, err := decodeJSON("f", []byte(tok), descriptor.File{})
		if err != nil {
			t.Errorf("%s: decodeJSON(%s) = %v", name, tok, err)
			continue
		}
		if got.MediaType != want.MediaType || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: decodeJSON(%s) = %s %x, want %x", name, tok, got, got.Bytes(), want.Bytes())
		}
		u, err := validateJSON("f", []byte(tok), descriptor.File{})
		if err != nil || u != s {
			t.Errorf("%s: validateJSON(%s) = %q, %v; want %q", name, tok, u, err, s)
		}
	}
	// The file never aliases the token.
	tok := []byte(plain)
	f0, err := decodeJSON("f", tok, descriptor.File{})
	if err != nil {
		t.Fatal(err)
	}
	before := string(f0.Bytes())
	for i := range tok {
		tok[i] = 'A'
	}
	if string(f0.Bytes()) != before {
		t.Errorf("DecodeJSON's bytes alias the token")
	}
	// Percent-encoding with an escaped '%'.
	f, err := decodeJSON("f", []byte(`"data:text\/plain,hello\u002520world"`), descriptor.File{})
	if err != nil || string(f.Bytes()) != "hello world" {
		t.Errorf(`decodeJSON(\u0025) = %q, %v`, f.Bytes(), err)
	}
	// Non-ASCII text and a JSON escape of it decode alike.
	for _, tok := range []string{`"data:text/plain;charset=utf-8,h\u00e9"`, `"data:text/plain;charset=utf-8,hé"`} {
		f, err := decodeJSON("f", []byte(tok), descriptor.File{})
		if err != nil || string(f.Bytes()) != "hé" {
			t.Errorf("decodeJSON(%s) = %q, %v", tok, f.Bytes(), err)
		}
	}
}

func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(`\u00`)
		b.WriteString("0123456789abcdef"[r>>4 : r>>4+1])
		b.WriteString("0123456789abcdef"[r&15 : r&15+1])
	}
	return b.String()
}

// TestJSONTokenErrors checks that malformed tokens give encoding/json's own
// errors and that wrong kinds of values give a clear *runtime.Error.
func TestJSONTokenErrors(t *testing.T) {
	for _, tok := range []string{
		`"data:text/plain,a\x"`,
		`"data:text/plain,a` + "\n" + `b"`,
		`"data:text/plain,a` + "\t" + `b"`,
		`"data:text/plain,a`,
		`"data:text/plain,a\u12"`,
		`"data:text/plain,a\'"`,
		`"data:text/plain,"a"`,
		`"`,
	} {
		_, err := decodeJSON("f", []byte(tok), descriptor.File{})
		var s string
		jerr := json.Unmarshal([]byte(tok), &s)
		if jerr == nil {
			t.Fatalf("test token %q is valid JSON", tok)
		}
		if err == nil || err.Error() != jerr.Error() {
			t.Errorf("decodeJSON(%q) = %v, want encoding/json's %v", tok, err, jerr)
		}
		if _, err := validateJSON("f", []byte(tok), descriptor.File{}); err == nil || err.Error() != jerr.Error() {
			t.Errorf("validateJSON(%q) = %v, want %v", tok, err, jerr)
		}
	}
	for tok, kind := range map[string]string{`42`: "a number", `null`: "null", `{}`: "an object", `[]`: "an array", `true`: "a boolean", ``: "nothing"} {
		_, err := decodeJSON("image", []byte(tok), descriptor.File{})
		e := wantRule(t, "decodeJSON("+tok+")", err, runtime.RuleType)
		want := "Argument 'image' has the wrong JSON type: received " + kind + ", want a data: URI string."
		if e.Error() != want {
			t.Errorf("decodeJSON(%s) error\n got %s\nwant %s", tok, e, want)
		}
	}
	// Lone surrogates become U+FFFD, as in encoding/json.
	for _, tok := range []string{`"data:text/plain;charset=utf-8,a\ud800b"`, `"data:text/plain;charset=utf-8,a\udc00\u0041"`, "\"data:text/plain;charset=utf-8,a\xffb\""} {
		var s string
		if err := json.Unmarshal([]byte(tok), &s); err != nil {
			t.Fatal(err)
		}
		got, err := validateJSON("f", []byte(tok), descriptor.File{})
		if err != nil || got != s {
			t.Errorf("validateJSON(%q) = %q, %v; want %q", tok, got, err, s)
		}
		f, err := decodeJSON("f", []byte(tok), descriptor.File{})
		want, _ := decodeURI("f", s, descriptor.File{})
		if err != nil || !bytes.Equal(f.Bytes(), want.Bytes()) {
			t.Errorf("decodeJSON(%q) = %q, %v; want %q", tok, f.Bytes(), err, want.Bytes())
		}
	}
}

// TestBase64NoOverrun checks the property the exact-size buffer relies on:
// the SIMD decoder never writes past the decoded size, for any length and
// padding, with '=' and invalid bytes in every position of the tail.
func TestBase64NoOverrun(t *testing.T) {
	for n := 40; n < 140; n++ {
		for _, tail := range []string{"", "=", "==", "A=", "A==", "!", "AAA=AAAA"} {
			p := []byte(strings.Repeat("QUJD", n/4) + strings.Repeat("Q", n%4) + tail)
			size, raw, ok := datauri.Base64Size(p, false)
			if !ok {
				continue
			}
			guard := make([]byte, size+64)
			for i := range guard {
				guard[i] = 0xAA
			}
			enc := asmbase64.StdEncoding
			if raw {
				enc = asmbase64.RawStdEncoding
			}
			enc.Decode(guard[:size:size], p)
			for i := size; i < int64(len(guard)); i++ {
				if guard[i] != 0xAA {
					t.Fatalf("decoding %d bytes (raw %v, %q tail) wrote past the decoded size %d at %d", len(p), raw, tail, size, i)
				}
			}
		}
	}
}

// TestEscapedLineBreaks checks that escaped line breaks in a base64 payload
// cost no allocation of their size.
func TestEscapedLineBreaks(t *testing.T) {
	tok := []byte(`"data:;base64,SGVs` + strings.Repeat(`\r\n`, 1<<20) + `bG8="`)
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	f, err := decodeJSON("f", tok, descriptor.File{MaxSize: 5})
	goruntime.ReadMemStats(&after)
	if err != nil || string(f.Bytes()) != "Hello" {
		t.Fatalf("DecodeJSON = %q, %v", f.Bytes(), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<10 {
		t.Errorf("DecodeJSON allocated %d bytes for a 5-byte file", got)
	}
}

// TestValidateChunks checks Validate's chunked base64 path against Decode
// around the chunk boundaries.
func TestValidateChunks(t *testing.T) {
	for _, n := range []int{4093, 4094, 4095, 4096, 4097, 8191, 8192, 8193, 12289} {
		data := make([]byte, n*3/4)
		for i := range data {
			data[i] = byte(i)
		}
		good := base64.StdEncoding.EncodeToString(data)
		cases := []string{good, strings.TrimRight(good, "=")}
		if len(good) > 4100 {
			cases = append(cases, good[:4096]+"="+good[4097:], good[:4095]+"="+good[4096:], good[:4098]+"!"+good[4099:], good[:4096]+"===="+good[4100:])
		}
		for _, p := range cases {
			uri := "data:application/octet-stream;base64," + p
			_, derr := decodeURI("f", uri, descriptor.File{})
			verr := validateURI("f", uri, descriptor.File{})
			if (derr == nil) != (verr == nil) || (derr != nil && derr.Error() != verr.Error()) {
				t.Errorf("len %d: Decode = %v, Validate = %v", len(p), derr, verr)
			}
		}
	}
}

// TestEscapedMatchesDecode escapes URIs at random places, including around
// the 2048-byte header bound, and checks that DecodeJSON and ValidateJSON
// agree with encoding/json followed by Decode and Validate.
func TestEscapedMatchesDecode(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	uris := []string{
		sepPNG,
		"data:text/plain,hello%20world",
		"data:text/plain;base64,SGVs\nbG8=",
		"data:text/plain;p=" + long(2020) + ";base64,SGVsbG8=",
		"data:text/plain;p=" + long(2030) + ",hi",
		"data:text/plain;p=" + long(2033) + ",hi",
		"data:text/plain;p=" + long(2034) + ",hi",
		"data:text/plain;p=" + long(2036) + ",hi",
		"data:text/plain;p=" + long(2040) + ",hi",
		"data:" + long(3000),
		long(200) + ":x",
		"data:application/pdf;name=Report%20%28v2%29%3B%20final.pdf;base64,JVBERi0xLjcK",
		"data:image/png;base64," + base64.StdEncoding.EncodeToString(testfiles.Image(t, "png")),
		"data:image/png;base64," + base64.RawStdEncoding.EncodeToString(testfiles.Image(t, "png")),
		"data:image/png;base64,iVBORw0KGgo=AAAA",
		"data:text/plain,100%",
	}
	rng := rand.New(rand.NewSource(1))
	for _, uri := range uris {
		for trial := range 40 {
			var b strings.Builder
			b.WriteByte('"')
			for _, c := range []byte(uri) {
				switch r := rng.Intn(10); {
				case c == '\n':
					b.WriteString(`\n`)
				case r == 0 && trial > 0:
					fmt.Fprintf(&b, `\u%04x`, c)
				case r == 1 && c == '/':
					b.WriteString(`\/`)
				case r == 2 && trial%3 == 0 && strings.Contains(uri, ";base64,") && b.Len() > 30:
					b.WriteString(`\r\n`)
					b.WriteByte(c)
				default:
					b.WriteByte(c)
				}
			}
			b.WriteByte('"')
			tok := []byte(b.String())
			var s string
			if err := json.Unmarshal(tok, &s); err != nil {
				t.Fatalf("bad token %s: %v", tok, err)
			}
			for _, d := range []descriptor.File{{}, {MaxSize: 4}, {Accept: []string{"image/png"}}} {
				want, werr := decodeURI("f", s, d)
				got, err := decodeJSON("f", tok, d)
				if fmt.Sprint(err) != fmt.Sprint(werr) || !bytes.Equal(got.Bytes(), want.Bytes()) || got.MediaType != want.MediaType || got.Name != want.Name {
					t.Fatalf("decodeJSON(%.80s…) = %v, %v; Decode = %v, %v", tok, got, err, want, werr)
				}
				vs, verr := validateJSON("f", tok, d)
				wv := validateURI("f", s, d)
				if fmt.Sprint(verr) != fmt.Sprint(wv) || (verr == nil && vs != s) {
					t.Fatalf("validateJSON(%.80s…) = %v; Validate = %v", tok, verr, wv)
				}
			}
		}
	}
}
