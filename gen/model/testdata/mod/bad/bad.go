package bad

import (
	"encoding/json"
	"time"
	"unsafe"

	"github.com/mcpfile/mcpfile/runtime"
)

type URI string

type Label string

type WrongTypes struct {
	N int            `mcpfile:""` // want "mcpfile tag on field N of type int (want runtime.File, *runtime.File, []runtime.File, string, *string or []string)"
	U URI            `mcpfile:""` // want "mcpfile tag on field U of type bad.URI"
	P **runtime.File `mcpfile:""` // want "mcpfile tag on field P of type **runtime.File"
}

type BadTags struct {
	A      runtime.File   `json:"a" mcpfile:"maxsize=1"` // want `unknown key "maxsize" (want accept, filename, form, maxFiles, maxSize, minFiles, sniff, transfer)`
	B      runtime.File   `mcpfile:"accept=imag/png"`    // want `unknown top-level type "imag" in "imag/png"`
	C      runtime.File   `mcpfile:"maxFiles=2"`         // want "maxFiles on field C of type runtime.File: it limits the items of []runtime.File or []string fields only"
	D      string         `mcpfile:"filename=n"`         // want "filename on field D of type string: only runtime.File fields carry a name"
	E      runtime.File   `mcpfile:"filename=nope"`      // want "filename=nope names no field of BadTags (want the json name of a string field declared in BadTags)"
	F      runtime.File   `mcpfile:"filename=count"`     // want "filename=count names field Count of type int (want string)"
	G      runtime.File   `mcpfile:"filename=C"`         // want "filename=C names file field C (want a string field that is not a file field)"
	H      []runtime.File `mcpfile:"filename=n"`         // want "filename=n names field N of type string (want []string)"
	I      runtime.File   `mcpfile:"filename=secret"`    // want "filename=secret names no field of BadTags"
	Count  int            `json:"count"`
	A2     int            `json:"count"` // want `fields Count and A2 of BadTags have the same json name "count": encoding/json decodes neither`
	N      string         `json:"n"`
	secret string
}

type BadTransfer struct {
	S  string         `mcpfile:"transfer=upload"`            // want "transfer=upload on field S of type string: a string field keeps the file's data: URI itself, and an uploaded file has no data: URI (use runtime.File, *runtime.File or []runtime.File, or transfer=inline)"
	P  *string        `mcpfile:"transfer=upload|inline"`     // want "transfer=inline|upload on field P of type *string: a string field keeps"
	L  []string       `mcpfile:"maxFiles=2,transfer=upload"` // want "transfer=upload on field L of type []string: a string field keeps"
	I  string         `mcpfile:"transfer=inline"`
	B  runtime.File   `mcpfile:"transfer=Upload"`        // want `bad transfer mode "Upload" (want inline, upload, or inline|upload)`
	D  []runtime.File `mcpfile:"transfer=inline|inline"` // want `duplicate transfer mode "inline" in "inline|inline" (want inline, upload, or inline|upload)`
	E  runtime.File   `mcpfile:"transfer="`              // want `empty value for key "transfer"`
	Up runtime.File   `mcpfile:"transfer=upload,filename=n"`
	N  string         `json:"n"`
}

type BadForm struct {
	Case    runtime.File    `json:"case" mcpfile:"form=FileData"`                    // want `bad form "FileData" (want filedata or openai)`
	Slice   []runtime.File  `json:"slice" mcpfile:"form=openai"`                     // want "form=openai on field Slice of type []runtime.File: ChatGPT's openai/fileParams names top-level fields that each hold one file, so a list of files cannot be one (use runtime.File or *runtime.File, one field a file, or form=filedata)"
	Str     string          `json:"str" mcpfile:"form=filedata"`                     // want "form=filedata on field Str of type string: a string field keeps the file's data: URI, and a form sends the file as an object, without one (use runtime.File, *runtime.File or []runtime.File, or leave form out)"
	PStr    *string         `json:"p_str,omitempty" mcpfile:"form=openai"`           // want "form=openai on field PStr of type *string: a string field keeps"
	Strs    []string        `json:"strs" mcpfile:"form=openai"`                      // want "form=openai on field Strs of type []string: a string field keeps"
	Inline  runtime.File    `json:"inline" mcpfile:"form=filedata,transfer=inline"`  // want "form=filedata with transfer=inline: a form is its own transfer, the host sends the file as an object (leave transfer out, or form out for a data: URI or an upload)"
	Named   runtime.File    `json:"named" mcpfile:"filename=named_name,form=openai"` // want "form=openai with filename=named_name: the form's object carries the file's name (file_name), which becomes File.Name (leave filename out)"
	NameFor string          `json:"named_name"`
	Nested  InnerOpenAI     `json:"nested"` // want "field Nested.Doc has an mcpfile tag: file fields must be top-level fields of BadForm, not fields of nested structs (and ChatGPT's openai/fileParams lists top-level fields only)"
	Deeper  []InnerFileData `json:"deeper"` // want "field Deeper.Doc has an mcpfile tag: file fields must be top-level fields of BadForm, not fields of nested structs"
}

