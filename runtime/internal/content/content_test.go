package content

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpfile/mcpfile/internal/testfiles"
	"github.com/mcpfile/mcpfile/runtime/datauri"
)

// binaryTail is bytes no text has: NUL, other binary controls, bytes that
// are never UTF-8.
const binaryTail = "\x00\x01\x02\x03\xff\xfe\x10\x00\x00\x00\x7f\x80"

// cutRune returns text of n bytes or more in which a 2-byte character
// starts at byte at-1, so that a prefix of at bytes cuts it.
func cutRune(at, n int) []byte {
	b := bytes.Repeat([]byte("a"), at-1)
	b = append(b, "é"...)
	for len(b) < n {
		b = append(b, " and more text"...)
	}
	return b
}

// utf16Text encodes s as UTF-16 with a BOM.
func utf16Text(s string, bigEndian bool) []byte {
	b := []byte{0xff, 0xfe}
	if bigEndian {
		b = []byte{0xfe, 0xff}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

func gzipBytes(t testing.TB) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("hello"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func emptyZip(t testing.TB) []byte {
	var b bytes.Buffer
	if err := zip.NewWriter(&b).Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// riffLike is the start of a file in a RIFF-like container.
func riffLike(id, kind, chunk string) []byte {
	return append([]byte(id+"\x24\x00\x00\x00"+kind+chunk), make([]byte, 32)...)
}

func cat(parts ...string) []byte { return []byte(strings.Join(parts, "")) }

// TestContentSniff is the table of the content check: a declared media type,
// the bytes, and whether they pass; for those that fail, what the error says
// the bytes are. (The runtime's decoder runs the same cases on whole URIs.)
func TestContentSniff(t *testing.T) {
	pngBytes := testfiles.Image(t, "png")
	jpegBytes := testfiles.Image(t, "jpeg")
	pdfBin := "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << >> endobj\n"
	spool := strings.Repeat("X-Spool-Header: printed by lpd\r\n", 30) // 960 bytes
	const (
		text   = "text/plain"
		binary = "application/octet-stream"
	)
	tests := []struct {
		name     string
		mt       string
		data     []byte
		ok       bool
		detected string
	}{
		// Binary that net/http.DetectContentType took for text from its
		// first bytes.
		{"UTF-8 BOM then binary", "text/plain", cat("\xef\xbb\xbf", binaryTail), false, binary},
		{"UTF-8 BOM then a PNG", "text/plain", append([]byte("\xef\xbb\xbf"), pngBytes...), false, binary},
		{"UTF-16LE BOM then binary", "text/plain", cat("\xff\xfe", binaryTail), false, binary},
		{"UTF-16BE BOM then binary", "text/plain", cat("\xfe\xff", binaryTail), false, binary},
		{"<p> then binary", "text/html", cat("<p>", binaryTail), false, binary},
		{"<!-- then binary", "text/html", cat("<!-- ", binaryTail), false, binary},
		{"<?xml then binary", "application/xml", cat("<?xml", binaryTail), false, binary},
		{"<?xml then binary as SVG", "image/svg+xml", cat(`<?xml version="1.0"?>`, binaryTail), false, binary},
		{"spaces, <html> then binary", "text/html", cat("  \n<html>", binaryTail), false, binary},

		// Text that it took for binary from its first bytes.
		{"CSV that starts BM", "text/csv", []byte("BMI,weight\n22.5,70\n"), true, ""},
		{"text that starts OTTO", "text/plain", []byte("OTTO the cat\n"), true, ""},
		{"text that starts GIF89a", "text/plain", []byte("GIF89a was released in 1989.\n"), true, ""},
		{"text that starts wOFF", "text/plain", []byte("wOFF, said the dog\n"), true, ""},
		{"text that starts %PDF-1.7", "text/plain", []byte("%PDF-1.7 is the version we use\n"), true, ""},
		{"Markdown that starts PK", "text/markdown", []byte("PK\x03\x04 is not text"), false, "application/zip"},

		// PDF: the header anywhere in the first 1024 bytes.
		{"PDF", "application/pdf", []byte(pdfBin), true, ""},
		{"PDF after a newline", "application/pdf", cat("\n", pdfBin), true, ""},
		{"PDF after CR LF and spaces", "application/pdf", cat("\r\n \t", pdfBin), true, ""},
		{"PDF after a UTF-8 BOM", "application/pdf", cat("\xef\xbb\xbf", pdfBin), true, ""},
		{"PDF after a spooler header", "application/pdf", cat(spool, pdfBin), true, ""},
		{"PDF header ending at byte 1024", "application/pdf", cat(strings.Repeat(" ", 1019), pdfBin), true, ""},
		{"PDF header past byte 1024", "application/pdf", cat(strings.Repeat(" ", 1020), pdfBin), false, text},
		{"PDF as application/x-pdf", "application/x-pdf", []byte(pdfBin), true, ""},
		{"binary PDF as text", "text/plain", []byte(pdfBin), false, "application/pdf"},

		// ZIP: local header, empty archive, split archive.
		{"ZIP", "application/zip", testfiles.Zip(t), true, ""},
		{"empty ZIP", "application/zip", cat("PK\x05\x06", strings.Repeat("\x00", 18)), true, ""},
		{"empty ZIP from archive/zip", "application/zip", emptyZip(t), true, ""},
		{"split ZIP", "application/zip", cat("PK\x07\x08PK\x03\x04\x14\x00\x00\x00"), true, ""},
		{"empty ZIP as EPUB", "application/epub+zip", emptyZip(t), true, ""},
		{"ZIP as DOCX", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", testfiles.Zip(t), true, ""},
		{"text as ZIP", "application/zip", []byte("PKZIP is a program"), false, text},
		{"ZIP as JSON", "application/json", testfiles.Zip(t), false, "application/zip"},

		// The traps of the sniffer this check replaced.
		{"PNG as text/plain", "text/plain", pngBytes, false, "image/png"},
		{"UTF-16LE text with a BOM", "text/plain", utf16Text("naïve café, 日本語, 😀\n", false), true, ""},
		{"UTF-16BE text with a BOM", "text/csv", utf16Text("a,b\n1,2\n", true), true, ""},
		{"character cut at byte 512", "text/plain", cutRune(512, 600), true, ""},
		{"character cut at byte 1024 (SniffLen)", "text/plain", cutRune(SniffLen, 2000), true, ""},
		{"NUL in the middle of text", "text/plain", []byte("abc def\x00ghi jkl\n"), false, binary},
		{"invalid UTF-8 (Latin-1)", "text/plain", []byte("caf\xe9 au lait\n"), false, binary},
		{"invalid UTF-8 (overlong /)", "text/plain", []byte("a\xc0\xafb"), false, binary},
		{"invalid UTF-8 (surrogate)", "text/plain", []byte("a\xed\xa0\x80b"), false, binary},
		{"CSV BMI,weight as text/csv", "text/csv", []byte("BMI,weight\n22.5,70\n24.1,81\n"), true, ""},
		{"%PDF-1.7 as text/plain", "text/plain", []byte("%PDF-1.7\n"), true, ""},
		{`\n%PDF-1.4 as application/pdf`, "application/pdf", []byte("\n%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), true, ""},
		{"empty ZIP as application/zip", "application/zip", []byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), true, ""},
		{"<p> then binary as text/html", "text/html", cat("<p>", "\x00\x00\x00\x0dIHDR\x89"), false, binary},

		// The rest of the text rule.
		{"empty text", "text/plain", nil, true, ""},
		{"BOM only", "text/plain", []byte("\xef\xbb\xbf"), true, ""},
		{"text with a UTF-8 BOM", "application/json", []byte("\xef\xbb\xbf{\"a\":1}"), true, ""},
		{"text with ANSI colours (ESC)", "text/plain", []byte("\x1b[31mred\x1b[0m\r\n\f\tok"), true, ""},
		{"text with DEL and C1 NEL", "text/plain", []byte("a\x7fb\u0085c"), true, ""},
		{"text with a bell (0x07)", "text/plain", []byte("ding\x07\n"), false, binary},
		{"text with a vertical tab", "text/plain", []byte("a\vb"), false, binary},
		{"text with 0x1F", "text/plain", []byte("a\x1fb"), false, binary},
		{"text ending in a cut character", "text/plain", []byte("abc\xc3"), false, binary},
		{"UTF-16 with a lone high surrogate", "text/plain", []byte("\xff\xfea\x00\x3d\xd8b\x00"), false, binary},
		{"UTF-16 with a lone low surrogate", "text/plain", []byte("\xff\xfea\x00\x00\xdcb\x00"), false, binary},
		{"UTF-16 with a NUL", "text/plain", []byte("\xff\xfea\x00\x00\x00b\x00"), false, binary},
		{"UTF-16 of odd length", "text/plain", []byte("\xff\xfea\x00b"), false, binary},
		{"UTF-32LE (BOM then NUL)", "text/plain", []byte("\xff\xfe\x00\x00a\x00\x00\x00"), false, binary},
		{"UTF-16 without a BOM", "text/plain", []byte("a\x00b\x00"), false, binary},

		// Signatures, their variants and aliases.
		{"PNG", "image/png", pngBytes, true, ""},
		{"APNG", "image/apng", pngBytes, true, ""},
		{"JPEG as PNG", "image/png", jpegBytes, false, "image/jpeg"},
		{"text as PNG", "image/png", []byte("hello"), false, text},
		{"nothing as PNG", "image/png", nil, false, text},
		{"bitmap", "image/bmp", cat("BM\x36\x04\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00"), true, ""},
		{"CSV as a bitmap", "image/bmp", []byte("BMI,weight\n"), true, ""},
		{"icon", "image/x-icon", cat("\x00\x00\x01\x00\x01\x00\x10\x10"), true, ""},
		{"cursor", "image/vnd.microsoft.icon", cat("\x00\x00\x02\x00\x01\x00\x10\x10"), true, ""},
		{"gzip", "application/gzip", gzipBytes(t), true, ""},
		{"RAR 4", "application/vnd.rar", cat("Rar!\x1a\x07\x00\xcf\x90\x73\x00"), true, ""},
		{"RAR 5", "application/x-rar-compressed", cat("Rar!\x1a\x07\x01\x00\x33\x92\xb5\xe5"), true, ""},
		{"WAV", "audio/wav", riffLike("RIFF", "WAVE", "fmt "), true, ""},
		{"RF64 WAV", "audio/x-wav", riffLike("RF64", "WAVE", "ds64"), true, ""},
		{"AVI as WAV", "audio/wav", riffLike("RIFF", "AVI ", "LIST"), false, "video/avi"},
		{"AIFF", "audio/aiff", riffLike("FORM", "AIFF", "COMM"), true, ""},
		{"AIFF-C", "audio/x-aiff", riffLike("FORM", "AIFC", "FVER"), true, ""},
		{"WebP", "image/webp", riffLike("RIFF", "WEBP", "VP8L"), true, ""},
		{"RIFF of another kind as WebP", "image/webp", riffLike("RIFF", "WEBX", "VP8L"), false, binary},
		{"OpenType with CFF outlines", "font/otf", cat("OTTO\x00\x0a\x00\x80\x00\x03\x00\x20CFF "), true, ""},
		{"OpenType with TrueType outlines", "font/otf", cat("\x00\x01\x00\x00\x00\x0a\x00\x80\x00\x03\x00\x20glyf"), true, ""},
		{"EOT, version 2.1", "application/vnd.ms-fontobject", append(cat("\x00\x10\x00\x00\x00\x0c\x00\x00\x01\x00\x02\x00", strings.Repeat("\x00", 22), "LP"), make([]byte, 16)...), true, ""},
		{"WebM", "video/webm", cat("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm"), true, ""},

		// Types the check does not know are not blocked.
		{"text as octet-stream", "application/octet-stream", []byte("hello"), true, ""},
		{"TIFF, little-endian", "image/tiff", []byte("II*\x00\x08\x00\x00\x00"), true, ""},
		{"TIFF, big-endian", "image/tiff", []byte("MM\x00*\x00\x00\x00\x08"), true, ""},
		{"BigTIFF", "image/tiff", []byte("II+\x00\x08\x00\x00\x00"), true, ""},
		{"text as TIFF", "image/tiff", []byte("II, said the tiff"), false, "text/plain"},
		{"binary as TIFF", "image/tiff", []byte(binaryTail), false, "application/octet-stream"},
		{"MP4", "video/mp4", []byte("\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2"), true, ""},
		{"HEIC", "image/heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), true, ""},
		{"AVIF", "image/avif", []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1"), true, ""},
		{"M4A", "audio/mp4", []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00"), true, ""},
		{"PNG as MP4", "video/mp4", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), false, "image/png"},
	}
	for _, tt := range tests {
		prefix := tt.data[:min(len(tt.data), SniffLen)]
		e := checkContent("f", tt.mt, "", prefix)
		if (e == nil) != tt.ok {
			t.Errorf("%s: checkContent(%s, %.24q) = %v, want ok %v", tt.name, tt.mt, tt.data, e, tt.ok)
			continue
		}
		if e != nil && e.Detected != tt.detected {
			t.Errorf("%s: checkContent(%s) = %+v, want Detected %q", tt.name, tt.mt, *e, tt.detected)
		}
	}
}

// TestIsText checks the text rule itself, with and without a cut prefix.
func TestIsText(t *testing.T) {
	tests := []struct {
		in           string
		whole, asCut bool // isText(in, false), isText(in, true)
	}{
		{"", true, true},
		{"plain ASCII text\r\n", true, true},
		{"naïve café 日本語 😀", true, true},
		{"ends in a cut é\xc3", false, true},
		{"ends in a cut 😀\xf0\x9f\x98", false, true},
		{"ends in a cut 日\xe6\x97", false, true},
		{"a stray continuation byte at the end\x80", false, false},
		{"invalid at the end \xe2\x28", false, false},
		{"beyond U+10FFFF \xf4\x90", false, false},
		{"\xef\xbb\xbfBOM then text", true, true},
		{"\xef\xbb\xbf\x00", false, false},
		{"\xef\xbb", false, true}, // a cut BOM
		{"tab\tlf\nff\fcr\resc\x1b", true, true},
		{"nul\x00", false, false},
		{"soh\x01", false, false},
		{"bs\x08", false, false},
		{"so\x0e", false, false},
		{"sub\x1a", false, false},
		{"us\x1f", false, false},
		{"\xff\xfeh\x00i\x00", true, true},
		{"\xfe\xff\x00h\x00i", true, true},
		{"\xff\xfe", true, true},
		{"\xff\xfeh", false, true},                    // half a code unit
		{"\xff\xfeh\x00\x3d\xd8", false, true},        // a high surrogate at the end
		{"\xff\xfeh\x00\x3d\xd8\x00", false, true},    // and half its low surrogate
		{"\xff\xfe\x3d\xd8\x00\xde", true, true},      // U+1F600
		{"\xff\xfe\x3d\xd8h\x00", false, false},       // a high surrogate without its low one
		{"\xff\xfe\x00\xdeh\x00", false, false},       // a low surrogate alone
		{"\xff\xfe\x07\x00", false, false},            // BEL
		{"\xff\xfe\x1b\x00[\x00", true, true},         // ESC
		{"\xfe\xff\x00\x00", false, false},            // NUL
		{"\xfe\xff\xd8\x3d\xde\x00", true, true},      // U+1F600, big-endian
		{"\xfe\xff\xde\x00\xd8\x3d", false, false},    // the same, surrogates swapped
		{"\xfe\xff\x00a\x00\x0a\x00\x0d", true, true}, // a, LF, CR
	}
	for _, tt := range tests {
		if got := isText([]byte(tt.in), false); got != tt.whole {
			t.Errorf("isText(%q, false) = %v, want %v", tt.in, got, tt.whole)
		}
		if got := isText([]byte(tt.in), true); got != tt.asCut {
			t.Errorf("isText(%q, true) = %v, want %v", tt.in, got, tt.asCut)
		}
	}
}

// TestSniffNames checks what the content check reports the bytes to be:
// text before a signature, then the signature, then binary.
func TestSniffNames(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "text/plain"},
		{"BMI,weight\n", "text/plain"},
		{"%PDF-1.7\n", "text/plain"},
		{"BM\x36\x04\x00\x00", "image/bmp"},
		{"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "application/pdf"},
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"PK\x05\x06\x00\x00", "application/zip"},
		{binaryTail, "application/octet-stream"},
	}
	for _, tt := range tests {
		if got := sniff([]byte(tt.in)); got != tt.want {
			t.Errorf("sniff(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	// Every format's name is one Error.Detected may hold, and the table
	// of declared types names only formats.
	names := map[string]bool{}
	for _, f := range formats {
		if names[f.name] {
			t.Errorf("format %s is listed twice", f.name)
		}
		names[f.name] = true
	}
	for declared, name := range signatureTypes {
		if !names[name] || declaredFormats[declared] == nil || declaredFormats[declared].name != name {
			t.Errorf("signatureTypes[%s] = %s, which is not a format", declared, name)
		}
	}
}

// refIsText is the text rule written the slow and obvious way, with the
// standard library's UTF-8 and UTF-16 decoders.
func refIsText(p []byte, cut bool) bool {
	binaryRune := func(r rune) bool { return r < 0x20 && !strings.ContainsRune("\t\n\f\r\x1b", r) }
	if len(p) >= 2 && (p[0] == 0xff && p[1] == 0xfe || p[0] == 0xfe && p[1] == 0xff) {
		be := p[0] == 0xfe
		q := p[2:]
		if len(q)%2 == 1 {
			if !cut {
				return false
			}
			q = q[:len(q)-1]
		}
		units := make([]uint16, len(q)/2)
		for i := range units {
			if be {
				units[i] = uint16(q[2*i])<<8 | uint16(q[2*i+1])
			} else {
				units[i] = uint16(q[2*i+1])<<8 | uint16(q[2*i])
			}
		}
		if n := len(units); cut && n > 0 && 0xd800 <= units[n-1] && units[n-1] < 0xdc00 {
			units = units[:n-1]
		}
		for i := 0; i < len(units); i++ {
			r := rune(units[i])
			if utf16.IsSurrogate(r) {
				if i+1 < len(units) && utf16.DecodeRune(r, rune(units[i+1])) != utf8.RuneError {
					i++
					continue
				}
				return false
			}
			if binaryRune(r) {
				return false
			}
		}
		return true
	}
	p = bytes.TrimPrefix(p, []byte("\xef\xbb\xbf"))
	if cut {
		for k := 1; k <= 3 && k <= len(p); k++ {
			if utf8.RuneStart(p[len(p)-k]) {
				if !utf8.FullRune(p[len(p)-k:]) {
					p = p[:len(p)-k]
				}
				break
			}
		}
	}
	return utf8.Valid(p) && !bytes.ContainsFunc(p, binaryRune)
}

// FuzzTextCheck compares the text check with refIsText and checks its
// invariants: valid UTF-8 without binary bytes is text, a NUL outside
// UTF-16 is binary, and the check of a file declared text/plain agrees
// with isText on its first SniffLen bytes.
func FuzzTextCheck(f *testing.F) {
	for _, s := range []string{
		"", "hello\n", "BMI,weight\n", "%PDF-1.7", "\xef\xbb\xbf\x00", "\xff\xfeh\x00", "\xfe\xff\x00h",
		"<p>\x00", "caf\xe9", "\xff\xfe\x3d\xd8\x00\xde", "\xff\xfe\x3d\xd8", "é\xc3", "\x1b[0m\x07",
		string(cutRune(SniffLen, SniffLen+8)), string(utf16Text(strings.Repeat("日本", 300), false)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, cut := range []bool{false, true} {
			got, want := isText(p, cut), refIsText(p, cut)
			if got != want {
				t.Fatalf("isText(%q, %v) = %v, the reference says %v", p, cut, got, want)
			}
		}
		utf16BOM := len(p) >= 2 && (p[0] == 0xff && p[1] == 0xfe || p[0] == 0xfe && p[1] == 0xff)
		if !utf16BOM && bytes.IndexByte(p, 0) >= 0 && isText(p, true) {
			t.Fatalf("isText(%q) = true with a NUL", p)
		}
		if utf8.Valid(p) && !bytes.ContainsFunc(p, func(r rune) bool { return r < 0x20 && binaryBytes>>r&1 != 0 }) && !isText(p, false) {
			t.Fatalf("isText(%q) = false for valid UTF-8 without binary bytes", p)
		}
		prefix := p[:min(len(p), SniffLen)]
		want := isText(prefix, len(p) >= SniffLen)
		if got := checkContent("f", "text/plain", "", prefix) == nil; got != want {
			t.Fatalf("checkContent(text/plain, %q) passes %v, isText %v", p, got, want)
		}
	})
}

// BenchmarkCheckContent measures the content check on the first bytes of a
// file of each kind, as the decoder calls it.
func BenchmarkCheckContent(b *testing.B) {
	sepPNG := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x00\x00\x00\x00IEND\xaeB`\x82")
	cases := []struct {
		name, mt string
		data     []byte
	}{
		{"png", "image/png", sepPNG},
		{"pdf", "application/pdf", append([]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), bytes.Repeat([]byte("1 0 obj << /Type /Catalog >> endobj\n"), 100)...)},
		{"text", "text/plain", []byte(strings.Repeat("Quarterly notes: the figures below are in thousands of euros.\n", 70))},
		{"text-fr", "text/plain", []byte(strings.Repeat("Notes trimestrielles : les chiffres sont en milliers d’euros, réunion à 14 h.\n", 60))},
		{"utf16", "text/plain", utf16Text(strings.Repeat("Quarterly notes, naïve café.\n", 60), false)},
	}
	for _, c := range cases {
		prefix := c.data[:min(len(c.data), SniffLen)]
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(prefix)))
			for b.Loop() {
				if checkContent("f", c.mt, "", prefix) != nil {
					b.Fatal("rejected")
				}
			}
		})
	}
}

// TestContentSniffLegacyCharset checks that text declared in a legacy
// charset (a CSV exported as windows-1252) passes as text while binary
// declared so does not.
func TestContentSniffLegacyCharset(t *testing.T) {
	latin1 := []byte("Caf\xe9,na\xefve\r\n")
	for _, tt := range []struct {
		uri string
		ok  bool
	}{
		{"data:text/csv;charset=windows-1252;base64," + base64.StdEncoding.EncodeToString(latin1), true},
		{"data:text/csv;charset=ISO-8859-1;base64," + base64.StdEncoding.EncodeToString(latin1), true},
		{"data:text/csv;base64," + base64.StdEncoding.EncodeToString(latin1), false},
		{"data:text/csv;charset=utf-8;base64," + base64.StdEncoding.EncodeToString(latin1), false},
		{"data:text/csv;charset=windows-1252;base64," + base64.StdEncoding.EncodeToString([]byte("a\x00b")), false},
	} {
		h, data, err := datauri.Decode(tt.uri)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := Check(h.MediaType, h.Params["charset"], data); ok != tt.ok {
			t.Errorf("Check(%s) = %v, want ok %v", tt.uri, ok, tt.ok)
		}
	}
}

// sniffError is what checkContent reports: what the bytes were found to be.
type sniffError struct{ Detected string }

// checkContent is Check as the decoder sees it: nil when the bytes pass.
func checkContent(_, mt, charset string, prefix []byte) *sniffError {
	if d, ok := Check(mt, charset, prefix); !ok {
		return &sniffError{Detected: d}
	}
	return nil
}

// TestSignatureTypes checks that every signature the content check demands
// is one sniff names, from a sample file of each.
func TestSignatureTypes(t *testing.T) {
	samples := map[string][]byte{
		"image/png":                     []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"image/jpeg":                    []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
		"image/gif":                     []byte("GIF89a\x01\x00\x01\x00"),
		"image/webp":                    []byte("RIFF\x24\x00\x00\x00WEBPVP8 "),
		"image/bmp":                     []byte("BM\x3a\x00\x00\x00\x00\x00"),
		"image/x-icon":                  []byte("\x00\x00\x01\x00\x01\x00\x10\x10"),
		"application/pdf":               []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
		"application/zip":               []byte("PK\x03\x04\x14\x00\x00\x00"),
		"application/x-gzip":            []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"),
		"application/x-rar-compressed":  []byte("Rar!\x1a\x07\x01\x00\x00"),
		"application/wasm":              []byte("\x00asm\x01\x00\x00\x00"),
		"application/ogg":               []byte("OggS\x00\x02\x00\x00"),
		"audio/wave":                    []byte("RIFF\x24\x00\x00\x00WAVEfmt "),
		"audio/aiff":                    []byte("FORM\x00\x00\x00\x00AIFFCOMM"),
		"audio/midi":                    []byte("MThd\x00\x00\x00\x06\x00\x01"),
		"video/avi":                     []byte("RIFF\x24\x00\x00\x00AVI LIST"),
		"video/webm":                    []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm"),
		"font/woff":                     []byte("wOFF\x00\x01\x00\x00"),
		"font/woff2":                    []byte("wOF2\x00\x01\x00\x00"),
		"font/otf":                      []byte("OTTO\x00\x0a\x00\x80"),
		"font/collection":               []byte("ttcf\x00\x01\x00\x00"),
		"application/vnd.ms-fontobject": append(make([]byte, 34), "LP\x00\x00"...),
		"image/tiff":                    []byte("II*\x00\x08\x00\x00\x00"),
		"video/mp4":                     []byte("\x00\x00\x00\x20ftypisom\x00\x00\x02\x00"),
	}
	for declared, want := range signatureTypes {
		sample, ok := samples[want]
		if !ok {
			t.Errorf("no sample for %s (declared %s)", want, declared)
			continue
		}
		if got := sniff(sample); got != want {
			t.Errorf("sniff(sample of %s) = %s: files declared %s would all be rejected", want, got, declared)
		}
		if err := checkContent("f", declared, "", sample); err != nil {
			t.Errorf("checkContent(%s, sample) = %v", declared, err)
		}
		if err := checkContent("f", declared, "", []byte("plain text")); err == nil {
			t.Errorf("checkContent(%s, text) = nil, want a content error", declared)
		}
	}
}

// TestContentUTF16Labels checks text labelled UTF-16 without a BOM, as
// RFC 2781 has UTF-16LE and UTF-16BE: checked as UTF-16 of that order.
func TestContentUTF16Labels(t *testing.T) {
	le := utf16Text("naïve café\n", false)[2:] // without its BOM
	be := utf16Text("naïve café\n", true)[2:]
	for _, tt := range []struct {
		charset string
		data    []byte
		ok      bool
	}{
		{"utf-16le", le, true},
		{"UTF-16LE", le, true},
		{"utf-16be", be, true},
		{"utf-16", be, true},
		{"utf-16", utf16Text("naïve café\n", false), true}, // a BOM decides
		{"utf-16le", cat("a\x00b\x00", "\x01\x00"), false},
		{"utf-16le", []byte{0x00, 0xd8, 0x41, 0x00}, false}, // a lone high surrogate
	} {
		if _, ok := Check("text/plain", tt.charset, tt.data); ok != tt.ok {
			t.Errorf("Check(text/plain;charset=%s, %q) = %v, want %v", tt.charset, tt.data, ok, tt.ok)
		}
	}
}
