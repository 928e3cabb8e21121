// Package analyzedoc is the analyze_document example server: files that
// travel out of band, as SEP-2631 uploads and downloads. Its
// analyze_document tool takes a PDF or text file of up to 1 GiB that the
// client must upload (files/authorizeUpload, then an HTTP POST beside the
// MCP connection), and its read_text tool a text file of up to 5 MiB,
// inline as a data: URI or uploaded. Both read the file through File.Open,
// a piece at a time, and answer with its size and SHA-256: the server's
// memory stays flat however large the file. Its export_report tool goes
// the other way: it makes a text file of up to 256 MiB, streamed into the
// store, which the client fetches with files/authorizeDownload and an HTTP
// GET (or, without files.download, receives embedded or as a
// resource_link). Its import_archive tool asks the person using the
// client for a file of any type, up to 2 GiB, through an upload page in
// their browser (runtime.ElicitUpload: a URL-mode elicitation, or, for a
// client without one, a link the model passes on), and answers with its
// size and SHA-256, read the same way.
package analyzedoc

//go:generate go run github.com/mcpfile/mcpfile/cmd/mcpfilegen

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// ArgsSource is the source of the file that declares the tools' arguments,
// for the tour.
//
//go:embed args.go
var ArgsSource string

// MCPPath is the path of the MCP endpoint in [Handler].
const MCPPath = "/mcp"

// Tools.
var (
	// AnalyzeTool is the analyze_document tool.
	AnalyzeTool = &mcp.Tool{
		Name:        "analyze_document",
		Description: "Analyze a PDF or text document of up to 1 GiB: its size and SHA-256 digest (and line count for text). The document must be uploaded: call files/authorizeUpload, upload the bytes, pass the returned mcp-file: URI.",
	}
	// ReadTextTool is the read_text tool.
	ReadTextTool = &mcp.Tool{
		Name:        "read_text",
		Description: "Read a text file of up to 5 MiB, inline (data: URI) or uploaded: its size, SHA-256 digest and line count.",
	}
)

// Options configure [NewServer] and [Handler]. PublicURL is required.
type Options struct {
	// PublicURL is the URL at which clients reach the transfer endpoints'
	// directory, such as "https://files.example.com/files/": uploads go to
	// PublicURL + "upload", downloads are GETs of PublicURL +
	// "download/<token>", and import_archive's upload pages are at
	// PublicURL + "page/<token>", opened in the person's browser (see
	// transfer.Options.PublicURL).
	PublicURL string
	// Keys seal upload tokens and file URIs. Nil means a random key: uploads
	// then work with this process only, and its file URIs stop verifying
	// when it ends.
	Keys *token.Keyring
	// Store is where uploaded files and exported reports go. Nil means the
	// transfer package's default store, a directory under the user's cache
	// directory.
	Store store.Store
	// ErrorLog, when set, also receives store failures as lines of text
	// (transfer.Options.ErrorLog); they are recorded through slog either
	// way. Nil means none.
	ErrorLog *log.Logger
	// Upload bounds uploads (transfer.Options.Upload): how slow one may
	// be, how many may be in progress. Its zero value means the transfer
	// package's defaults.
	Upload transfer.UploadOptions
}

// NewServer returns the analyze_document server, which serves
// files/authorizeUpload and files/authorizeDownload and resolves the file
// URIs it hands out, and the handler of its transfer endpoints (upload,
// download and upload pages), to mount where o.PublicURL reaches it.
// It fails when o.PublicURL is not an absolute http(s) URL, or the default
// store cannot be made.
func NewServer(o Options) (*mcp.Server, http.Handler, error) {
	keys := o.Keys
	if keys == nil {
		var err error
		if keys, err = token.NewKeyring(token.RandomKey()); err != nil {
			return nil, nil, err
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "analyze_document", Version: "v0.1.0"}, nil)
	// Before AddTool: it refuses an upload-only field on a server that does
	// not serve uploads.
	files, err := transfer.Register(s, transfer.Options{
		Keys: keys, PublicURL: o.PublicURL, Store: o.Store, ErrorLog: o.ErrorLog, Upload: o.Upload,
	})
	if err != nil {
		return nil, nil, err
	}
	runtime.AddTool(s, AnalyzeTool, Analyze)
	runtime.AddTool(s, ReadTextTool, ReadText)
	mcp.AddTool(s, ExportTool, ExportReport)      // no file argument: the SDK's AddTool
	runtime.AddTool(s, ImportTool, ImportArchive) // its file comes through an upload page
	return s, files, nil
}