type InnerOpenAI struct {
	Doc runtime.File `json:"doc" mcpfile:"form=openai"`
}

type InnerFileData struct {
	Doc runtime.File `json:"doc" mcpfile:"form=filedata"`
}

type Skipped struct {
	f      runtime.File `mcpfile:""`          // want "mcpfile tag on field f, which encoding/json skips (unexported or json:\"-\")"
	G      runtime.File `json:"-" mcpfile:""` // want "mcpfile tag on field G, which encoding/json skips"
	Inner2 `mcpfile:""` // want "mcpfile tag on embedded field Inner2: declare a file field as a named field"
}

type HasUnmarshal struct {
	F runtime.File `mcpfile:""`
}

func (h *HasUnmarshal) UnmarshalJSON(b []byte) error { return nil } // want "type HasUnmarshal already has an UnmarshalJSON method, which the generated one would replace: remove it, or leave HasUnmarshal out of -type"

type Dec struct{}

func (*Dec) UnmarshalJSON([]byte) error { return nil }

type Txt struct{}

func (Txt) UnmarshalText([]byte) error { return nil }

type EmbedsUnmarshal struct {
	Dec              // want "type EmbedsUnmarshal embeds Dec, whose UnmarshalJSON method would take over decoding EmbedsUnmarshal: make it a named field, or leave EmbedsUnmarshal out of -type"
	F   runtime.File `mcpfile:""`
}

type EmbedsText struct {
	*Txt // want "type EmbedsText embeds Txt, whose UnmarshalText method would take over decoding EmbedsText"
}

type Inner struct {
	Photo runtime.File `mcpfile:""`
}

type Inner2 struct {
	X int
}

type Tagged struct {
	Inner          // want "embedded field Inner has an mcpfile field Inner.Photo: file fields must be declared directly in Tagged"
	N     Inner    // want "field N.Photo has an mcpfile tag: file fields must be top-level fields of Tagged, not fields of nested structs"
	S     []*Inner `json:"s"` // want "field S.Photo has an mcpfile tag"
}

type Unsupported struct {
	Ch   chan int                   // want "field Ch: type chan int is unsupported by the SDK's schema inference (channels, functions, complex numbers and unsafe pointers have no JSON Schema)"
	Fn   func()                     // want "field Fn: type func() is unsupported"
	C    complex128                 // want "field C: type complex128 is unsupported"
	UP   unsafe.Pointer             // want "field UP: type unsafe.Pointer is unsupported"
	M    map[int]string             // want "field M: map key type int is unsupported by the SDK's schema inference (want string keys or an encoding.TextMarshaler)"
	Deep struct{ X []map[bool]int } // want "field Deep.X: map key type bool is unsupported"
	ok   chan int
	Skip chan int `json:"-"`
	Raw  json.RawMessage
	Any  any
	Time time.Time
	MK   map[Label]int
}

type Node struct {
	Next *Node // want "field Next: recursive type bad.Node: the SDK's schema inference rejects cycles"
}

type Tree struct {
	F        runtime.File `mcpfile:""`
	Children []Branch     // want "field Children.Sub.Up: recursive type bad.Branch"
}

type Branch struct {
	Sub struct{ Up *Branch }
}

type SchemaTags struct {
	A string `jsonschema:""`    // want "field A: empty jsonschema tag: the SDK's schema inference rejects it"
	B string `jsonschema:"k=v"` // want "field B: jsonschema tag \"k=v\" begins with WORD=, which the SDK's schema inference rejects"
	C string `jsonschema:"fine = ok"`
	D string `jsonschema:"x=" mcpfile:""` // want "field D: jsonschema tag \"x=\" begins with WORD="
}

type Embeddings struct {
	time.Time                // want "type Embeddings embeds Time, whose UnmarshalJSON method" "field Time: embedded time.Time: the SDK's schema inference rejects it"
	Label                    // want "embedded field Label of non-struct type bad.Label: encoding/json decodes it as member \"Label\" but the SDK's schema inference leaves it out; make it a named field"
	Inner2    `json:"inner"` // want "embedded field Inner2 has json name \"inner\": encoding/json decodes it as one member but the SDK's schema inference promotes its fields"
}

type EmbeddedDash struct {
	Inner2 `json:"-"` // want "embedded field Inner2 has json:\"-\": encoding/json ignores it but the SDK's schema inference still lists its fields"
}

type BadName struct {
	A string `json:"a\\b"` // want "invalid json name \"a\\\\b\": encoding/json ignores it and uses \"A\""
}

