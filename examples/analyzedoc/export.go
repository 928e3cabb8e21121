package analyzedoc

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// MaxReportSize is the largest report export_report makes: 256 MiB.
const MaxReportSize = 256 << 20

// ExportTool is the export_report tool.
var ExportTool = &mcp.Tool{
	Name: "export_report",
	Description: "Export a text/plain report of exactly size bytes (0 to 256 MiB), named after its title. " +
		"It comes back as a SEP-2631 file: a file content block and structuredContent.report, whose mcp-file: URI " +
		"files/authorizeDownload turns into a download URL. A client that did not declare files.download gets " +
		"the file embedded (up to 1 MiB) or a resource_link instead of the file block.",
	// The schema mcpfilegen wrote for Export, whose report is a FileValue.
	OutputSchema: Export{}.MCPSchema(),
}

// ExportArgs are the arguments of the export_report tool. It takes no
// file, so the SDK infers its schema; mcpfilegen has nothing to generate.
type ExportArgs struct {
	Title string `json:"title" jsonschema:"the report's title: its first line, and its file name with .txt"`
	Size  int64  `json:"size" jsonschema:"the report's size in bytes, from 0 to 268435456 (256 MiB)"`
}

// Export is the structured answer of export_report.
type Export struct {
	Report transfer.FileValue `json:"report" jsonschema:"the report: its mcp-file URI (for files/authorizeDownload), name, media type, size and SHA-256 digest"`
}

// ExportReport is the export_report handler. It streams the report into
// the store (transfer.Save with a Reader), so the server holds one buffer
// of it at a time whatever its size, and returns it as a file content
// block and as structuredContent.report. transfer.Register's middleware
// swaps the block for the standard fallback when the client did not
// declare files.download.
func ExportReport(ctx context.Context, _ *mcp.CallToolRequest, args ExportArgs) (*mcp.CallToolResult, Export, error) {
	if args.Size < 0 || args.Size > MaxReportSize {
		return nil, Export{}, fmt.Errorf("Argument 'size' is out of range: received %d, want 0 to %d bytes (256 MiB)", args.Size, MaxReportSize)
	}
	name := args.Title
	if name == "" {
		name = "report"
	}
	v, err := transfer.Save(ctx, transfer.Output{
		Name:      name + ".txt",
		MediaType: "text/plain",
		Reader:    newReport(args.Title, args.Size),
		Size:      args.Size,
	})
	if err != nil {
		return nil, Export{}, fmt.Errorf("saving the report: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{transfer.NewFileContent(v)}}, Export{Report: v}, nil
}

// A report reads as the text of a report of a given size: the title and a
// blank line, then numbered lines, cut at exactly size bytes. It makes
// each line as it is read.
type report struct {
	left    int64  // bytes still to give
	pending []byte // what is left of the current line
	line    int64
	buf     []byte // the current line
}

func newReport(title string, size int64) *report {
	return &report{left: size, pending: []byte(title + "\n\n")}
}

const reportLine = " the same line again, so that the report has the size asked for\n"

func (r *report) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		if len(r.pending) == 0 {
			r.line++
			r.buf = append(strconv.AppendInt(r.buf[:0], r.line, 10), reportLine...)
			r.pending = r.buf
		}
		k := copy(p[n:], r.pending)
		r.pending = r.pending[k:]
		n += k
	}
	r.left -= int64(n)
	return n, nil
}
