// Package content is the content check of file values: whether the first
// bytes of a file are what its declared media type says. The runtime's
// decoder runs it on every file unless the field turns it off; the
// runtime's error texts use its names for what the bytes are. See the
// runtime's package documentation, "Content check", for the rules.
package content

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// SniffLen is how many decoded bytes the content check looks at: the first
// KiB, where PDF readers look for the PDF header.
const SniffLen = 1024

// A format is a kind of binary file that the content check recognises by a
// signature at a known place in its first bytes.
type format struct {
	// name is what Error.Detected reports for a file of the format: the
	// name net/http.DetectContentType gave it, so that error texts stay
	// those of earlier versions.
	name string
	// match reports whether p, the first bytes of a file (at most
	// SniffLen), carries the signature.
	match func(p []byte) bool
}

// formats are the signatures the content check knows, one entry per
// format. They are decided here, per format, and change only with this
// package: a check that rejects files must not move under a server's feet.
// Each accepts every variant that readers of the format open, and nothing
// that is only a guess; see the comments for the leeway granted.
var formats = [...]format{
	{"image/png", prefix("\x89PNG\r\n\x1a\n")},
	{"image/jpeg", prefix("\xff\xd8\xff")},
	{"image/gif", prefix("GIF87a", "GIF89a")},
	// RIFF with a VP8, VP8L or VP8X first chunk.
	{"image/webp", riff([]string{"RIFF"}, "WEBPVP")},
	{"image/bmp", prefix("BM")},
	// Icons and cursors, as WHATWG MIME Sniffing has it.
	{"image/x-icon", prefix("\x00\x00\x01\x00", "\x00\x00\x02\x00")},
	// PDF readers accept the header anywhere in the first 1024 bytes (ISO
	// 32000-1, Annex H, note 13): after a newline, a BOM, whitespace or
	// a mail or print-spooler header.
	{"application/pdf", func(p []byte) bool { return bytes.Contains(p[:min(len(p), 1024)], []byte("%PDF-")) }},
	// A local file header, the end record of an empty archive, or the
	// marker that starts a split (spanned) archive.
	{"application/zip", prefix("PK\x03\x04", "PK\x05\x06", "PK\x07\x08")},
	// Deflate is the only compression method gzip defines.
	{"application/x-gzip", prefix("\x1f\x8b\x08")},
	// RAR 1.5 to 4, and RAR 5.
	{"application/x-rar-compressed", prefix("Rar!\x1a\x07\x00", "Rar!\x1a\x07\x01\x00")},
	{"application/wasm", prefix("\x00asm")},
	{"application/ogg", prefix("OggS\x00")},
	// RIFF, and RF64 for files past 4 GiB (EBU Tech 3306).
	{"audio/wave", riff([]string{"RIFF", "RF64"}, "WAVE")},
	// AIFF and its compressed variant AIFF-C, which readers take as one.
	{"audio/aiff", riff([]string{"FORM"}, "AIFF", "AIFC")},
	{"audio/midi", prefix("MThd\x00\x00\x00\x06")},
	{"video/avi", riff([]string{"RIFF"}, "AVI ")},
	// Any EBML document, so Matroska too, as WHATWG MIME Sniffing has it.
	{"video/webm", prefix("\x1a\x45\xdf\xa3")},
	{"font/woff", prefix("wOFF")},
	{"font/woff2", prefix("wOF2")},
	// OpenType with CFF outlines, and with TrueType outlines: both are
	// OpenType (and both are shipped as .otf).
	{"font/otf", prefix("OTTO", "\x00\x01\x00\x00")},
	{"font/collection", prefix("ttcf")},
	// Little- and big-endian TIFF, and BigTIFF.
	{"image/tiff", prefix("II*\x00", "MM\x00*", "II+\x00", "MM\x00+")},
	// ISO base media files (MP4, M4A, HEIF/HEIC, AVIF, 3GPP): a box of
	// type ftyp first, which the format requires before any media box.
	{"video/mp4", func(p []byte) bool { return len(p) >= 8 && string(p[4:8]) == "ftyp" }},
	// The magic number 0x504C at offset 34 of the EOT header.
	{"application/vnd.ms-fontobject", func(p []byte) bool { return len(p) >= 36 && string(p[34:36]) == "LP" }},
}

