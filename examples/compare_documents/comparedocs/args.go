package comparedocs

import "github.com/mcpfile/mcpfile/runtime"

// Args are the arguments of the compare_documents tool.
type Args struct {
	// Documents are the PDF or text files to compare, two to five of them.
	Documents []runtime.File `json:"documents" mcpfile:"accept=application/pdf|text/plain|text/markdown|.pdf|.txt|.md,maxSize=2MiB,maxFiles=5,filename=names"`
	// Names are the file names of the documents, in the same order.
	Names []string `json:"names,omitempty"`
}
