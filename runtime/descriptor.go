package runtime

import (
	"math"
	"strings"
)

// Descriptor is the value of the x-mcp-file keyword of one file argument:
// the constraints a server declares and enforces.
//
// The zero Descriptor accepts any media type up to [DefaultMaxSize] bytes
// and checks content (see the package documentation).
type Descriptor struct {
	// Accept lists media types ("image/png"), wildcard subtypes ("image/*")
	// and dot-prefixed extensions (".pdf"), as in the HTML accept attribute.
	// See [Descriptor.Accepts] for how a media type is matched.
	Accept []string `json:"accept,omitempty"`

	// MaxSize is the largest decoded size in bytes; a file of exactly
	// MaxSize bytes is accepted. Zero or less means [DefaultMaxSize].
	MaxSize int64 `json:"maxSize,omitempty"`

	// NoSniff turns the content check off for this argument (mcpfile tag
	// sniff=false). It is not part of the schema.
	NoSniff bool `json:"-"`
}

// DefaultMaxSize is the ceiling, in decoded bytes, that applies to a file
// argument whose Descriptor has no MaxSize: 32 MiB. SEP-2356 lets a server
// without maxSize accept "any size it is willing to buffer"; this is that
// size. A server may change it, once, before it serves requests (in main or
// an init function); it is read without synchronisation. A value of zero or
// less removes the ceiling, which a server exposed to untrusted clients
// should not do.
var DefaultMaxSize int64 = 32 << 20

// DefaultMaxFiles is the most files an array of files takes when its schema
// has no maxItems (no mcpfile tag maxFiles): 32. Counting comes before any
// item is decoded, so a request of thousands of tiny files costs no more
// than reading it. Raise it for one argument with maxFiles. Like
// [DefaultMaxSize], a server may change it once, before it serves
// requests; zero or less removes the ceiling.
var DefaultMaxFiles = 32

// limit returns the size limit in force for d.
func (d Descriptor) limit() int64 {
	if d.MaxSize > 0 {
		return d.MaxSize
	}
	if DefaultMaxSize > 0 {
		return DefaultMaxSize
	}
	return math.MaxInt64
}

// Accepts reports whether d's accept list allows mediaType, the way the
// spec matches: only the type/subtype of mediaType counts (parameters such as
// charset are ignored), case-insensitively; an entry "type/*" allows every
// subtype of type, and "*/*" allows everything. Entries beginning with a dot
// are extensions: picker hints for the client that a server cannot check
// (the file name does not travel in the URI), so Accepts ignores them.
//
// An empty accept list allows every media type, and so does a list of
// extensions only: such a descriptor constrains nothing the server can
// verify. Declare media types next to extensions to restrict them.
//
// A mediaType that is not of the form type/subtype is allowed only when
// accept allows everything.
func (d Descriptor) Accepts(mediaType string) bool {
	if d.acceptsAny() {
		return true
	}
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	mediaType = strings.TrimSpace(mediaType)
	slash := strings.IndexByte(mediaType, '/')
	if slash <= 0 || slash == len(mediaType)-1 {
		return false
	}
	typ := mediaType[:slash]
	for _, a := range d.Accept {
		a, ok := acceptEntry(a)
		if !ok {
			continue
		}
		if strings.HasSuffix(a, "/*") {
			if strings.EqualFold(a[:len(a)-2], typ) {
				return true
			}
			continue
		}
		if strings.EqualFold(a, mediaType) {
			return true
		}
	}
	return false
}

// acceptsAny reports whether d's accept list allows every media type.
func (d Descriptor) acceptsAny() bool {
	some := false
	for _, a := range d.Accept {
		if a, ok := acceptEntry(a); ok {
			if a == "*/*" {
				return true
			}
			some = true
		}
	}
	return !some
}

// acceptEntry returns the media-type part of an accept entry, parameters
// and surrounding spaces removed, and false for an extension or an empty entry.
func acceptEntry(a string) (string, bool) {
	if i := strings.IndexByte(a, ';'); i >= 0 {
		a = a[:i]
	}
	a = strings.TrimSpace(a)
	if a == "" || a[0] == '.' {
		return "", false
	}
	return a, true
}

// allowed returns the media-type entries of d's accept list for an error text.
func (d Descriptor) allowed() []string {
	var out []string
	for _, a := range d.Accept {
		if a, ok := acceptEntry(a); ok {
			out = append(out, strings.ToLower(a))
		}
	}
	return out
}