// prefix returns a match function for files that start with one of sigs.
func prefix(sigs ...string) func([]byte) bool {
	return func(p []byte) bool {
		for _, s := range sigs {
			if len(p) >= len(s) && string(p[:len(s)]) == s {
				return true
			}
		}
		return false
	}
}

// riff returns a match function for files in a RIFF-like container: one of
// ids, a 4-byte size, then one of kinds.
func riff(ids []string, kinds ...string) func([]byte) bool {
	return func(p []byte) bool {
		if len(p) < 12 {
			return false
		}
		for _, id := range ids {
			if string(p[:4]) != id {
				continue
			}
			for _, k := range kinds {
				if len(p) >= 8+len(k) && string(p[8:8+len(k)]) == k {
					return true
				}
			}
		}
		return false
	}
}

// signatureTypes maps each declared media type whose files all carry a
// signature the content check knows to the name of its format in formats.
// A file declared as one of them must carry that signature.
var signatureTypes = map[string]string{
	"image/png":                     "image/png",
	"image/apng":                    "image/png",
	"image/jpeg":                    "image/jpeg",
	"image/jpg":                     "image/jpeg",
	"image/pjpeg":                   "image/jpeg",
	"image/gif":                     "image/gif",
	"image/webp":                    "image/webp",
	"image/bmp":                     "image/bmp",
	"image/x-ms-bmp":                "image/bmp",
	"image/x-icon":                  "image/x-icon",
	"image/vnd.microsoft.icon":      "image/x-icon",
	"application/pdf":               "application/pdf",
	"application/x-pdf":             "application/pdf",
	"application/zip":               "application/zip",
	"application/x-zip-compressed":  "application/zip",
	"application/gzip":              "application/x-gzip",
	"application/x-gzip":            "application/x-gzip",
	"application/vnd.rar":           "application/x-rar-compressed",
	"application/x-rar-compressed":  "application/x-rar-compressed",
	"application/wasm":              "application/wasm",
	"application/ogg":               "application/ogg",
	"audio/ogg":                     "application/ogg",
	"video/ogg":                     "application/ogg",
	"audio/wav":                     "audio/wave",
	"audio/wave":                    "audio/wave",
	"audio/x-wav":                   "audio/wave",
	"audio/vnd.wave":                "audio/wave",
	"audio/aiff":                    "audio/aiff",
	"audio/x-aiff":                  "audio/aiff",
	"audio/midi":                    "audio/midi",
	"video/avi":                     "video/avi",
	"video/x-msvideo":               "video/avi",
	"video/webm":                    "video/webm",
	"font/woff":                     "font/woff",
	"font/woff2":                    "font/woff2",
	"font/otf":                      "font/otf",
	"font/collection":               "font/collection",
	"application/vnd.ms-fontobject": "application/vnd.ms-fontobject",
	"image/tiff":                    "image/tiff",
	"image/tiff-fx":                 "image/tiff",
	"video/mp4":                     "video/mp4",
	"audio/mp4":                     "video/mp4",
	"audio/x-m4a":                   "video/mp4",
	"audio/m4a":                     "video/mp4",
	"image/heic":                    "video/mp4",
	"image/heif":                    "video/mp4",
	"image/heic-sequence":           "video/mp4",
	"image/heif-sequence":           "video/mp4",
	"image/avif":                    "video/mp4",
	"video/3gpp":                    "video/mp4",
	"video/3gpp2":                   "video/mp4",
}

// declaredFormats is signatureTypes resolved to formats, built once and
// never changed. (TestSniffNames checks that every name resolves.)
var declaredFormats = func() map[string]*format {
	byName := make(map[string]*format, len(formats))
	for i := range formats {
		byName[formats[i].name] = &formats[i]
	}
	m := make(map[string]*format, len(signatureTypes))
	for declared, name := range signatureTypes {
		m[declared] = byName[name]
	}
	return m
}()

