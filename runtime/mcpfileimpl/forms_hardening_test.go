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
