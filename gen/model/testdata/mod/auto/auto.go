package auto

import "github.com/mcpfile/mcpfile/runtime"

type B struct {
	F runtime.File `mcpfile:""`
}

type A struct {
	F string `mcpfile:"accept=text/plain"`
}

type NoTags struct {
	F runtime.File
}

type NotStruct int

type Alias = A