type Gen[T any] struct { // want "type Gen is generic: mcpfilegen generates for non-generic struct types only"
	F runtime.File `mcpfile:""`
}

type NotStruct int // want "type NotStruct given with -type is not a struct type"

type Alias = Inner // want "type Alias given with -type is an alias"

var Var int // want "name Var given with -type is not a type"

type Owners struct {
	Photo runtime.File `json:"id" mcpfile:""` // want "json name \"id\": encoding/json decodes it into Photo but the SDK's schema describes Base.ID; rename one of them"
	Base
}

type Base struct {
	ID string `json:"id"`
}

type Untagged struct {
	F      runtime.File          // want `field F of type runtime.File has no mcpfile tag: add mcpfile:"" or constraints such as mcpfile:"accept=image/png,maxSize=5MiB"`
	P      *runtime.File         `json:"p,omitempty"` // want "field P of type *runtime.File has no mcpfile tag"
	S      []runtime.File        `json:"s"`           // want "field S of type []runtime.File has no mcpfile tag"
	PS     []*runtime.File       `json:"ps"`          // want "field PS of type []*runtime.File holds runtime.File values: a file field is a runtime.File, *runtime.File or []runtime.File with an mcpfile tag"
	Arr    [2]runtime.File       `json:"arr"`         // want "field Arr of type [2]runtime.File holds runtime.File values"
	M      map[string]FileHolder `json:"m"`           // want "field M.Doc holds a runtime.File: file fields must be top-level fields of Untagged, not fields of nested structs"
	hidden runtime.File
	Dash   runtime.File `json:"-"`
}

type FileHolder struct {
	Doc runtime.File `json:"doc"`
}

type EmbedsFile struct {
	runtime.File // want "embedded field File is a runtime.File: declare a file field as a named field with an mcpfile tag"
}

type EmbedsHolder struct {
	*FileHolder // want "embedded field FileHolder has a runtime.File field FileHolder.Doc: file fields must be declared directly in EmbedsHolder, with an mcpfile tag"
}

type StructTags struct {
	A runtime.File `mcpfiel:""`                        // want `field A: misspelled struct tag key "mcpfiel": the key is mcpfile`
	B runtime.File `json:"b" MCPFILE:"maxSize=1"`      // want `field B: misspelled struct tag key "MCPFILE": the key is mcpfile`
	C runtime.File `json:"c" mcpfile:"" mcpFile:""`    // want `field C: misspelled struct tag key "mcpFile": the key is mcpfile`
	D runtime.File `mcpfile:accept=image/png`          // want `field D: malformed struct tag "mcpfile:accept=image/png": the value of "mcpfile" is not in double quotes (want mcpfile:"…")`
	E runtime.File `json:"e" mcpfile:"maxSize=1`       // want `field E: malformed struct tag "json:\"e\" mcpfile:\"maxSize=1": the value of "mcpfile" has no closing quote`
	G runtime.File `mcpfile:"" json:e`                 // want `field G: malformed struct tag "mcpfile:\"\" json:e": the value of "json" is not in double quotes (want json:"…")`
	H string       `json:"h" profile:"x" mcpfiles:"x"` // want `field H: misspelled struct tag key "mcpfiles": the key is mcpfile`
	I int          `json:"i,omitempty" jsonschema:"an i"`
}

type StringOption struct {
	F runtime.File `json:"f,string" mcpfile:""`           // want `json option ",string" on file field F: a file argument is a data: URI as it comes, never quoted again; remove ,string`
	U *string      `json:"u,omitempty,string" mcpfile:""` // want `json option ",string" on file field U`
	N int          `json:"n,string"`
}

// SchemaOnly is selected with -type and has no file fields: it gets
// MCPSchema alone.
type SchemaOnly struct {
	N int `json:"n"`
}

type EmbedsSchemaOnly struct {
	SchemaOnly     // want "type EmbedsSchemaOnly embeds SchemaOnly, so it would inherit the MCPSchema method generated for SchemaOnly, which describes SchemaOnly's fields alone: make SchemaOnly a named field of EmbedsSchemaOnly, or add EmbedsSchemaOnly to -type"
	M          int `json:"m"`
}

type WithFile struct {
	F runtime.File `mcpfile:""`
}

type EmbedsWithFile struct {
	WithFile // want "type EmbedsWithFile embeds WithFile, so it would inherit the MCPSchema and UnmarshalJSON methods generated for WithFile, which describe and decode WithFile's fields alone: make WithFile a named field of EmbedsWithFile"
}

type HasSchema struct {
	F runtime.File `mcpfile:""`
}

func (HasSchema) MCPSchema() json.RawMessage { return nil } // want "type HasSchema already has an MCPSchema method, which the generated one would replace: remove it, or leave HasSchema out of -type"
