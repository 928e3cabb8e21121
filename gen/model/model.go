// Package model holds the validated description of the types mcpfilegen
// generates code for. It is the single source of truth between the phases:
// the loader and the tag grammar fill it, the schema builder completes the
// schemas and the Go emitter only reads it. Every type and field keeps its source position.
package model

import (
	"go/token"
	"go/types"
)

// Package is one Go package with the types selected for generation.
type Package struct {
	Name  string  // package clause name
	Path  string  // import path
	Dir   string  // directory of the source files; output is written here
	Types []*Type // sorted by name

	// Constraint is the build constraint of the files that declare the
	// types, which the generated file carries as its //go:build line; ""
	// for none.
	Constraint string

	fieldDocs map[*types.Var]string // of the package's struct fields, for InferSchema
}

// Type is a selected named struct type.
type Type struct {
	Name  string
	Named *types.Named // the Go type
	Pos   token.Position
	Doc   string // the type's doc comment, as text; becomes the schema description

	// Fields are the struct's direct fields in source order, embedded ones
	// included (Embedded set), unexported and `json:"-"` ones included (Skip set).
	Fields []*Field

	// Keys are every JSON member name encoding/json decodes into this type,
	// promoted fields of embedded structs included, in encoding/json's field
	// order. Generated decoders match keys against them like encoding/json.
	Keys []string

	// Schema is the type's object schema as compact JSON, filled by the schema phase.
	Schema []byte

	// Flat reports whether the schema is a flat object of primitive
	// properties, as elicitation's requestedSchema must be.
	Flat bool

	// Output reports whether the type returns files: it has a
	// transfer.FileValue field (SEP-2631), so its schema is a tool's
	// outputSchema.
	Output bool
}

// Files returns the type's file fields in source order.
func (t *Type) Files() []*Field {
	var fs []*Field
	for _, f := range t.Fields {
		if f.File != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// Field is one direct field of a selected struct.
type Field struct {
	GoName   string
	JSONName string // the member name encoding/json uses; empty for an embedded struct, whose fields are promoted
	Pos      token.Position
	Doc      string // the field's doc comment, as text
	Tag      string // the whole raw struct tag

	Embedded  bool
	Skip      bool // unexported or `json:"-"`: not part of the JSON object
	OmitEmpty bool
	OmitZero  bool
	Required  bool // listed in the schema's required

	// Description is what the schema says of the field: the jsonschema tag
	// when there is one, else the doc comment.
	Description string

	Type types.Type // the field's Go type

	File *File // nil for an ordinary field
}

// Kind is the Go shape of a file field.
type Kind int

const (
	KindFile          Kind = iota // runtime.File
	KindFilePointer               // *runtime.File
	KindFileSlice                 // []runtime.File
	KindString                    // string: the URI, validated, not decoded
	KindStringPointer             // *string
	KindStringSlice               // []string
)

// Slice reports whether the field holds several files.
func (k Kind) Slice() bool { return k == KindFileSlice || k == KindStringSlice }

// File is what the mcpfile tag of a field says, validated against the field.
type File struct {
	Kind     Kind
	Accept   []string // media types, type/* wildcards and .ext entries, in tag order
	MaxSize  int64    // decoded bytes; 0 when the tag has none
	MaxFiles int      // slices only; 0 when the tag has none
	// MinFiles is the fewest files of a slice (the schema's minItems): the
	// tag's minFiles, else 1 for a required slice field (one without
	// omitempty or omitzero: a required list of files holds at least one),
	// else 0.
	MinFiles int
	NoSniff  bool // the content check is off (sniff=false)

	// TransferModes are the SEP-2631 transfer modes the field allows,
	// "inline", "upload" or both in that order (the tag's transfer=, the
	// schema's transferModes); nil when the tag has none, which allows any.
	TransferModes []string

	// Form is the host's object the file arrives as, in place of a data:
	// URI: "filedata" (Odeus FileData) or "openai" (ChatGPT's fileParams),
	// the tag's form= (tag.Forms), which the schema carries in
	// x-mcpfile-form instead of x-mcp-file; empty for a data: URI. A field
	// with a form is a runtime.File, *runtime.File or, for filedata,
	// []runtime.File, without TransferModes or Filename.
	Form string

	// Filename is the JSON name of the sibling string field whose value
	// becomes File.Name, and FilenameField that field; both empty when unset.
	Filename      string
	FilenameField *Field
}