// zipContainer reports media types whose files are ZIP archives (Office Open
// XML, OpenDocument, EPUB, JAR, APK, and any "+zip" type): their bytes must
// be a ZIP archive.
func zipContainer(mt string) bool {
	return strings.HasPrefix(mt, "application/vnd.openxmlformats-officedocument.") ||
		strings.HasPrefix(mt, "application/vnd.oasis.opendocument.") ||
		strings.HasSuffix(mt, "+zip") ||
		mt == "application/java-archive" ||
		mt == "application/vnd.android.package-archive"
}

// IsTextual reports media types whose content is text: text/*, JSON, XML,
// YAML, JavaScript and the +json, +xml, +yaml structured-syntax suffixes.
func IsTextual(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml",
		"application/javascript", "application/x-ndjson", "application/jsonl",
		"application/x-sh", "application/sql", "application/toml":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || strings.HasSuffix(mt, "+yaml")
}

// Check checks the first decoded bytes of a file, prefix (at most SniffLen
// bytes; exactly SniffLen when the file may go on), against its declared
// media type mt and its charset parameter, "" when it has none. When they
// do not match, detected names what the bytes are instead ("text/plain",
// "image/png", "application/octet-stream").
func Check(mt, charset string, prefix []byte) (detected string, ok bool) {
	f := declaredFormats[mt]
	if f == nil && zipContainer(mt) {
		f = declaredFormats["application/zip"]
	}
	switch {
	case f != nil:
		if !f.match(prefix) {
			return sniff(prefix), false
		}
	case IsTextual(mt) && utf16Charset(charset) != 0:
		// A UTF-16 label without a BOM (RFC 2781): little-endian for
		// UTF-16LE, big-endian for UTF-16BE and for UTF-16 without one.
		be := utf16Charset(charset) == 'B'
		q := prefix
		if len(q) >= 2 && (q[0] == 0xff && q[1] == 0xfe || q[0] == 0xfe && q[1] == 0xff) {
			be, q = q[0] == 0xfe, q[2:]
		}
		if !isUTF16(q, be, len(prefix) >= SniffLen) {
			return sniff(prefix), false
		}
	case IsTextual(mt) && legacyCharset(charset):
		if !isLegacyText(prefix) {
			return sniff(prefix), false
		}
	case IsTextual(mt):
		if !isText(prefix, len(prefix) >= SniffLen) {
			return sniff(prefix), false
		}
	}
	return "", true
}

// sniff names what the bytes of p are, for Error.Detected: "text/plain"
// when p is text, else the first format whose signature p carries, else
// "application/octet-stream". Text comes first because it is decided on
// all the bytes and a signature on a few: a CSV that starts "BMI," is text,
// not a bitmap. sniff decides nothing; checkContent does.
func sniff(p []byte) string {
	if isText(p, len(p) >= SniffLen) {
		return "text/plain"
	}
	for i := range formats {
		if formats[i].match(p) {
			return formats[i].name
		}
	}
	return "application/octet-stream"
}

// binaryBytes has bit c set for each control character c < 0x20 that marks
// bytes as binary: WHATWG MIME Sniffing's "binary data bytes", 0x00-0x08,
// 0x0B, 0x0E-0x1A and 0x1C-0x1F. Tab, line feed, form feed, carriage
// return and escape (0x1B, for terminal colours and ISO-2022 shifts) are
// text. The other controls count as binary, not NUL alone: no text format
// a tool takes uses them, while nearly every binary format has them in its
// first KiB (lengths, counts and flags are small integers), and they are
// what tells binary from text when the binary happens to be valid UTF-8,
// as short runs of it often are. They are also what net/http's sniffer,
// which this check replaced, counted as binary, so no text that it passed
// is refused for them now. A server that takes terminal captures or
// similar can turn the check off (sniff=false).
const binaryBytes uint32 = (1<<0x20 - 1) &^ (1<<'\t' | 1<<'\n' | 1<<'\f' | 1<<'\r' | 1<<0x1b)

