// Package good holds valid input types.
package good

import "github.com/mcpfile/mcpfile/runtime"

// CompareInput is the input of the
// compare_documents tool.
//
// It has two paragraphs.
type CompareInput struct {
	// Documents to compare, two to five PDFs or text files.
	Documents []runtime.File `json:"documents" mcpfile:"accept=application/pdf|text/plain,maxSize=10MiB,maxFiles=5"`
	// Original file name of the first document, as the user picked it.
	FirstName string        `json:"first_name,omitempty"`
	Cover     *runtime.File `json:"cover,omitempty" mcpfile:"accept=image/*,maxSize=512KiB,filename=cover_name"`
	CoverName string        `json:"cover_name,omitempty"` // the cover's file name
	// Ignored doc.
	Detail  string         `json:"detail,omitempty" jsonschema:"how much detail to give"`
	Names   []string       `json:"names,omitempty"`
	Shots   []runtime.File `json:"shots,omitzero" mcpfile:"filename=names,sniff=false"`
	URI     string         `json:"uri" mcpfile:""`
	PURI    *string        `mcpfile:"accept=.PDF"`
	URIs    []string       `json:"uris" mcpfile:"maxFiles=2"`
	secret  string
	Ignored int `json:"-"`
	Dash    int `json:"-,"`
	Common
	*Extra
}

type Common struct {
	ID   string `json:"id"`
	Note string `json:"note,omitempty"`
}

type Extra struct {
	ID   int `json:"id"`
	More bool
}

// Plain has no file fields; it is selected with -type.
type Plain struct {
	A int
}

type (
	// Grouped has its doc on the spec.
	Grouped struct {
		F runtime.File `mcpfile:""`
	}
)

// Transfer has a field of each kind with transfer modes.
type Transfer struct {
	Inline     runtime.File   `json:"inline" mcpfile:"transfer=inline"`
	Upload     runtime.File   `json:"upload" mcpfile:"accept=application/pdf,transfer=upload,filename=upload_name"`
	UploadName string         `json:"upload_name,omitempty"`
	Both       *runtime.File  `json:"both,omitempty" mcpfile:"transfer=inline|upload"`
	Swapped    []runtime.File `json:"swapped" mcpfile:"maxFiles=3,transfer=upload|inline"`
	Any        runtime.File   `json:"any" mcpfile:""`
	URI        string         `json:"uri" mcpfile:"transfer=inline"`
	URIs       []string       `json:"uris" mcpfile:"transfer=inline"`
}

// Forms has a field of each kind a form takes.
type Forms struct {
	Data    runtime.File   `json:"data" mcpfile:"accept=application/pdf,form=filedata"`
	PData   *runtime.File  `json:"p_data,omitempty" mcpfile:"form=filedata"`
	Datas   []runtime.File `json:"datas" mcpfile:"maxFiles=3,form=filedata"`
	OpenAI  runtime.File   `json:"openai" mcpfile:"form=openai,maxSize=1MiB"`
	POpenAI *runtime.File  `json:"p_openai,omitempty" mcpfile:"form=openai,sniff=false"`
	URI     runtime.File   `json:"uri" mcpfile:""`
}
