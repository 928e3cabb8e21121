package conform

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"testing"
)

// TestFilesAreValid: each file the suite makes is what its type says,
// read by the standard library's decoders where it has one.
func TestFilesAreValid(t *testing.T) {
	for mt, k := range kinds {
		for _, pad := range []int{0, 1, 1000} {
			b := k.build(pad)
			switch mt {
			case "image/png", "image/jpeg", "image/gif":
				img, format, err := image.Decode(bytes.NewReader(b))
				if err != nil || "image/"+format != mt || img.Bounds().Dx() != 32 {
					t.Errorf("%s padded by %d: decodes as %q (%v)", mt, pad, format, err)
				}
			case "application/zip":
				if _, err := zip.NewReader(bytes.NewReader(b), int64(len(b))); err != nil {
					t.Errorf("%s padded by %d: %v", mt, pad, err)
				}
			case "application/json":
				if !json.Valid(b) {
					t.Errorf("%s padded by %d: not JSON", mt, pad)
				}
			case "image/webp", "application/pdf", "text/plain":
				if got := http.DetectContentType(b); got != mt && !(mt == "text/plain" && got == "text/plain; charset=utf-8") {
					t.Errorf("%s padded by %d: sniffed as %q", mt, pad, got)
				}
			case "application/octet-stream":
				if got := http.DetectContentType(b); got != mt {
					t.Errorf("the generic binary sniffs as %q, want no format", got)
				}
			}
		}
	}
}

// TestSizedIsExact: a file asked for n bytes has n bytes, for sizes that
// move a PDF's offsets across a digit.
func TestSizedIsExact(t *testing.T) {
	for mt, k := range kinds {
		base := int64(len(k.build(0)))
		for _, n := range []int64{base, base + 1, 999, 1000, 1001, 9999, 10000, 100_000, 2 << 20} {
			b, ok := k.sized(n)
			if n < base {
				if ok {
					t.Errorf("%s sized(%d) below its smallest %d: ok", mt, n, base)
				}
				continue
			}
			if !ok || int64(len(b)) != n {
				t.Errorf("%s sized(%d) = %d bytes, %v", mt, n, len(b), ok)
			}
		}
	}
}

// TestWebPHeader: the WebP's VP8L header says 32×32, as RFC 9649 lays it
// out.
func TestWebPHeader(t *testing.T) {
	b := webpFile()
	if string(b[:4]) != "RIFF" || string(b[8:16]) != "WEBPVP8L" || b[20] != 0x2f {
		t.Fatalf("not a VP8L WebP: % x", b)
	}
	bits := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
	if w, h := bits&0x3fff+1, bits>>14&0x3fff+1; w != 32 || h != 32 {
		t.Errorf("VP8L size %d×%d, want 32×32", w, h)
	}
	if size := int(b[4]) | int(b[5])<<8 | int(b[6])<<16 | int(b[7])<<24; size != len(b)-8 {
		t.Errorf("RIFF size %d, want %d", size, len(b)-8)
	}
}

// TestEchoes: a run of 16 characters of the payload or its base64 is
// found; shorter runs are not.
func TestEchoes(t *testing.T) {
	payload := []byte("The quick brown fox jumps over the lazy dog")
	for _, tt := range []struct {
		text string
		echo bool
	}{
		{"Argument 'f' exceeds maxSize.", false},
		{"began: The quick brown fox", true},
		{"began: VGhlIHF1aWNrIGJyb3du", true},
		{"began: The quick brown", false},
		{"VGhlIHF1aWNrIGJy", true},
		{"VGhlIHF1aWNrIGJ", false},
	} {
		if got := echoes(tt.text, payload) != ""; got != tt.echo {
			t.Errorf("echoes(%q) = %v, want %v", tt.text, got, tt.echo)
		}
	}
}
