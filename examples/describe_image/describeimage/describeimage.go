// Package describeimage is the describe_image example server: a tool that
// takes an image as a file argument and answers with its format, dimensions
// and SHA-256, all read from the decoded bytes. It has the tool three times,
// once for each shape a file arrives in: describe_image takes a data: URI
// (SEP-2356), describe_image_filedata an Odeus FileData object, and
// describe_image_chatgpt a ChatGPT file object, which the server fetches
// from the hosts [Options].Fetcher allows.
package describeimage

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/internal/imageinfo"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/fetch"
)

// ArgsSource is the source of the file that declares [Args], for the tour.
//
//go:embed args.go
var ArgsSource string

// Description is the answer of each tool.
type Description struct {
	// MediaType is the media type the client declared (in the data: URI,
	// the FileData object's mimeType, or the ChatGPT file object's
	// mime_type or else the download's Content-Type); the runtime has
	// checked the bytes against it.
	MediaType string `json:"mediaType"`
	imageinfo.Info
}

// Tool is the describe_image tool, which takes a data: URI.
var Tool = &mcp.Tool{
	Name:        "describe_image",
	Description: "Describe an image: its format, dimensions and SHA-256 digest.",
}

// FileDataTool is the describe_image_filedata tool, which takes an Odeus
// FileData object.
var FileDataTool = &mcp.Tool{
	Name:        "describe_image_filedata",
	Description: "Describe an image sent as a FileData object: its format, dimensions and SHA-256 digest.",
}

// ChatGPTTool is the describe_image_chatgpt tool, which takes a ChatGPT
// file object ({download_url, file_id}); runtime.AddTool lists its image
// argument in the tool's _meta["openai/fileParams"].
var ChatGPTTool = &mcp.Tool{
	Name:        "describe_image_chatgpt",
	Description: "Describe an image ChatGPT passes as a file: its format, dimensions and SHA-256 digest.",
}

// Options configures the server. The zero value fetches nothing.
type Options struct {
	// Fetcher downloads the images describe_image_chatgpt is sent as links,
	// from the hosts its allow-list names. Nil: the tool answers each call
	// with an error that says the server does not fetch files.
	Fetcher *fetch.Fetcher
}

// NewServer returns the describe_image server, with its three tools.
func NewServer(opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "describe_image", Version: "v0.1.0"}, nil)
	if opts.Fetcher != nil {
		runtime.UseFetcher(s, opts.Fetcher)
	}
	runtime.AddTool(s, Tool, Describe)
	runtime.AddTool(s, FileDataTool, DescribeFileData)
	runtime.AddTool(s, ChatGPTTool, DescribeChatGPT)
	return s
}

// MaxRequestBytes is the request body limit the server needs, the largest
// of its tools': a 5 MiB image is about 7 MB of base64, in a data: URI or a
// FileData object.
func MaxRequestBytes() (int64, error) {
	return runtime.MaxRequestBytes(Args{}.MCPSchema(), FileDataArgs{}.MCPSchema(), ChatGPTArgs{}.MCPSchema())
}

// Describe is the describe_image handler. The image has been decoded and
// checked (data: URI, at most 5 MiB, one of the accepted types, bytes
// matching the type) before it is called.
func Describe(_ context.Context, _ *mcp.CallToolRequest, args Args) (*mcp.CallToolResult, Description, error) {
	d, err := DescribeFile(args.Image)
	return nil, d, err
}

// DescribeFileData is the describe_image_filedata handler: the image came
// as a FileData object, and was checked as a data: URI is.
func DescribeFileData(_ context.Context, _ *mcp.CallToolRequest, args FileDataArgs) (*mcp.CallToolResult, Description, error) {
	d, err := DescribeFile(args.Image)
	return nil, d, err
}

// DescribeChatGPT is the describe_image_chatgpt handler: the image was
// fetched from its download_url, and checked as a data: URI is.
func DescribeChatGPT(_ context.Context, _ *mcp.CallToolRequest, args ChatGPTArgs) (*mcp.CallToolResult, Description, error) {
	d, err := DescribeFile(args.Image)
	return nil, d, err
}

// DescribeFile is the answer of each tool for img, a checked image; the
// mcp-go example (runtime/mcpgo/examples/describe_image) answers with it
// too. It reads the image through File.Open, which works for every file
// wherever its bytes are: it hashes the bytes in pieces and decodes the
// header only.
func DescribeFile(img runtime.File) (Description, error) {
	r, err := img.Open()
	if err != nil {
		return Description{}, err
	}
	defer r.Close()
	info, err := imageinfo.Inspect(r, r.Size())
	if err != nil {
		return Description{}, err
	}
	return Description{MediaType: img.MediaType, Info: info}, nil
}
