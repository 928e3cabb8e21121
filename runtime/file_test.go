package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/datauri"
)

// secret is a payload whose bytes must never be printed.
const secret = "TOP-SECRET-PAYLOAD"

func secretFile(t *testing.T) File {
	t.Helper()
	return File{MediaType: "text/plain", Params: map[string]string{"charset": "utf-8"}, Name: "notes.txt", Data: []byte(secret)}
}

func b64(s string) string {
	return datauri.Encode("x/y", []byte(s))[len("data:x/y;base64,"):]
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

// TestFileFormatEscapes checks that a File holding control or format
// characters in its media type, parameters or name, as one built by hand
// may, prints them escaped under every verb that shows them.
func TestFileFormatEscapes(t *testing.T) {
	f := File{
		MediaType: "text/plain",
		Params:    map[string]string{"charset": "utf-8", "x": "a\u202eb", "y": "line\u2028two", "z": "a b] Name:forged", "c\u200b": "nul\x00"},
		Name:      "evil\u202efdp.exe",
		Data:      []byte("secret"),
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		got := fmt.Sprintf(format, f)
		if strings.ContainsAny(got, "\u202e\u2028\u200b\x00") {
			t.Errorf("Sprintf(%q) = %q holds a control or format character", format, got)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("Sprintf(%q) = %q shows the data", format, got)
		}
	}
	want := `{MediaType:text/plain Params:map[charset:utf-8 "c\u200b":"nul\x00" x:"a\u202eb" y:"line\u2028two" z:"a b] Name:forged"] Name:"evil\u202efdp.exe" Data:[6 bytes]}`
	if got := fmt.Sprintf("%+v", f); got != want {
		t.Errorf("Sprintf(%%+v)\n got %s\nwant %s", got, want)
	}
	// Plain values print as before.
	plain := File{MediaType: "text/plain", Params: map[string]string{"charset": "utf-8"}, Name: "Report (v2); final.pdf", Data: []byte("x")}
	if got, want := fmt.Sprintf("%+v", plain), "{MediaType:text/plain Params:map[charset:utf-8] Name:Report (v2); final.pdf Data:[1 bytes]}"; got != want {
		t.Errorf("Sprintf(%%+v) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("%+v", File{}), "{MediaType: Params:map[] Name: Data:[0 bytes]}"; got != want {
		t.Errorf("Sprintf(%%+v) = %s, want %s", got, want)
	}
}
