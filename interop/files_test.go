package interop

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"slices"
	"strings"
)

// pngFile returns a real w×h PNG.
func pngFile(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// pdfFile is the smallest thing that sniffs as a PDF.
var pdfFile = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

// textFile is a text file with characters that need percent-encoding.
const textFile = "Quarterly notes: 50% done, naïve café; see (v2) & [draft].\n"

func dataURI(mediaType string, data []byte) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// percentURI is the percent-encoded (not base64) form of RFC 2397.
func percentURI(mediaType, text string) string {
	return "data:" + mediaType + "," + url.PathEscape(text)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// accepts reports whether an x-mcp-file accept list admits mediaType
// (absent list: anything).
func accepts(accept []string, mediaType string) bool {
	if len(accept) == 0 {
		return true
	}
	major, _, _ := strings.Cut(mediaType, "/")
	return slices.ContainsFunc(accept, func(a string) bool {
		return strings.EqualFold(a, mediaType) || strings.EqualFold(a, major+"/*") || a == "*/*"
	})
}

// sample is a valid file for an accept list: its URI, its bytes, its type.
type sample struct {
	URI       string
	Data      []byte
	MediaType string
}

// validFiles returns a valid file of each kind the accept list admits, of
// the kinds these tests know: a base64 PNG, a percent-encoded text file, a
// base64 PDF.
func validFiles(accept []string) []sample {
	var s []sample
	if accepts(accept, "image/png") {
		p := pngFile(64, 48)
		s = append(s, sample{dataURI("image/png", p), p, "image/png"})
	}
	if accepts(accept, "text/plain") {
		s = append(s, sample{percentURI("text/plain", textFile), []byte(textFile), "text/plain"})
	}
	if accepts(accept, "application/pdf") {
		s = append(s, sample{dataURI("application/pdf", pdfFile), pdfFile, "application/pdf"})
	}
	return s
}

// headerFor returns a few leading bytes that sniff as the first type the accept list admits.
func headerFor(accept []string) (string, []byte) {
	switch {
	case accepts(accept, "image/png"):
		return "image/png", pngFile(1, 1)
	case accepts(accept, "application/pdf"):
		return "application/pdf", pdfFile
	default:
		return "text/plain", []byte(textFile)
	}
}

// tooBig returns a URI of an admitted type whose decoded size is maxSize+1.
func tooBig(accept []string, maxSize int64) string {
	mt, head := headerFor(accept)
	b := make([]byte, maxSize+1)
	copy(b, head)
	return dataURI(mt, b)
}

// wrongType returns a URI of a type the accept list does not admit, with
// content that matches the type it claims.
func wrongType(accept []string) (string, string) {
	for _, c := range []struct {
		mt   string
		data []byte
	}{
		{"application/zip", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00")},
		{"application/x-msdownload", []byte("MZ\x90\x00\x03\x00\x00\x00")},
		{"text/html", []byte("<html><body>hi</body></html>")},
	} {
		if !accepts(accept, c.mt) {
			return c.mt, dataURI(c.mt, c.data)
		}
	}
	return "", ""
}

// httpsURI is a remote reference the server must refuse without fetching
// (a loopback port nothing listens on, should it ever try).
const httpsURI = "https://127.0.0.1:9/cat.png"

// brokenURI returns a data: URI of an admitted type whose base64 is invalid.
func brokenURI(accept []string) string {
	mt, _ := headerFor(accept)
	return "data:" + mt + ";base64,iVBO%%%not*base64!!"
}
