// Package describeimage is the describe_image example server: one tool that
// takes an image as a file argument and answers with its format, dimensions
// and SHA-256, all read from the decoded bytes.
package describeimage

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/internal/imageinfo"
	"github.com/mcpfile/mcpfile/runtime"
)

// ArgsSource is the source of the file that declares [Args], for the tour.
//
//go:embed args.go
var ArgsSource string

// Description is the answer of describe_image.
type Description struct {
	// MediaType is the media type the client declared in the data: URI; the
	// runtime has checked the bytes against it.
	MediaType string `json:"mediaType"`
	imageinfo.Info
}

// Tool is the describe_image tool.
var Tool = &mcp.Tool{
	Name:        "describe_image",
	Description: "Describe an image: its format, dimensions and SHA-256 digest.",
}

// NewServer returns the describe_image server.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "describe_image", Version: "v0.1.0"}, nil)
	runtime.AddTool(s, Tool, Describe)
	return s
}

// MaxRequestBytes is the request body limit the server needs: a 5 MiB image
// is about 7 MB of base64.
func MaxRequestBytes() (int64, error) { return runtime.MaxRequestBytes(Args{}.MCPSchema()) }

// Describe is the describe_image handler. The image has been decoded and
// checked (data: URI, at most 5 MiB, one of the accepted types, bytes
// matching the type) before it is called. It reads the image through
// File.Open, which works for every file wherever its bytes are: it hashes
// the bytes in pieces and decodes the header only.
func Describe(_ context.Context, _ *mcp.CallToolRequest, args Args) (*mcp.CallToolResult, Description, error) {
	r, err := args.Image.Open()
	if err != nil {
		return nil, Description{}, err
	}
	defer r.Close()
	info, err := imageinfo.Inspect(r, r.Size())
	if err != nil {
		return nil, Description{}, err
	}
	return nil, Description{MediaType: args.Image.MediaType, Info: info}, nil
}
