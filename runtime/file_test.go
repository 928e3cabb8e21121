package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// secret is a payload whose bytes must never be printed.
const secret = "TOP-SECRET-PAYLOAD"

func secretFile(t *testing.T) File {
	t.Helper()
	f, err := Decode("doc", "data:text/plain;charset=utf-8;name=notes.txt;base64,"+b64(secret), Descriptor{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func b64(s string) string {
	return Encode("x/y", []byte(s))[len("data:x/y;base64,"):]
}

func TestFileRedactedFmt(t *testing.T) {
	f := secretFile(t)
	tests := []struct{ format, want string }{
		{"%v", "data:text/plain;base64,[18 bytes]"},
		{"%s", "data:text/plain;base64,[18 bytes]"},
		{"%q", `"data:text/plain;base64,[18 bytes]"`},
		{"%+v", "{MediaType:text/plain Params:map[charset:utf-8] Name:notes.txt Data:[18 bytes]}"},
		{"%#v", `runtime.File{MediaType:"text/plain", Params:map[string]string{"charset":"utf-8"}, Name:"notes.txt", Data:[]byte{/* 18 bytes */}}`},
		{"%x", "%!x(runtime.File=data:text/plain;base64,[18 bytes])"},
		{"%d", "%!d(runtime.File=data:text/plain;base64,[18 bytes])"},
	}
	for _, tt := range tests {
		for _, v := range []any{f, &f} {
			if got := fmt.Sprintf(tt.format, v); got != tt.want {
				t.Errorf("Sprintf(%q, %T) = %s, want %s", tt.format, v, got, tt.want)
			}
		}
	}
	// Inside other values, through exported fields.
	type input struct {
		Doc  File
		Docs []File
		Ptr  *File
	}
	in := input{Doc: f, Docs: []File{f, f}, Ptr: &f}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q"} {
		got := fmt.Sprintf(format, in) + fmt.Sprint(in) + fmt.Sprintln(f) + f.String()
		if strings.Contains(got, secret) || strings.Contains(got, b64(secret)) || strings.Contains(got, fmt.Sprintf("%x", secret)) {
			t.Errorf("Sprintf(%q) shows the data: %s", format, got)
		}
	}
}

func TestFileRedactedSlog(t *testing.T) {
	f := secretFile(t)
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("got", "file", f, "ptr", &f, "in", struct{ Doc File }{f})
	slog.New(slog.NewJSONHandler(&js, nil)).Info("got", "file", f, "ptr", &f, "in", struct{ Doc File }{f})
	for _, out := range []string{text.String(), js.String()} {
		if strings.Contains(out, secret) || strings.Contains(out, b64(secret)) {
			t.Errorf("slog shows the data: %s", out)
		}
	}
	if !strings.Contains(text.String(), "file.mimeType=text/plain file.name=notes.txt file.size=18") {
		t.Errorf("text handler output = %s", text.String())
	}
	if !strings.Contains(js.String(), `"file":{"mimeType":"text/plain","name":"notes.txt","size":18}`) {
		t.Errorf("JSON handler output = %s", js.String())
	}
}

func TestFileMarshalJSON(t *testing.T) {
	f := secretFile(t)
	b, err := json.Marshal(struct {
		Doc  File
		Ptr  *File
		Docs []File
	}{f, &f, []File{f}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Doc":{"mimeType":"text/plain","name":"notes.txt","size":18},"Ptr":{"mimeType":"text/plain","name":"notes.txt","size":18},"Docs":[{"mimeType":"text/plain","name":"notes.txt","size":18}]}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	// Wrapped into an error.
	err = fmt.Errorf("processing %v: %w", f, errors.New("boom"))
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the data: %v", err)
	}
}

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
