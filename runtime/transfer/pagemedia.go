package transfer

// The media type a page's upload is stored as, and how a page words its
// accept list.

import (
	"strings"

	"github.com/mcpfile/mcpfile/runtime/internal/content"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// pageMediaType chooses the media type a page's upload is stored as: the
// browser's type for the file (its part's Content-Type) when accept takes
// it and the first bytes agree, else the first concrete type of accept
// that they agree with, else, when accept takes anything, the type the
// first bytes show, or application/octet-stream.
func pageMediaType(accept []string, browser string, head []byte) (string, *refusal) {
	d := descriptor.File{Accept: accept}
	fits := func(mt string) bool {
		_, ok := content.Check(mt, "", head)
		return ok
	}
	if browser != "" && browser != defaultMediaType && d.Accepts(browser) && fits(browser) {
		return browser, nil
	}
	for _, a := range d.Allowed() {
		if !strings.Contains(a, "*") && fits(a) {
			return a, nil
		}
	}
	detected, _ := content.Check(defaultMediaType, "", head)
	if detected != "" && detected != defaultMediaType && d.Accepts(detected) {
		return detected, nil
	}
	if d.Accepts(defaultMediaType) {
		return defaultMediaType, nil
	}
	what := content.Describe(detected)
	if detected == "" {
		what = "not one the server recognizes"
	}
	return "", refuseNotAccepted.says("This file's type is " + what + "; the accepted types are " + acceptText(accept) + ". Choose another file.")
}

// splitAccept splits a page token's accept list.
func splitAccept(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// acceptText says which files an accept list takes.
func acceptText(accept []string) string {
	var out []string
	for _, a := range accept {
		if a = strings.TrimSpace(a); a != "" && a != "*/*" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return "any type"
	}
	return strings.Join(out, ", ")
}
