package transfer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

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
