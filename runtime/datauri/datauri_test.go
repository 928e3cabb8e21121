package datauri

import "testing"

// sepPNG is SEP-2356's 1×1 PNG: 70 bytes.
const sepPNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{sepPNG, "data:image/png;base64,[70 bytes]"},
		{"data:text/plain,hello%20world", "data:text/plain,[11 bytes]"},
		{"data:text/plain;name=secret.txt;base64,SGVsbG8=", "data:text/plain;base64,[5 bytes]"},
		{"data:,x", "data:text/plain,[1 bytes]"},
		{"data:image/png;base64,A", "data:image/png;base64,[1 bytes]"},
		{"data:nocomma-secret", "data:[19 bytes]"},
		{"data:bad type,secret", "data:[20 bytes]"},
		{"https://user:pass@example.com/x", "https:[31 bytes]"},
		{"/etc/passwd", "[11 bytes]"},
		{"", "[0 bytes]"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDecode checks the pure decoder on the SEP's examples and on errors.
func TestDecode(t *testing.T) {
	for _, tt := range []struct{ uri, mt, data, err string }{
		{"data:text/plain,hello%20world", "text/plain", "hello world", ""},
		{"data:text/plain;base64,SGVsbG8gd29ybGQh", "text/plain", "Hello world!", ""},
		{"data:text/plain;base64,SGVs\r\nbG8=", "text/plain", "Hello", ""},
		{"data:,x", "text/plain", "x", ""},
		{"https://example.com/a.png", "", "", `not a data: URI: scheme "https:"`},
		{"data:image/png;base64,%%%", "", "", "invalid data: URI: the data is not valid base64 (at data offset 0)"},
		{"data:image/png", "", "", "invalid data: URI: there is no comma before the data"},
		{"data:text/plain,a%zz", "", "", "invalid data: URI: the data has an invalid %-escape (at data offset 1)"},
	} {
		h, data, err := Decode(tt.uri)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Decode(%q) error = %v, want %q", tt.uri, err, tt.err)
			}
			continue
		}
		if err != nil || h.MediaType != tt.mt || string(data) != tt.data {
			t.Errorf("Decode(%q) = %q, %q, %v; want %q, %q", tt.uri, h.MediaType, data, err, tt.mt, tt.data)
		}
	}
	h, data, err := Decode(sepPNG)
	if err != nil || h.MediaType != "image/png" || len(data) != 70 || !h.Base64 {
		t.Errorf("Decode(SEP PNG) = %+v, %d bytes, %v", h, len(data), err)
	}
}

func TestRedactText(t *testing.T) {
	b64 := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
	for _, tt := range []struct{ in, want string }{
		{"plain words", "plain words"},
		{`type: data:image/png;base64,` + b64 + ` has type "string"`, `type: data:… has type "string"`},
		{`map[x:DATA:text/plain,secret%20words]`, `map[x:data:…]`},
		{`parsing time "` + b64 + `" as RFC3339`, `parsing time "…" as RFC3339`},
		{b64, "…"},
		{"short base64 QUJD stays", "short base64 QUJD stays"},
		{"mcpfileCodeTooOld_run_go_generate", "mcpfileCodeTooOld_run_go_generate"},
		{`["data:,x","data:,y"]`, `["data:…","data:…"]`},
	} {
		if got := RedactText(tt.in); got != tt.want {
			t.Errorf("RedactText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
