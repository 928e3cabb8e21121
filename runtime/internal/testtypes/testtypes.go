// Package testtypes holds the argument and form types the runtime's tests
// register and elicit, with the code mcpfilegen generates for them, so that
// the tests of runtime.AddTool and runtime.Elicit run real generated
// decoders. (The runtime package cannot import code generated against it;
// its external tests can.)
package testtypes

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen -type BigArgs,BulkArgs,DocsArgs,DocumentArgs,ImageArgs,ManyArgs,HostArgs,NestedForm,PhotoForm,PageForm,PageArgs,ArchiveForm,ReportOut,ScanForm,UploadForm

import (
	"time"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// ImageArgs are the arguments of a tool that describes one small image.
type ImageArgs struct {
	// The image to describe.
	Image  runtime.File `json:"image" mcpfile:"accept=image/png|image/jpeg,maxSize=1KiB"`
	Detail int          `json:"detail,omitempty" jsonschema:"how detailed"`
}

// DocsArgs are the arguments of a tool that takes up to three documents
// with their file names.
type DocsArgs struct {
	Docs  []runtime.File `json:"docs" mcpfile:"accept=application/pdf|text/plain,maxSize=2KiB,maxFiles=3,filename=names"`
	Names []string       `json:"names,omitempty"`
}

// ManyArgs are the arguments of a tool that takes small files, as many as
// the runtime's default allows, with a note, a time (whose decoder quotes
// what it refuses) and anything at all (whose schema is true).
type ManyArgs struct {
	Files []runtime.File `json:"files" mcpfile:"maxSize=1KiB"`
	Note  string         `json:"note,omitempty"`
	When  *time.Time     `json:"when,omitempty"`
	Extra any            `json:"extra,omitempty"`
}

// BulkArgs are the arguments of a tool that takes up to a million small
// files, decoded or kept as URIs: a server that raised the default ceiling.
type BulkArgs struct {
	Files []runtime.File `json:"files,omitempty" mcpfile:"maxSize=1KiB,maxFiles=1000000"`
	URIs  []string       `json:"uris,omitempty" mcpfile:"maxSize=1KiB,maxFiles=1000000"`
}

// BigArgs are the arguments of a tool that takes any file of up to 5 MiB,
// unsniffed.
type BigArgs struct {
	Blob runtime.File `json:"blob" mcpfile:"maxSize=5MiB,sniff=false"`
}

// DocumentArgs are the arguments of a tool that takes a document of up to
// 1 GiB, uploaded out of band only (SEP-2631), with its file name.
type DocumentArgs struct {
	Document runtime.File `json:"document" mcpfile:"accept=application/pdf|text/plain,maxSize=1GiB,transfer=upload,filename=title"`
	Title    string       `json:"title,omitempty"`
}

// HostArgs are the arguments of a tool that takes files the way today's
// hosts send them: an Odeus FileData object, a ChatGPT file object, and a
// list of FileData objects.
type HostArgs struct {
	Photo runtime.File   `json:"photo" mcpfile:"accept=image/png|image/jpeg,maxSize=1KiB,form=filedata"`
	Doc   *runtime.File  `json:"doc,omitempty" mcpfile:"accept=application/pdf|text/plain,maxSize=4KiB,form=openai"`
	Pages []runtime.File `json:"pages,omitempty" mcpfile:"accept=text/plain,maxFiles=3,form=filedata"`
}

// ScanForm is an elicitation form with one scanned page, inline or
// uploaded.
type ScanForm struct {
	Scan runtime.File `json:"scan" jsonschema:"Scanned page" mcpfile:"accept=image/png,maxSize=64KiB,transfer=inline|upload"`
}

// UploadForm is an elicitation form with one document, uploaded only.
type UploadForm struct {
	Doc runtime.File `json:"doc" mcpfile:"accept=application/pdf,maxSize=100MiB,transfer=upload"`
}

// PhotoForm is an elicitation form with one photo.
type PhotoForm struct {
	Photo runtime.File `json:"photo" jsonschema:"Profile photo" mcpfile:"accept=image/*,maxSize=2KiB"`
}

// PageForm is what an upload page asks for: one PNG image or text file
// of up to 64 KiB.
type PageForm struct {
	File runtime.File `json:"file" mcpfile:"accept=image/png|text/plain,maxSize=64KiB"`
}

// PageArgs are the arguments of a tool that asks for a PageForm through
// an upload page: File is left out, but for the retry of a client that
// could not show the page, which sends back the page's file URI.
type PageArgs struct {
	File *runtime.File `json:"file,omitempty" mcpfile:"accept=image/png|text/plain,maxSize=64KiB,transfer=upload"`
}

// ArchiveForm is what an upload page asks for when any file will do, of
// up to 2 GiB.
type ArchiveForm struct {
	Archive runtime.File `json:"archive" mcpfile:"maxSize=2GiB"`
}

// ReportOut is a tool's output with a file in it: its MCPSchema is the
// tool's outputSchema.
type ReportOut struct {
	// The report, to download with files/authorizeDownload.
	Report transfer.FileValue `json:"report"`
	Lines  int                `json:"lines"`
}

// NestedForm is not flat: it cannot be elicited.
type NestedForm struct {
	Inner struct {
		X string `json:"x"`
	} `json:"inner"`
}
