package files

import (
	"time"

	"github.com/mcpfile/mcpfile/runtime"
)

type DescribeImage struct {
	Image runtime.File `json:"image" jsonschema:"The image to describe." mcpfile:"accept=image/png|image/jpeg,maxSize=5MiB"`
}

// CompareInput is the input of the compare_documents tool.
type CompareInput struct {
	// Documents to compare, two to five PDFs or text files.
	Documents []runtime.File `json:"documents" mcpfile:"accept=application/pdf|text/plain,maxSize=10MiB,maxFiles=5"`
	// Original file name of the first document, as the user picked it.
	FirstName string        `json:"first_name,omitempty"`
	Cover     *runtime.File `json:"cover,omitempty" mcpfile:"accept=image/*,maxSize=512KiB,filename=cover_name"`
	CoverName string        `json:"cover_name,omitempty"`
	// Not used: the tag wins.
	Detail string         `json:"detail,omitempty" jsonschema:"how much detail to give"`
	Any    []runtime.File `json:"any" mcpfile:"sniff=false"`
}

// Documented shows doc comments becoming descriptions, down nested
// and embedded structs of this package.
type Documented struct {
	// The photo.
	Photo runtime.File `json:"photo,omitempty" mcpfile:""`
	Count int          `json:"count"` // how many
	// When it was taken.
	When time.Time `json:"when"`
	// Where it was taken.
	Where Place `json:"where"`
	Meta
}

type Place struct {
	// Latitude in degrees.
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon" jsonschema:"longitude"`
}

type Meta struct {
	// Who took it.
	Author string `json:"author,omitempty"`
	// Notes on it, <b>bold</b> & plain, escaped for HTML as encoding/json does.
	Notes string `json:"notes,omitempty"`
}

// AnalyzeDocument is SEP-2631's analyze_document tool.
type AnalyzeDocument struct {
	Document runtime.File `json:"document" jsonschema:"The document to analyze." mcpfile:"accept=application/pdf,maxSize=10MiB,transfer=upload|inline"`
}

// CompareDocuments is SEP-2631's compare_documents tool, with the
// transfer modes on the array's items.
type CompareDocuments struct {
	Documents []runtime.File `json:"documents" mcpfile:"accept=application/pdf|text/plain,maxSize=10MiB,minFiles=2,transfer=upload"`
}

// FileDataInput takes its files as Odeus FileData objects.
type FileDataInput struct {
	// The report to read.
	Report runtime.File `json:"report" mcpfile:"accept=application/pdf|text/plain,maxSize=10MiB,form=filedata"`
	// Pages to read them from, two to five.
	Pages []runtime.File `json:"pages,omitempty" mcpfile:"accept=image/*,form=filedata,minFiles=2,maxFiles=5"`
	Any   *runtime.File  `json:"any,omitempty" mcpfile:"form=filedata"`
}

// OpenAIInput takes its files as ChatGPT file objects (openai/fileParams).
type OpenAIInput struct {
	Image runtime.File  `json:"image" jsonschema:"The image to describe." mcpfile:"accept=image/png|image/jpeg,maxSize=5MiB,form=openai"`
	Mask  *runtime.File `json:"mask,omitempty" mcpfile:"form=openai,sniff=false"`
	Note  string        `json:"note"`
}
