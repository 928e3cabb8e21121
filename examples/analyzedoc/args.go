package analyzedoc

import "github.com/mcpfile/mcpfile/runtime"

// AnalyzeArgs are the arguments of the analyze_document tool.
type AnalyzeArgs struct {
	// Document is the PDF or text file to analyze, of up to 1 GiB. It is
	// uploaded out of band: call files/authorizeUpload, send the bytes as
	// its descriptor says, and pass the mcp-file: URI it returned.
	Document runtime.File `json:"document" mcpfile:"accept=application/pdf|text/plain,maxSize=1GiB,transfer=upload"`
}

// ReadTextArgs are the arguments of the read_text tool.
type ReadTextArgs struct {
	// Text is the text file to read, of up to 5 MiB: inline as a data: URI,
	// or uploaded out of band.
	Text runtime.File `json:"text" mcpfile:"accept=text/plain,maxSize=5MiB,transfer=inline|upload"`
}

// ArchiveUpload is what the import_archive tool asks the person for,
// through an upload page in their browser (runtime.ElicitUpload): it is
// no tool's argument, so its file never travels in an MCP message.
type ArchiveUpload struct {
	// Archive is the file to import: any type, of up to 2 GiB, chosen by
	// the person on the upload page and sent from their browser.
	Archive runtime.File `json:"archive" mcpfile:"maxSize=2GiB"`
}
