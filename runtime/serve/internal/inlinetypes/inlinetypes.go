// Package inlinetypes holds the argument types of the tests and
// benchmarks of the fast path of inline files (runtime/serve): files large
// enough to be handed to the SDK as references, of every shape the fast
// path takes.
package inlinetypes

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen -type Files,HostFiles,Image,Form,Question

import "github.com/mcpfile/mcpfile/runtime"

// Files has a file of each Go type, a string kept as its URI, and
// ordinary members.
type Files struct {
	Image runtime.File   `json:"image" mcpfile:"accept=image/png,maxSize=5MiB"`
	Extra *runtime.File  `json:"extra,omitempty" mcpfile:"maxSize=5MiB,sniff=false"`
	Docs  []runtime.File `json:"docs,omitempty" mcpfile:"accept=text/plain,maxSize=1MiB,maxFiles=3,filename=names"`
	Names []string       `json:"names,omitempty"`
	URI   string         `json:"uri,omitempty" mcpfile:"accept=text/plain,maxSize=1MiB"`
	Note  string         `json:"note,omitempty"`
}

// HostFiles has files as a host sends them: an Odeus FileData object and
// a list of them.
type HostFiles struct {
	Photo runtime.File   `json:"photo" mcpfile:"accept=image/png,maxSize=5MiB,form=filedata"`
	Pages []runtime.File `json:"pages,omitempty" mcpfile:"accept=text/plain,maxSize=1MiB,maxFiles=3,form=filedata"`
}

// Image is the argument of the benchmarks: an image of up to 24 MiB, as
// examples/describe_image takes one of up to 5 MiB.
type Image struct {
	Image runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg|image/gif|image/webp,maxSize=24MiB"`
}

// Form is a form a tool elicits: a file of each Go type a form takes, and
// an ordinary field.
type Form struct {
	Photo runtime.File  `json:"photo" mcpfile:"accept=image/png,maxSize=5MiB"`
	Extra *runtime.File `json:"extra,omitempty" mcpfile:"maxSize=5MiB,sniff=false"`
	Note  string        `json:"note,omitempty"`
}

// Question is the argument of a tool that elicits a Form.
type Question struct {
	Message string `json:"message,omitempty"`
}
