// Package autobad holds types that are selected without -type for what
// their fields say about files, and are reported.
package autobad

import "github.com/mcpfile/mcpfile/runtime"

type Untagged struct {
	F runtime.File // want `field F of type runtime.File has no mcpfile tag: add mcpfile:"" or constraints such as mcpfile:"accept=image/png,maxSize=5MiB"`
}

type Misspelled struct {
	F runtime.File `mcpFile:""` // want `field F: misspelled struct tag key "mcpFile": the key is mcpfile`
}

type MisspelledString struct {
	S string `json:"s" mcp_file:"accept=text/plain"` // want `field S: misspelled struct tag key "mcp_file": the key is mcpfile`
}

type Malformed struct {
	S string `json:"s" mcpfile:accept=text/plain` // want `field S: malformed struct tag "json:\"s\" mcpfile:accept=text/plain": the value of "mcpfile" is not in double quotes (want mcpfile:"…")`
}

type Nested struct {
	Items []struct{ F runtime.File } `json:"items"` // want "field Items.F holds a runtime.File: file fields must be top-level fields of Nested, not fields of nested structs"
}

type InMap struct {
	ByName map[string]*runtime.File `json:"by_name"` // want "field ByName of type map[string]*runtime.File holds runtime.File values: a file field is a runtime.File, *runtime.File or []runtime.File with an mcpfile tag"
}

// Via holds Holder, which decodes itself: it is not selected.
type Via struct {
	Holder Holder `json:"holder"`
}

type Holder struct {
	Doc runtime.File `json:"doc" mcpfile:""`
}

// Outer embeds a selected type without file fields of its own: it is not
// selected, and would inherit Holder's methods.
type Outer struct {
	A           // want "type Outer embeds A, so it would inherit the MCPSchema and UnmarshalJSON methods generated for A, which describe and decode A's fields alone: make A a named field of Outer"
	Note string `json:"note"`
}

type A struct {
	URI string `json:"uri" mcpfile:""`
}

// OwnSchema declares its own MCPSchema: it would inherit A's UnmarshalJSON
// alone.
type OwnSchema struct {
	*A // want "type OwnSchema embeds A, so it would inherit the UnmarshalJSON method generated for A, which decodes A's fields alone: make A a named field of OwnSchema"
}

func (OwnSchema) MCPSchema() []byte { return nil }

// Deep embeds A through Middle, which embeds it too.
type Deep struct {
	Middle // want "type Deep embeds A (through Middle), so it would inherit the MCPSchema and UnmarshalJSON methods generated for A"
}

type Middle struct {
	A // want "type Middle embeds A, so it would inherit"
}

// HoldsPromoted is selected for the runtime.File its embedded struct
// holds.
type HoldsPromoted struct {
	Untagged // want "embedded field Untagged has a runtime.File field Untagged.F: file fields must be declared directly in HoldsPromoted, with an mcpfile tag"
}

// Named holds A in a named field: A's methods decode and describe that
// field, as they should.
type Named struct {
	A    A      `json:"a"`
	Note string `json:"note"`
}

// Unrelated is not selected.
type Unrelated struct {
	N    int    `json:"n"`
	Name string `json:"name" jsonschema:"a name"`
}
