package mcpfileimpl

import (
	"encoding/base64"
	"runtime"
	"strconv"
	"strings"
	"testing"

	mcpruntime "github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// png8 is a real 8-byte-signature PNG of a few bytes, enough for the
// content check.
var png8 = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 40)...)

func fileData(name, mt, b64 string, extra string) []byte {
	return []byte(`{"fileName":` + quote(name) + `,"mimeType":` + quote(mt) + `,"base64":` + quote(b64) + extra + `}`)
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x202e:
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&15])
			b.WriteByte(hex[r>>8&15])
			b.WriteByte(hex[r>>4&15])
			b.WriteByte(hex[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var images = descriptor.File{Form: descriptor.FileData, Accept: []string{"image/png", "image/jpeg"}, MaxSize: 1 << 10}

func TestFileData(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString(png8)
	f, err := decodeForm("photo", fileData("../../etc/cat\u202egnp.exe", "image/PNG", enc, `,"size":`+itoa(len(png8))+`,"lastModified":"2026-04-20T18:30:00Z"`), images)
	if err != nil {
		t.Fatal(err)
	}
	if f.MediaType != "image/png" || string(f.Bytes()) != string(png8) || f.Name != mcpruntime.SanitizeName("../../etc/cat\u202egnp.exe") || strings.ContainsAny(f.Name, "/\u202e") {
		t.Errorf("file %+v", f)
	}
	// PHP's "\/" in the base64.
	if _, err := decodeForm("photo", []byte(strings.Replace(string(fileData("a.png", "image/png", enc, "")), "/", `\/`, -1)), images); err != nil {
		t.Errorf("escaped base64: %v", err)
	}

	tests := []struct {
		name string
		tok  string
		want string
	}{
		{"lying mimeType", string(fileData("a.png", "image/png", base64.StdEncoding.EncodeToString([]byte("just text, not an image")), "")),
			`Argument 'photo' fails the content check: declared "image/png" but the bytes are text`},
		{"type not accepted", string(fileData("a.pdf", "application/pdf", enc, "")),
			`Argument 'photo' has a media type that accept does not allow: received "application/pdf", allowed are image/png, image/jpeg.`},
		{"lying size", string(fileData("a.png", "image/png", enc, `,"size":999`)),
			`Argument 'photo' is not a valid FileData object: the member "size" says 999 bytes, but the base64 decodes to 56.`},
		{"oversize", string(fileData("a.png", "image/png", strings.Repeat("AAAA", 400), "")),
			`Argument 'photo' exceeds maxSize: received 1200 bytes, limit is 1024.`},
		{"bad base64", string(fileData("a.png", "image/png", "iVBO!!!", "")),
			`Argument 'photo' is not a valid FileData object: the member "base64": `},
		{"no base64", `{"fileName":"a.png","mimeType":"image/png"}`,
			`Argument 'photo' is not a valid FileData object: the member "base64" is missing.`},
		{"number name", `{"fileName":7,"mimeType":"image/png","base64":""}`,
			`Argument 'photo' is not a valid FileData object: the member "fileName" is a number, not a string.`},
		{"wildcard", string(fileData("a.png", "image/*", enc, "")),
			`Argument 'photo' is not a valid FileData object: the member "mimeType" is not a media type such as image/png.`},
		{"a string", `"data:image/png;base64,` + enc + `"`,
			`Argument 'photo' has the wrong JSON type: received a string, want a FileData object {fileName, mimeType, base64}.`},
	}
	for _, tt := range tests {
		_, err := decodeForm("photo", []byte(tt.tok), images)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "AAAA") {
			t.Errorf("%s: the error quotes the base64", tt.name)
		}
	}
}

// TestFileDataOversizeAllocatesNothing: maxSize is enforced from the
// base64's length, before anything of the decoded size is allocated.
func TestFileDataOversizeAllocatesNothing(t *testing.T) {
	tok := fileData("big.png", "image/png", strings.Repeat("AAAA", 4<<20), "") // 12 MiB decoded
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := decodeForm("photo", tok, images); err == nil || !strings.Contains(err.Error(), "exceeds maxSize") {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("10 rejections of a 16 MiB value allocated %d bytes", n)
	}
}

func TestOpenAIObject(t *testing.T) {
	d := descriptor.File{Form: descriptor.OpenAI, Accept: []string{"application/pdf"}, MaxSize: 1 << 20}
	f, err := decodeForm("doc", []byte(`{"download_url":"https://files.example.com/a?sig=x","file_id":"file_1","mime_type":"application/pdf","file_name":"a.pdf"}`), d)
	if err != nil || !hook.IsRef(f) {
		t.Fatalf("decodeForm = %+v, %v; want a reference to fetch", f, err)
	}
	if _, err := f.Open(); err == nil {
		t.Error("an unfetched file opens")
	}
	tests := []struct{ tok, want string }{
		{`"chat_upload"`, `Argument 'doc' is not a valid ChatGPT file object: received a string instead of {download_url, file_id}`},
		{`{"file_id":"file_1"}`, `Argument 'doc' is not a valid ChatGPT file object: the member "download_url" is missing.`},
		{`{"download_url":"https://x/","file_id":"f","mime_type":"text/html"}`, `Argument 'doc' has a media type that accept does not allow: received "text/html", allowed are application/pdf.`},
		{`42`, `Argument 'doc' has the wrong JSON type: received a number, want a file object {download_url, file_id}.`},
	}
	for _, tt := range tests {
		_, err := decodeForm("doc", []byte(tt.tok), d)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant %s", tt.tok, err, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// FuzzDecodeForm: no panic; every error is a *runtime.Error for the
// argument that quotes no base64 of the value; an accepted file is within
// the limit, of an accepted type, with a sanitized name.
func FuzzDecodeForm(f *testing.F) {
	enc := base64.StdEncoding.EncodeToString(png8)
	for _, s := range []string{
		string(fileData("a.png", "image/png", enc, `,"size":56`)),
		string(fileData("a.png", "image/png", enc, `,"size":"56"`)),
		string(fileData("../x\u202e.png", "image/png; charset=x", enc, "")),
		`{"fileName":"a","mimeType":"image/png","base64":"` + strings.Repeat("QUJD", 300) + `"}`,
		`{"download_url":"https://a/b","file_id":"f","mime_type":"image/png"}`,
		`"chat_upload"`, `{}`, `[]`, `{"base64":null}`, `{"fileName":"a","mimeType":"image/png","base64":"\u0041\u0041=="}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, tok []byte, openai bool) {
		d := images
		if openai {
			d.Form = descriptor.OpenAI
		}
		file, err := decodeForm("arg", tok, d)
		if err != nil {
			e, ok := err.(*mcpruntime.Error)
			if !ok || e.Arg != "arg" {
				t.Fatalf("error %v (%T), want *runtime.Error for arg", err, err)
			}
			if i := strings.Index(string(tok), `"base64":"`); i >= 0 {
				rest := string(tok[i+10:])
				if j := strings.IndexByte(rest, '"'); j >= 16 && strings.Contains(err.Error(), rest[:16]) {
					t.Fatalf("error %q quotes the base64", err)
				}
			}
			return
		}
		if openai {
			if !hook.IsRef(file) {
				t.Fatalf("openai object decoded to %+v, want a reference", file)
			}
			return
		}
		if file.Size() > d.Limit(mcpruntime.DefaultMaxSize) || !d.Accepts(file.MediaType) || file.Name != mcpruntime.SanitizeName(file.Name) {
			t.Fatalf("accepted %+v", file)
		}
	})
}
