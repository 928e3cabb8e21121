package transfer

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// fuzzDecode decodes b into generic values, numbers kept as written.
func fuzzDecode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// fuzzMembers returns v's members when v is a JSON object.
func fuzzMembers(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// fuzzWithout returns a copy of m without key.
func fuzzWithout(m map[string]any, key string) map[string]any {
	c := maps.Clone(m)
	delete(c, key)
	return c
}

// FuzzKeepFiles: keepFiles never panics, and when it rewrites a message
// the result is a valid initialize request whose
// capabilities.experimental.files is the input's capabilities.files, with
// every other member, at every level, as it was.
func FuzzKeepFiles(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"files":{"upload":true,"download":true,"transports":["https"]}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":{"x":{"y":1e400}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":{"files":{"download":false}}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":[]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"files":{"upload":true}}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"capabilities":{"files":{}}}}`,
		`{"method":"initialize","params":null}`,
		`[{"method":"initialize","params":{"capabilities":{"files":{}}}}]`,
		`{"method":"initialize","params":{"capabilities":{"files":"<&>\u2028"}},"id":1.0}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":nulL}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"files":{"download":true},"experimental":null}}}`,
		`not json`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		out, ok := keepFiles(msg)
		if !ok {
			return
		}
		in, err := fuzzDecode(msg)
		if err != nil {
			t.Fatalf("keepFiles(%q) rewrote input that is not JSON", msg)
		}
		got, err := fuzzDecode(out)
		if err != nil {
			t.Fatalf("keepFiles(%q) = %q, not JSON: %v", msg, out, err)
		}
		inTop, _ := fuzzMembers(in)
		outTop, ok := fuzzMembers(got)
		if !ok || outTop["method"] != "initialize" {
			t.Fatalf("keepFiles(%q) = %q, not an initialize request", msg, out)
		}
		if !reflect.DeepEqual(fuzzWithout(inTop, "params"), fuzzWithout(outTop, "params")) {
			t.Fatalf("keepFiles(%q) = %q: top-level members changed", msg, out)
		}
		inParams, _ := fuzzMembers(inTop["params"])
		outParams, ok := fuzzMembers(outTop["params"])
		if !ok || !reflect.DeepEqual(fuzzWithout(inParams, "capabilities"), fuzzWithout(outParams, "capabilities")) {
			t.Fatalf("keepFiles(%q) = %q: params changed", msg, out)
		}
		inCaps, _ := fuzzMembers(inParams["capabilities"])
		outCaps, ok := fuzzMembers(outParams["capabilities"])
		if !ok || !reflect.DeepEqual(fuzzWithout(inCaps, "experimental"), fuzzWithout(outCaps, "experimental")) {
			t.Fatalf("keepFiles(%q) = %q: capabilities changed", msg, out)
		}
		inExp, _ := fuzzMembers(inCaps["experimental"])
		outExp, ok := fuzzMembers(outCaps["experimental"])
		if !ok {
			t.Fatalf("keepFiles(%q) = %q: capabilities.experimental is not an object", msg, out)
		}
		if _, had := inExp["files"]; had {
			t.Fatalf("keepFiles(%q) = %q: overwrote experimental.files", msg, out)
		}
		if !reflect.DeepEqual(inExp, fuzzWithout(outExp, "files")) && !(inExp == nil && len(outExp) == 1) {
			t.Fatalf("keepFiles(%q) = %q: other experimental members changed", msg, out)
		}
		if !reflect.DeepEqual(outExp["files"], inCaps["files"]) {
			t.Fatalf("keepFiles(%q) = %q: experimental.files %v, want capabilities.files %v", msg, out, outExp["files"], inCaps["files"])
		}
	})
}

