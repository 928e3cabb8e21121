package interop

import (
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/compare_documents/comparedocs"
	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// target is a server the load and hostile tests run in-process, with the
// limits it declares.
type target struct {
	handler http.Handler
	maxBody int64 // the handler's request limit (serve.RequestLimit)

	imageTool, imageArg string // one file; the answer carries its SHA-256
	imageMax            int64  // x-mcp-file maxSize of imageArg

	docsTool, docsArg string // an array of files ("" when the server has none)
	namesArg          string // its companion filename array
	docsMaxFiles      int
}

// imageTarget is the describe_image example as its main serves it over
// HTTP (runtime/serve, its limit computed from the tools), with MCP at the
// root.
func imageTarget(t testing.TB) target {
	return serveTarget(t, describeimage.NewServer(describeimage.Options{}), target{
		imageTool: describeimage.Tool.Name, imageArg: "image", imageMax: 5 << 20,
	})
}

// bothTarget is one server with the describe_image and compare_documents
// tools of the examples, built from their exported parts, served with the
// larger of their request limits: the hostile cases need a single file and
// an array of files on one session.
func bothTarget(t testing.TB) target {
	s := mcp.NewServer(&mcp.Implementation{Name: "interop", Version: "v0"}, nil)
	runtime.AddTool(s, describeimage.Tool, describeimage.Describe)
	runtime.AddTool(s, comparedocs.Tool, comparedocs.Compare)
	tg := serveTarget(t, s, target{
		imageTool: describeimage.Tool.Name, imageArg: "image", imageMax: 5 << 20,
		docsTool: comparedocs.Tool.Name, docsArg: "documents", namesArg: "names", docsMaxFiles: 5,
	})
	if want := max(mcptest.Limit(t, describeimage.MaxRequestBytes), mcptest.Limit(t, comparedocs.MaxRequestBytes)); tg.maxBody != want {
		t.Fatalf("request limit %d, want %d, the larger of the two examples'", tg.maxBody, want)
	}
	return tg
}

// serveTarget fills in tg's handler, serve.Handler of s with MCP at "/",
// and its limit.
func serveTarget(t testing.TB, s *mcp.Server, tg target) target {
	o := serve.Options{Path: "/"}
	tg.handler, tg.maxBody = serve.Handler(s, o), serve.RequestLimit(s, o)
	return tg
}
