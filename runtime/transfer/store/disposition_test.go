package store

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestContentDisposition(t *testing.T) {
	tests := []struct{ name, want string }{
		{"", "attachment"},
		{"report.pdf", `attachment; filename="report.pdf"`},
		{"Q3 \"final\".txt", `attachment; filename="Q3 _final_.txt"; filename*=UTF-8''Q3%20%22final%22.txt`},
		{"résumé.pdf", `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`},
		{"a/b\\c\r\nd.txt", `attachment; filename="a_b_c__d.txt"; filename*=UTF-8''a%2Fb%5Cc%0D%0Ad.txt`},
		{"evil\u202efdp.exe", `attachment; filename="evil_fdp.exe"; filename*=UTF-8''evil%E2%80%AEfdp.exe`},
		{"bad\xffutf8", "attachment"},
	}
	for _, tt := range tests {
		if got := ContentDisposition(tt.name); got != tt.want {
			t.Errorf("ContentDisposition(%q)\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// FuzzContentDisposition: ContentDisposition never panics; its value is
// printable ASCII with a filename parameter whose quoted string holds no
// quote or backslash, and for a valid UTF-8 name, filename* (or filename,
// when the name is that ASCII) decodes back to the name.
func FuzzContentDisposition(f *testing.F) {
	for _, s := range []string{"", "report.pdf", `Q3 "final".txt`, "résumé.pdf", "a/b\\c\r\nd.txt",
		"evil\u202efdp.exe", "bad\xffutf8", "100%.txt", "a;b=c", "\x7f", "日本語", "filename*=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		v := ContentDisposition(name)
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				t.Fatalf("ContentDisposition(%q) = %q: byte %#x at %d is not printable ASCII", name, v, v[i], i)
			}
		}
		if name == "" || !utf8.ValidString(name) {
			if v != "attachment" {
				t.Fatalf("ContentDisposition(%q) = %q, want attachment", name, v)
			}
			return
		}
		rest, ok := strings.CutPrefix(v, `attachment; filename="`)
		if !ok {
			t.Fatalf("ContentDisposition(%q) = %q: no filename parameter", name, v)
		}
		fallback, ext, ok := strings.Cut(rest, `"`)
		if !ok {
			t.Fatalf("ContentDisposition(%q) = %q: unterminated filename", name, v)
		}
		if strings.ContainsAny(fallback, `\`) {
			t.Fatalf("ContentDisposition(%q) = %q: backslash in filename", name, v)
		}
		if n := utf8.RuneCountInString(name); len(fallback) != n {
			t.Fatalf("ContentDisposition(%q) = %q: fallback of %d characters, want %d", name, v, len(fallback), n)
		}
		if ext == "" {
			if fallback != name {
				t.Fatalf("ContentDisposition(%q) = %q: no filename* and the fallback is not the name", name, v)
			}
			return
		}
		enc, ok := strings.CutPrefix(ext, "; filename*=UTF-8''")
		if !ok {
			t.Fatalf("ContentDisposition(%q) = %q: want filename*=UTF-8'' after filename", name, v)
		}
		for i := 0; i < len(enc); i++ {
			c := enc[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~%", c) >= 0) {
				t.Fatalf("ContentDisposition(%q) = %q: %q is not an attr-char", name, v, c)
			}
		}
		dec, err := url.PathUnescape(enc)
		if err != nil || dec != name {
			t.Fatalf("ContentDisposition(%q) = %q: filename* decodes to %q (%v)", name, v, dec, err)
		}
	})
}
