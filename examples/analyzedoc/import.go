package analyzedoc

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
)

// ImportTool is the import_archive tool.
var ImportTool = &mcp.Tool{
	Name: "import_archive",
	Description: "Ask the person using this client for a file to import (any type, up to 2 GiB), through an upload page in their browser " +
		"(a URL-mode elicitation), and answer with its size and SHA-256 digest. It takes no arguments: the file goes from the browser " +
		"straight to the server, never through the conversation.",
}

// ImportArgs are the arguments of the import_archive tool: none. The file
// is asked of the person, not of the model, so the SDK infers the schema
// of an empty object and mcpfilegen has nothing to generate for it.
type ImportArgs struct{}

// Import is the structured answer of import_archive.
type Import struct {
	Action runtime.Action `json:"action" jsonschema:"the person's answer to the upload page: accept, decline or cancel"`
	File   *Analysis      `json:"file,omitempty" jsonschema:"accept: the uploaded file's name, media type, size and SHA-256, read from its bytes"`
}

// importMessage is what the upload page says to the person.
const importMessage = "Please choose the archive to import (any type, up to 2 GiB)."

// ImportArchive is the import_archive handler. It asks for an
// [ArchiveUpload] through runtime.ElicitUpload, which serves the upload
// page (the server must serve uploads: transfer.Register, whose middleware
// gives every tools/call, of a tool added with mcp.AddTool too, what
// ElicitUpload needs), and reads the file as analyze_document does, through
// File.Open a buffer at a time: the upload goes to the store as it
// arrives, never into memory, however large.
//
// On protocol 2026-07-28 the handler runs twice: the first call returns
// the page as an input request (pending), and the client's retry, with
// the person's answer, waits in ElicitUpload for the upload.
func ImportArchive(ctx context.Context, req *mcp.CallToolRequest, _ ImportArgs) (*mcp.CallToolResult, Import, error) {
	ans, pending, err := runtime.ElicitUpload[ArchiveUpload](ctx, req, importMessage, nil)
	if pending != nil || err != nil {
		return pending, Import{}, err // ask the client (input request, -32042), or fail the call
	}
	if ans.Action != runtime.Accept {
		text := "The person declined to upload a file; nothing was imported."
		if ans.Action == runtime.Cancel {
			text = "The person declined to upload a file (they dismissed the request); nothing was imported."
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, Import{Action: ans.Action}, nil
	}
	res, a, err := answer(ans.Value.Archive)
	if err != nil {
		return nil, Import{}, err
	}
	return res, Import{Action: ans.Action, File: &a}, nil
}
