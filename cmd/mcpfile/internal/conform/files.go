package conform

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
)

// A kind is a file format the suite makes its own test files of, in code.
type kind struct {
	mediaType string
	// build returns a valid file of the format carrying n bytes of padding
	// where the format allows it, so that its length is len(build(0))+n.
	build func(n int) []byte
}

// kinds are the formats the suite makes, by media type.
var kinds = map[string]kind{
	"image/png":                {"image/png", pngFile},
	"image/jpeg":               {"image/jpeg", trailing(jpegFile)},
	"image/gif":                {"image/gif", trailing(gifFile)},
	"image/webp":               {"image/webp", trailing(webpFile)},
	"application/pdf":          {"application/pdf", pdfFile},
	"text/plain":               {"text/plain", textFile},
	"application/json":         {"application/json", jsonFile},
	"application/zip":          {"application/zip", zipFile},
	"application/octet-stream": {"application/octet-stream", binaryFile},
}

// kindFor returns the format the suite sends for an accept entry: the
// format of an exact type it can make, a PNG for image/*, text for text/*
// (declared as the entry's type when exact), a generic binary for */*.
func kindFor(entry string) (kind, bool) {
	t := strings.ToLower(entry)
	if k, ok := kinds[t]; ok {
		return k, true
	}
	switch {
	case t == "*/*":
		return kinds["application/octet-stream"], true
	case t == "image/*":
		return kinds["image/png"], true
	case t == "text/*":
		return kinds["text/plain"], true
	case t == "application/*":
		return kinds["application/pdf"], true
	case strings.HasPrefix(t, "text/") && !strings.Contains(t, "*"):
		return kind{t, textFile}, true
	}
	return kind{}, false
}

// sized returns a file of k of exactly size bytes, or false when the
// format's smallest file is larger.
func (k kind) sized(size int64) ([]byte, bool) {
	base := int64(len(k.build(0)))
	if size < base {
		return nil, false
	}
	// Padding moves offsets a format records (a PDF's xref), whose digits
	// may grow: adjust until the length is exact.
	n := size - base
	for range 8 {
		b := k.build(int(n))
		d := int64(len(b)) - size
		if d == 0 {
			return b, true
		}
		if n -= d; n < 0 {
			break
		}
	}
	return nil, false
}

// trailing pads a file by appending bytes after its end marker, which
// readers of these formats ignore.
func trailing(f func() []byte) func(int) []byte {
	return func(n int) []byte {
		return append(f(), bytes.Repeat([]byte{0}, n)...)
	}
}

func testImage() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	for x := range 32 {
		img.Set(x, x, color.NRGBA{R: 200, G: 40, B: 90, A: 255})
	}
	return img
}

// pngFile is a 32×32 PNG with a private ancillary chunk "cnFm" of n bytes
// before IEND, which decoders skip.
func pngFile(n int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		panic(err)
	}
	p := b.Bytes()
	iend := p[len(p)-12:]
	out := append([]byte(nil), p[:len(p)-12]...)
	var chunk bytes.Buffer
	binary.Write(&chunk, binary.BigEndian, uint32(n))
	chunk.WriteString("cnFm")
	chunk.Write(bytes.Repeat([]byte{'p'}, n))
	crc := crc32.ChecksumIEEE(chunk.Bytes()[4:])
	binary.Write(&chunk, binary.BigEndian, crc)
	out = append(out, chunk.Bytes()...)
	return append(out, iend...)
}

func jpegFile() []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func gifFile() []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, testImage(), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// webpFile is a 32×32 lossless WebP (RIFF, WEBP, one VP8L chunk) of one
// colour: no transforms, no colour cache, and five prefix codes of one
// symbol each, so that pixels take no bits (RFC 9649 §3 to §6).
func webpFile() []byte {
	var w bitWriter
	w.write(0x2f, 8)                                    // signature
	w.write(32-1, 14)                                   // width - 1
	w.write(32-1, 14)                                   // height - 1
	w.write(0, 1)                                       // alpha_is_used
	w.write(0, 3)                                       // version
	w.write(0, 1)                                       // no transform
	w.write(0, 1)                                       // no colour cache
	w.write(0, 1)                                       // no meta prefix codes
	for _, sym := range []uint32{40, 200, 90, 255, 0} { // green, red, blue, alpha, distance
		w.write(1, 1) // simple code
		w.write(0, 1) // one symbol
		w.write(1, 1) // of 8 bits
		w.write(sym, 8)
	}
	data := w.bytes()
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+len(data)+len(data)%2))
	b.WriteString("WEBPVP8L")
	binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

// bitWriter writes bits least significant first, as VP8L reads them.
type bitWriter struct {
	buf  []byte
	nbit uint
}

func (w *bitWriter) write(v uint32, n uint) {
	for i := range n {
		if w.nbit%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		w.buf[len(w.buf)-1] |= byte(v>>i&1) << (w.nbit % 8)
		w.nbit++
	}
}

func (w *bitWriter) bytes() []byte { return w.buf }

// pdfFile is a one-page PDF whose header comment carries n bytes of
// padding.
func pdfFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%")
	b.Write(bytes.Repeat([]byte{'p'}, n))
	b.WriteString("\n")
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		b.WriteString(s)
	}
	obj("1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n")
	obj("2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n")
	obj("3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 72 72]>> endobj\n")
	xref := b.Len()
	b.WriteString("xref\n0 4\n0000000000 65535 f \n")
	for _, o := range offs {
		b.WriteString(pad10(o) + " 00000 n \n")
	}
	b.WriteString("trailer <</Size 4 /Root 1 0 R>>\nstartxref\n" + itoa(xref) + "\n%%EOF\n")
	return b.Bytes()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func pad10(n int) string {
	s := itoa(n)
	return strings.Repeat("0", 10-len(s)) + s
}

// textFile is a few lines of text, padded with more text.
func textFile(n int) []byte {
	const line = "mcpfile conformance text file.\n"
	b := []byte("This is a plain text file the conformance suite made.\n")
	for n >= len(line) {
		b = append(b, line...)
		n -= len(line)
	}
	return append(b, bytes.Repeat([]byte{'.'}, n)...)
}

// jsonFile is a JSON object whose string member carries the padding.
func jsonFile(n int) []byte {
	return []byte(`{"made_by":"mcpfile conform","padding":"` + strings.Repeat("p", n) + `"}`)
}

// zipFile is a ZIP archive holding one stored entry of n bytes.
func zipFile(n int) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "conform.txt", Method: zip.Store})
	if err != nil {
		panic(err)
	}
	w.Write(append([]byte("mcpfile conform\n"), bytes.Repeat([]byte{'p'}, n)...))
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// binaryFile is bytes of no format, from a fixed generator.
func binaryFile(n int) []byte {
	b := make([]byte, 64+n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}