// FuzzContentDisposition: contentDisposition never panics; its value is
// printable ASCII with a filename parameter whose quoted string holds no
// quote or backslash, and for a valid UTF-8 name, filename* (or filename,
// when the name is that ASCII) decodes back to the name.
func FuzzContentDisposition(f *testing.F) {
	for _, s := range []string{"", "report.pdf", `Q3 "final".txt`, "résumé.pdf", "a/b\\c\r\nd.txt",
		"evil\u202efdp.exe", "bad\xffutf8", "100%.txt", "a;b=c", "\x7f", "日本語", "filename*=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		v := contentDisposition(name)
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				t.Fatalf("contentDisposition(%q) = %q: byte %#x at %d is not printable ASCII", name, v, v[i], i)
			}
		}
		if name == "" || !utf8.ValidString(name) {
			if v != "attachment" {
				t.Fatalf("contentDisposition(%q) = %q, want attachment", name, v)
			}
			return
		}
		rest, ok := strings.CutPrefix(v, `attachment; filename="`)
		if !ok {
			t.Fatalf("contentDisposition(%q) = %q: no filename parameter", name, v)
		}
		fallback, ext, ok := strings.Cut(rest, `"`)
		if !ok {
			t.Fatalf("contentDisposition(%q) = %q: unterminated filename", name, v)
		}
		if strings.ContainsAny(fallback, `\`) {
			t.Fatalf("contentDisposition(%q) = %q: backslash in filename", name, v)
		}
		if n := utf8.RuneCountInString(name); len(fallback) != n {
			t.Fatalf("contentDisposition(%q) = %q: fallback of %d characters, want %d", name, v, len(fallback), n)
		}
		if ext == "" {
			if fallback != name {
				t.Fatalf("contentDisposition(%q) = %q: no filename* and the fallback is not the name", name, v)
			}
			return
		}
		enc, ok := strings.CutPrefix(ext, "; filename*=UTF-8''")
		if !ok {
			t.Fatalf("contentDisposition(%q) = %q: want filename*=UTF-8'' after filename", name, v)
		}
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~%", c) >= 0) {
				t.Fatalf("contentDisposition(%q) = %q: %q is not an attr-char", name, v, c)
			}
		}
		dec, err := url.PathUnescape(enc)
		if err != nil || dec != name {
			t.Fatalf("contentDisposition(%q) = %q: filename* decodes to %q (%v)", name, v, dec, err)
		}
	})
}

// FuzzParseMediaType: when parseMediaType accepts a media type, its type
// and subtype are free of wildcards, the formatted form is at most
// token.MaxMediaTypeLen bytes of printable ASCII, and parsing that form
// again gives the same type, parameters and form.
func FuzzParseMediaType(f *testing.F) {
	for _, s := range []string{
		"application/pdf", "text/plain; charset=utf-8", "TEXT/Plain; Charset=UTF-8", "image/*", "*/*",
		"text/plain; a=\"b c\"", "text/plain; a=\"é\"", "text/plain; title*=utf-8''%C3%A9", "text",
		"text/plain; a*0=x; a*1=y", "application/vnd.a+json; q=\"\\\"\"", "text/plain;;", "x/y; a=" + strings.Repeat("b", 250),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, declared string) {
		mt, params, ok := parseMediaType(declared)
		if !ok {
			return
		}
		typ, sub, _ := strings.Cut(mt, "/")
		if typ == "" || sub == "" || strings.Contains(mt, "*") {
			t.Fatalf("parseMediaType(%q) = %q: want type/subtype without wildcards", declared, mt)
		}
		f := formatMediaType(mt, params)
		if len(f) > token.MaxMediaTypeLen {
			t.Fatalf("parseMediaType(%q) formats as %q, %d bytes (max %d)", declared, f, len(f), token.MaxMediaTypeLen)
		}
		for i := 0; i < len(f); i++ {
			if f[i] < 0x20 || f[i] > 0x7e {
				t.Fatalf("parseMediaType(%q) formats as %q: byte %#x is not printable ASCII", declared, f, f[i])
			}
		}
		if head, _, _ := strings.Cut(f, ";"); strings.Contains(head, "*") {
			t.Fatalf("parseMediaType(%q) formats as %q: wildcard", declared, f)
		}
		mt2, params2, ok := parseMediaType(f)
		if !ok {
			t.Fatalf("parseMediaType(%q) formats as %q, which parseMediaType refuses", declared, f)
		}
		if mt2 != mt || !reflect.DeepEqual(params2, params) {
			t.Fatalf("parseMediaType(%q) = %q %q, but its form %q parses as %q %q", declared, mt, params, f, mt2, params2)
		}
		if f2 := formatMediaType(mt2, params2); f2 != f {
			t.Fatalf("parseMediaType(%q) formats as %q, then %q", declared, f, f2)
		}
		if dt := downloadType(f); dt != f {
			t.Fatalf("downloadType(%q) = %q, want it unchanged", f, dt)
		}
	})
}
