// Package imageinfo reads what the example servers report about an image:
// its format and dimensions from the header alone, and its digest. The bytes
// come from a client and are untrusted (OWASP ASVS 5.0 V5): nothing here
// decodes pixels, so a small file cannot expand into a huge bitmap, and
// dimensions beyond MaxSide are refused.
package imageinfo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // register the GIF header reader for image.DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"io"
)

// MaxSide is the largest width or height Inspect accepts.
const MaxSide = 16384

// Info describes an image.
type Info struct {
	Format string `json:"format" jsonschema:"the format found in the bytes: png, jpeg, gif or webp"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Size   int64  `json:"size" jsonschema:"decoded size in bytes"`
	SHA256 string `json:"sha256" jsonschema:"SHA-256 of the decoded bytes, hex"`
}

// webpHeaderLen is how many leading bytes webpConfig reads.
const webpHeaderLen = 30

// Inspect reads the header of the image of size bytes that r reads, such
// as a runtime.FileReader, and hashes all of it. It reads in pieces and
// never holds the whole image.
func Inspect(r io.ReaderAt, size int64) (Info, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size)); err != nil {
		return Info{}, fmt.Errorf("the image cannot be read: %v", err)
	}
	info := Info{Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}
	head := make([]byte, min(size, webpHeaderLen))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return Info{}, fmt.Errorf("the image cannot be read: %v", err)
	}
	var (
		cfg image.Config
		err error
	)
	if isWebP(head) {
		info.Format = "webp"
		cfg, err = webpConfig(head)
	} else {
		cfg, info.Format, err = image.DecodeConfig(io.NewSectionReader(r, 0, size))
	}
	if err != nil {
		return Info{}, fmt.Errorf("the image header cannot be read: %v", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MaxSide || cfg.Height > MaxSide {
		return Info{}, fmt.Errorf("the image is %d×%d pixels; each side must be between 1 and %d", cfg.Width, cfg.Height, MaxSide)
	}
	info.Width, info.Height = cfg.Width, cfg.Height
	return info, nil
}

func isWebP(b []byte) bool {
	return len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

// webpConfig reads the canvas size of a WebP file from its first chunk
// (VP8, VP8L or VP8X), as the WebP container specification lays it out.
func webpConfig(b []byte) (image.Config, error) {
	if len(b) < 30 {
		return image.Config{}, errors.New("webp: file too short")
	}
	chunk, data := string(b[12:16]), b[20:]
	switch chunk {
	case "VP8 ": // lossy: frame tag (3), start code 9d 01 2a, 14-bit width and height
		if data[3] != 0x9d || data[4] != 0x01 || data[5] != 0x2a {
			return image.Config{}, errors.New("webp: bad VP8 start code")
		}
		w := binary.LittleEndian.Uint16(data[6:8]) & 0x3fff
		h := binary.LittleEndian.Uint16(data[8:10]) & 0x3fff
		return image.Config{Width: int(w), Height: int(h)}, nil
	case "VP8L": // lossless: signature 0x2f, then 14 bits width-1, 14 bits height-1
		if data[0] != 0x2f {
			return image.Config{}, errors.New("webp: bad VP8L signature")
		}
		v := binary.LittleEndian.Uint32(data[1:5])
		return image.Config{Width: int(v&0x3fff) + 1, Height: int(v>>14&0x3fff) + 1}, nil
	case "VP8X": // extended: flags (1), reserved (3), 24-bit width-1 and height-1
		w := uint32(data[4]) | uint32(data[5])<<8 | uint32(data[6])<<16
		h := uint32(data[7]) | uint32(data[8])<<8 | uint32(data[9])<<16
		return image.Config{Width: int(w) + 1, Height: int(h) + 1}, nil
	}
	return image.Config{}, fmt.Errorf("webp: unknown first chunk %q", chunk)
}
