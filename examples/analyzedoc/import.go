package analyzedoc

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
)

// ImportTool is the import_archive tool.
var ImportTool = &mcp.Tool{
	Name: "import_archive",
	Description: "Ask the person using this client for a file to import (any type, up to 2 GiB), through an upload page in their browser, " +
		"and answer with its size and SHA-256 digest. Call it without arguments: the file goes from the browser straight to the server, " +
		"never through the conversation. A client that cannot show the page gets its link to give the person, and is told what to send " +
		"back when it calls again.",
}

// ImportArgs are the arguments of the import_archive tool. Archive is
// left out: the file is asked of the person, through an upload page. A
// client that cannot show the page gets the page's link as the result,
// for the model to pass on, and is told to call again with Archive set to
// the page's file URI: the call resolves it (waiting for an upload still
// running) before the handler runs.
type ImportArgs struct {
	// Archive: leave it out. Only when a result of this tool says so, the
	// mcp-file: URI it gives, to get the file uploaded through its page.
	Archive *runtime.File `json:"archive,omitempty" mcpfile:"maxSize=2GiB,transfer=upload"`
}

// Import is the structured answer of import_archive.
type Import struct {
	Action runtime.Action `json:"action,omitempty" jsonschema:"the person's answer to the upload page: accept, decline or cancel; none while the file is still to come"`
	File   *Analysis      `json:"file,omitempty" jsonschema:"accept: the uploaded file's name, media type, size and SHA-256, read from its bytes"`
	// Pending is the link result's text (a client without URL-mode
	// elicitation), for a host that shows its model the structured answer
	// alone: a tool with an output schema always has one.
	Pending string `json:"pending,omitempty" jsonschema:"while the file is still to come: the upload page's link to give the person, and how to call this tool again"`
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
// the person's answer, waits in ElicitUpload for the upload. A client
// without URL-mode elicitation gets the page's link as the first call's
// result, and its retry gets the file: from ElicitUpload in the same
// session, or as in.Archive when the model sent the page's file URI back.
func ImportArchive(ctx context.Context, req *mcp.CallToolRequest, in ImportArgs) (*mcp.CallToolResult, Import, error) {
	if in.Archive != nil {
		return imported(runtime.Accept, *in.Archive)
	}
	ans, pending, err := runtime.ElicitUpload[ArchiveUpload](ctx, req, importMessage, &runtime.ElicitOptions[ArchiveUpload]{Arg: "archive"})
	if pending != nil || err != nil {
		return pending, Import{Pending: textOf(pending)}, err // ask the client (input request, link), or fail the call
	}
	if ans.Action != runtime.Accept {
		text := "The person declined to upload a file; nothing was imported."
		if ans.Action == runtime.Cancel {
			text = "The person declined to upload a file (they dismissed the request); nothing was imported."
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, Import{Action: ans.Action}, nil
	}
	return imported(ans.Action, ans.Value.Archive)
}

// imported is import_archive's answer for the file f.
func imported(action runtime.Action, f runtime.File) (*mcp.CallToolResult, Import, error) {
	res, a, err := answer(f)
	if err != nil {
		return nil, Import{}, err
	}
	return res, Import{Action: action, File: &a}, nil
}

// textOf is the text of a result's first text block: "" for none (a
// result carrying input requests has no content).
func textOf(res *mcp.CallToolResult) string {
	if res != nil {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				return t.Text
			}
		}
	}
	return ""
}
