package imageinfo

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
)

// FuzzInspect feeds Inspect arbitrary bytes: it must not panic, and what it
// accepts must have dimensions within bounds and the right size.
func FuzzInspect(f *testing.F) {
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewGray(image.Rect(0, 0, 3, 2)))
	f.Add(buf.Bytes())
	f.Add([]byte("RIFF\x16\x00\x00\x00WEBPVP8L\x0a\x00\x00\x00\x2f\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\xff\xff\x00"))
	f.Add([]byte("RIFF\x16\x00\x00\x00WEBPVP8 \x0a\x00\x00\x00\x00\x00\x00\x9d\x01\x2a\x10\x00\x10\x00"))
	f.Add([]byte("GIF89a\x01\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Inspect(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if info.Width < 1 || info.Height < 1 || info.Width > MaxSide || info.Height > MaxSide || info.Size != int64(len(data)) || len(info.SHA256) != 64 {
			t.Fatalf("Inspect(%q) = %+v", data, info)
		}
	})
}

func TestWebP(t *testing.T) {
	for _, tt := range []struct {
		data string
		w, h int
	}{
		{"RIFF\x16\x00\x00\x00WEBPVP8L\x0a\x00\x00\x00\x2f\x3f\x00\x00\x00\x00\x00\x00\x00\x00", 64, 1},
		{"RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x7f\x02\x00\xdf\x01\x00", 640, 480},
		{"RIFF\x16\x00\x00\x00WEBPVP8 \x0a\x00\x00\x00\x00\x00\x00\x9d\x01\x2a\x20\x00\x10\x00", 32, 16},
	} {
		info, err := Inspect(strings.NewReader(tt.data), int64(len(tt.data)))
		if err != nil || info.Format != "webp" || info.Width != tt.w || info.Height != tt.h {
			t.Errorf("Inspect(%q) = %+v, %v; want webp %d×%d", tt.data, info, err, tt.w, tt.h)
		}
	}
	big := "RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\xff\xff\x00"
	if _, err := Inspect(strings.NewReader(big), int64(len(big))); err == nil {
		t.Error("a 65536×65536 WebP was accepted")
	}
}
