package runtime

import "github.com/modelcontextprotocol/go-sdk/mcp"

// HandlerFor returns the low-level handler that AddTool registers for t
// and h, for benchmarks that time it without the transport.
func HandlerFor[In, Out any, P Generated[In]](t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandler {
	_, th, _, err := toolFor[In, Out, P](nil, t, h)
	if err != nil {
		panic(err)
	}
	return th
}