// isText reports whether p, the first bytes of a file, is text: valid UTF-8
// (after an optional BOM), or UTF-16 marked by a BOM (little- or
// big-endian) whose code units pair up, in either case without the binary
// bytes of binaryBytes (as code units for UTF-16). It is decided on all of
// p, never on a prefix of it: a BOM, "<?xml" or "%PDF-" followed by binary
// is binary. When cut is set, p may end inside a character, which is then
// not held against it.
func isText(p []byte, cut bool) bool {
	switch {
	case len(p) >= 2 && p[0] == 0xff && p[1] == 0xfe:
		return isUTF16(p[2:], false, cut)
	case len(p) >= 2 && p[0] == 0xfe && p[1] == 0xff:
		return isUTF16(p[2:], true, cut)
	case len(p) >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf:
		p = p[3:]
	}
	return isUTF8(p, cut)
}

// legacyCharset reports whether charset names an encoding other than
// UTF-8, UTF-16 and their subset US-ASCII: ISO-8859-1, windows-1252,
// Shift_JIS and the like, in which any byte from 0x80 up may be a
// character. A spreadsheet exported as CSV often is one.
func legacyCharset(charset string) bool {
	for _, c := range [...]string{"", "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be"} {
		if strings.EqualFold(charset, c) {
			return false
		}
	}
	return true
}

// utf16Charset reports a UTF-16 charset label: 'L' for UTF-16LE, 'B' for
// UTF-16BE and for UTF-16 (whose default is big-endian), 0 for any other.
func utf16Charset(charset string) byte {
	switch {
	case strings.EqualFold(charset, "utf-16le"):
		return 'L'
	case strings.EqualFold(charset, "utf-16be"), strings.EqualFold(charset, "utf-16"):
		return 'B'
	}
	return 0
}

// isLegacyText reports whether p, the first bytes of a file declared in a
// legacy charset (see legacyCharset), is text: no binary bytes, as
// binaryBytes defines them, and no NUL. Every other byte is a character in
// some such charset.
func isLegacyText(p []byte) bool {
	for _, c := range p {
		if c < 0x20 && binaryBytes>>c&1 != 0 {
			return false
		}
	}
	return true
}

// isUTF8 reports whether p is valid UTF-8 without binary bytes, allowing
// an incomplete character at the end when cut is set.
func isUTF8(p []byte, cut bool) bool {
	const (
		spaces = 0x2020202020202020
		highs  = 0x8080808080808080
	)
	for i := 0; i < len(p); {
		if i+8 <= len(p) {
			// Eight bytes at a time while they are all printable ASCII
			// (0x20-0x7F): subtracting 0x20 from each sets a high bit
			// only when some byte is below 0x20.
			if w := binary.LittleEndian.Uint64(p[i:]); ((w-spaces)|w)&highs == 0 {
				i += 8
				continue
			}
		}
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && binaryBytes>>c&1 != 0 {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n == 1 {
			// Invalid, unless it is the start of a character cut at the end.
			return cut && !utf8.FullRune(p[i:])
		}
		i += n
	}
	return true
}

// isUTF16 reports whether p is UTF-16 (big-endian when be is set) whose
// surrogates pair up and whose code units are not binary bytes. When cut is
// set, p may end inside a code unit or a surrogate pair.
func isUTF16(p []byte, be bool, cut bool) bool {
	unit := func(i int) uint16 {
		if be {
			return binary.BigEndian.Uint16(p[i:])
		}
		return binary.LittleEndian.Uint16(p[i:])
	}
	i := 0
	for ; i+2 <= len(p); i += 2 {
		u := unit(i)
		switch {
		case u < 0x20:
			if binaryBytes>>u&1 != 0 {
				return false
			}
		case 0xd800 <= u && u < 0xdc00: // a high surrogate: a low one must follow
			if i+4 > len(p) {
				return cut
			}
			if lo := unit(i + 2); lo < 0xdc00 || lo >= 0xe000 {
				return false
			}
			i += 2
		case 0xdc00 <= u && u < 0xe000: // a low surrogate alone
			return false
		}
	}
	return i == len(p) || cut
}

// Describe names what the bytes detected by Check are, for an error text:
// "text", "unrecognised binary data", or the media type.
func Describe(d string) string {
	switch d {
	case "", "application/octet-stream":
		return "unrecognised binary data"
	case "text/plain":
		return "text"
	}
	return d
}
