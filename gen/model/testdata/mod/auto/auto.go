package auto

import "github.com/mcpfile/mcpfile/runtime"

type B struct {
	F runtime.File `mcpfile:""`
}

type A struct {
	F string `mcpfile:"accept=text/plain"`
}

// NoTags holds files where encoding/json does not decode them: it is not
// selected.
type NoTags struct {
	f    runtime.File
	Skip *runtime.File `json:"-"`
	N    int           `json:"n" profile:"x"`
}

type NotStruct int

type Alias = A
