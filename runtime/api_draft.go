package runtime

// This file fixes the runtime's API so that the generator and the integration
// can be written against it while the implementation lands. Every function
// here is replaced by its real implementation in its own file; this file is
// deleted when that is done.

import (
	"encoding/json"
)

// Descriptor is the value of the x-mcp-file keyword of one file argument.
type Descriptor struct {
	Accept  []string `json:"accept,omitempty"`
	MaxSize int64    `json:"maxSize,omitempty"`
	// NoSniff turns the content check off for this argument (tag key sniff=false).
	NoSniff bool `json:"-"`
}

// File is a decoded, validated file argument.
type File struct {
	MediaType string
	Params    map[string]string
	Name      string
	Data      []byte
}

// DefaultMaxSize is the ceiling applied when Descriptor.MaxSize is 0.
var DefaultMaxSize int64 = 32 << 20

// Version guards: generated code refers to these so that it fails to compile
// against a runtime it was not generated for.
const (
	GenVersion    = 1
	MinGenVersion = 1
)

// EnforceVersion is used by generated code in constant expressions that
// overflow (and so fail to compile) when the versions do not match.
type EnforceVersion uint

func (d Descriptor) Accepts(mediaType string) bool                      { panic("draft") }
func Decode(arg, uri string, d Descriptor) (File, error)                { panic("draft") }
func DecodeJSON(arg string, tok []byte, d Descriptor) (File, error)     { panic("draft") }
func Validate(arg, uri string, d Descriptor) error                      { panic("draft") }
func ValidateJSON(arg string, tok []byte, d Descriptor) (string, error) { panic("draft") }
func Encode(mediaType string, data []byte) string                       { panic("draft") }
func SanitizeName(name string) string                                   { panic("draft") }
func IsNull(tok []byte) bool                                            { panic("draft") }

// Fields matches JSON object keys to a struct's file fields the way
// encoding/json matches keys to fields: exact name first, then case-folded.
type Fields struct{}

// NewFields: all is every JSON name the struct decodes, in encoding/json's
// field order; files are the JSON names of its file fields, in order.
func NewFields(all []string, files ...string) *Fields { panic("draft") }

// Lookup returns the index in files of the field key decodes into, or -1.
func (f *Fields) Lookup(key []byte) int { panic("draft") }

// ScanObject walks the top-level JSON object b. For a key that Lookup maps to
// a file field it calls file with the file's index and the raw value token
// (not copied, not unescaped). Every other member is copied into rest, a
// smaller JSON object for encoding/json; rest is nil when there is none.
// When b is not an object, rest is b itself so that encoding/json reports it.
func ScanObject(b []byte, fields *Fields, file func(i int, val []byte) error) (rest []byte, err error) {
	panic("draft")
}

// ScanArray walks the JSON array token tok of the file argument arg. It counts
// the items first and fails with RuleMaxFiles when maxItems > 0 and there are
// more; then it calls item for each one.
func ScanArray(arg string, tok []byte, maxItems int, item func(i int, tok []byte) error) (n int, err error) {
	panic("draft")
}

var _ = json.Valid
