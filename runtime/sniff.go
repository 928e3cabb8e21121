package runtime

import (
	"net/http"
	"strings"
)

// sniffLen is how many decoded bytes the content check looks at: all that
// net/http.DetectContentType reads.
const sniffLen = 512

// signatureTypes are the media types whose bytes the content check
// recognises: for each, http.DetectContentType finds a signature that every
// file of the type starts with. A file declared as one of them must carry
// that signature. Aliases map to the name DetectContentType returns.
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
}

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

// isTextual reports media types whose content is text: text/*, JSON, XML,
// YAML, JavaScript and the +json, +xml, +yaml structured-syntax suffixes.
func isTextual(mt string) bool {
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

// sniff returns what http.DetectContentType makes of prefix, without
// parameters.
func sniff(prefix []byte) string {
	s := http.DetectContentType(prefix)
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return s
}

// checkContent checks the first decoded bytes of a file against its declared
// media type mt (see the package documentation, "Content check").
func checkContent(arg, mt string, prefix []byte) *Error {
	want, ok := signatureTypes[mt]
	if !ok && zipContainer(mt) {
		want, ok = "application/zip", true
	}
	switch {
	case ok:
		if got := sniff(prefix); got != want {
			return &Error{Arg: arg, Rule: RuleContent, MediaType: mt, Detected: got}
		}
	case isTextual(mt):
		if got := sniff(prefix); !strings.HasPrefix(got, "text/") {
			return &Error{Arg: arg, Rule: RuleContent, MediaType: mt, Detected: got}
		}
	}
	return nil
}
