package mcpfileimpl

import (
	"encoding/base64"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// TestFileDataEscapedOversizeAllocates: a FileData base64 with JSON escapes
// and a decoded size over maxSize is refused from a count of its unescaped
// pieces, before anything of its size is copied.
func TestFileDataEscapedOversizeAllocates(t *testing.T) {
	d := descriptor.File{Form: descriptor.FileData, Accept: []string{"image/png"}, MaxSize: 1 << 20}
	b64 := `\/AAA` + strings.Repeat("AAAA", (7<<20)/4) // 7 MiB of base64, 5.25 MiB decoded, one escape
	tok := []byte(`{"fileName":"a.png","mimeType":"image/png","base64":"` + b64 + `"}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := decodeForm("photo", tok, d); err == nil || !strings.Contains(err.Error(), "exceeds maxSize") {
			t.Fatalf("decodeForm = %v, want a maxSize error", err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("10 rejections of an escaped 7 MiB base64 over a 1 MiB maxSize allocated %d MiB (want nothing of its size, as for a data: URI)", n>>20)
	}
}

// TestFileDataEscapedOversizeSize: the size an escaped base64's refusal
// reports is its decoded size.
func TestFileDataEscapedOversizeSize(t *testing.T) {
	b64 := `\/AAA` + strings.Repeat("AAAA", 3000) // 12004 base64 characters: 9003 bytes
	_, err := decodeForm("photo", []byte(`{"fileName":"a.png","mimeType":"image/png","base64":"`+b64+`"}`), images)
	if want := "Argument 'photo' exceeds maxSize: received 9003 bytes, limit is 1024."; err == nil || err.Error() != want {
		t.Errorf("decodeForm = %v\nwant %s", err, want)
	}
}

// TestFileDataEscapedKey: a member whose name is written with a JSON escape
// is found, as the validator and encoding/json find it.
func TestFileDataEscapedKey(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString(png8)
	_, err := decodeForm("photo", []byte(`{"fileName":"a.png","mimeType":"image/png","\u0062ase64":"`+enc+`"}`), images)
	if err != nil {
		t.Errorf("decodeForm of a FileData object whose key is escaped: %v", err)
	}
}

// TestFileDataSizeText: a size written as a number JSON Schema calls an
// integer (56.0) is that integer, and a size of another type is named as
// such.
func TestFileDataSizeText(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString(png8)
	for _, size := range []string{`"56"`, `56.0`} {
		_, err := decodeForm("photo", fileData("a.png", "image/png", enc, `,"size":`+size), images)
		if err != nil && (strings.Contains(err.Error(), "a a ") || strings.Contains(err.Error(), "says 56.0 bytes, but the base64 decodes to 56")) {
			t.Errorf("size %s: %v", size, err)
		}
	}
}

// TestFormMembersOnce: a FileData object with a member given twice (as
// written, or once escaped) or with a member it does not have is refused,
// naming the member and what the object has, never decoded with the last
// value or the extra member ignored. A ChatGPT file object's member given
// twice is refused too; members its host adds are not.
func TestFormMembersOnce(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString(png8)
	const members = "(its members are fileName, mimeType, base64, size and lastModified)."
	tests := []struct {
		name string
		tok  string
		want string
	}{
		{"base64 twice", string(fileData("a.png", "image/png", enc, `,"base64":"QUFBQQ=="`)),
			`Argument 'photo' is not a valid FileData object: the member "base64" is given twice (give each member once).`},
		{"mimeType twice, once escaped", string(fileData("a.png", "image/png", enc, `,"mime\u0054ype":"image/jpeg"`)),
			`Argument 'photo' is not a valid FileData object: the member "mimeType" is given twice (give each member once).`},
		{"size twice", string(fileData("a.png", "image/png", enc, `,"size":56,"size":56`)),
			`Argument 'photo' is not a valid FileData object: the member "size" is given twice (give each member once).`},
		{"null twice", `{"fileName":"a.png","mimeType":"image/png","base64":"` + enc + `","lastModified":null,"lastModified":null}`,
			`Argument 'photo' is not a valid FileData object: the member "lastModified" is given twice (give each member once).`},
		{"unknown member", string(fileData("a.png", "image/png", enc, `,"name":"b.png"`)),
			`Argument 'photo' is not a valid FileData object: it has a member named "name", which a FileData object does not have ` + members},
		{"unknown member, escaped", string(fileData("a.png", "image/png", enc, `,"\u0041":1`)),
			`Argument 'photo' is not a valid FileData object: it has a member named "A", which a FileData object does not have ` + members},
		{"unknown member, long", string(fileData("a.png", "image/png", enc, `,"`+strings.Repeat("k", 100)+`":1`)),
			`Argument 'photo' is not a valid FileData object: it has a member with a name of 100 bytes, which a FileData object does not have ` + members},
	}
	for _, tt := range tests {
		_, err := decodeForm("photo", []byte(tt.tok), images)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
	}

	doc := descriptor.File{Form: descriptor.OpenAI, Accept: []string{"application/pdf"}, MaxSize: 1 << 20}
	_, err := decodeForm("doc", []byte(`{"download_url":"https://files.example.com/a","file_id":"file_1","download_url":"https://evil.example.com/b"}`), doc)
	if want := `Argument 'doc' is not a valid ChatGPT file object: the member "download_url" is given twice (give each member once).`; err == nil || err.Error() != want {
		t.Errorf("download_url twice: %v\nwant %s", err, want)
	}
	if _, err := decodeForm("doc", []byte(`{"download_url":"https://files.example.com/a","file_id":"file_1","added_later":true}`), doc); err != nil {
		t.Errorf("ChatGPT file object with a member its host added: %v", err)
	}
}