// Handler returns what the command serves over HTTP: serve.Handler of
// the server, with the MCP endpoint at [MCPPath] for both protocol
// generations and request bodies of up to [MaxRequestBytes] (what its
// tools need), and the transfer endpoints (upload, download and upload
// pages) under the path of o.PublicURL (so a proxy in front must forward
// paths unchanged). An upload is not cut by the server's ReadTimeout
// while its bytes keep coming: the upload endpoint moves the read
// deadline with each read (transfer.UploadOptions.IdleTimeout); the
// server sets no WriteTimeout, so neither is a long download, nor a
// tools/call of import_archive that waits while the person uploads.
//
// serve.Handler sends 2026-07-28 requests to a stateless handler, where
// each request is a session of its own. import_archive works there for a
// client that declares elicitation.url (the page comes back as an input
// request, and the retry carries what it needs in requestState), and for
// one that does not: its result gives the page's link and tells the model
// to call again with the page's file URI as the archive argument.
func Handler(o Options) (http.Handler, error) {
	s, _, err := NewServer(o)
	if err != nil {
		return nil, err
	}
	return serve.Handler(s, serve.Options{Path: MCPPath}), nil
}

// MaxRequestBytes is the request body limit the server needs: read_text's
// inline 5 MiB is about 7 MB of base64; analyze_document's argument is a
// file URI whatever the file's size, as is import_archive's (its 2 GiB
// come through the upload page, and the elicitation's answer in a message
// is only its action); export_report's arguments hold no file.
func MaxRequestBytes() (int64, error) {
	return runtime.MaxRequestBytes(AnalyzeArgs{}.MCPSchema(), ReadTextArgs{}.MCPSchema(), ImportArgs{}.MCPSchema())
}

// Analysis is the answer of both tools, read from the file's bytes.
type Analysis struct {
	Name      string `json:"name,omitempty" jsonschema:"the file name the client declared, sanitized"`
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size" jsonschema:"the number of bytes read"`
	SHA256    string `json:"sha256" jsonschema:"SHA-256 of the bytes read, hex"`
	Lines     int64  `json:"lines,omitempty" jsonschema:"text: the number of lines"`
}

// String is the text the tools answer with:
// `notes.txt: text/plain, 3145728 bytes, sha256:…, 41000 lines`.
func (a Analysis) String() string {
	name := a.Name
	if name == "" {
		name = "(unnamed)"
	}
	s := fmt.Sprintf("%s: %s, %d bytes, sha256:%s", name, a.MediaType, a.Size, a.SHA256)
	if a.MediaType == "text/plain" {
		s += fmt.Sprintf(", %d lines", a.Lines)
	}
	return s
}

// Analyze is the analyze_document handler. The document has been resolved
// and checked (an uploaded file of this caller, at most 1 GiB, a PDF or
// text whose first bytes match) before it is called.
func Analyze(_ context.Context, _ *mcp.CallToolRequest, args AnalyzeArgs) (*mcp.CallToolResult, Analysis, error) {
	return answer(args.Document)
}

// ReadText is the read_text handler.
func ReadText(_ context.Context, _ *mcp.CallToolRequest, args ReadTextArgs) (*mcp.CallToolResult, Analysis, error) {
	return answer(args.Text)
}

// answer reads f through Open, which works for inline and uploaded files
// alike and holds one buffer of it at a time, never File.Bytes.
func answer(f runtime.File) (*mcp.CallToolResult, Analysis, error) {
	a, err := analyze(f)
	if err != nil {
		return nil, Analysis{}, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.String()}}}, a, nil
}

func analyze(f runtime.File) (Analysis, error) {
	r, err := f.Open()
	if err != nil {
		return Analysis{}, err
	}
	defer r.Close()
	h := sha256.New()
	var lines lineCounter
	n, err := io.CopyBuffer(io.MultiWriter(h, &lines), r, make([]byte, 64<<10))
	if err != nil {
		return Analysis{}, fmt.Errorf("reading the file: %w", err)
	}
	if n != f.Size() {
		return Analysis{}, errors.New("reading the file: it ended early")
	}
	a := Analysis{Name: f.Name, MediaType: f.MediaType, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	if f.MediaType == "text/plain" {
		a.Lines = lines.count(n)
	}
	return a, nil
}

// A lineCounter counts the newlines written to it and whether the last
// byte was one.
type lineCounter struct {
	newlines int64
	last     byte
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.newlines += int64(bytes.Count(p, newline))
		c.last = p[len(p)-1]
	}
	return len(p), nil
}

// count is the number of lines of a text of n bytes: a last line without
// a newline counts too.
func (c *lineCounter) count(n int64) int64 {
	if n > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

var newline = []byte{'\n'}
