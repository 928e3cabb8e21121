package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// MaxRequestBytesFor returns the request body limit for s as its tools
// stand: [MaxRequestBytes] of the input schemas of the tools added to s
// with [AddTool] (and of the forms [Elicit] has sent for s), each counted
// together with every one of forms, the schemas of the forms its tools
// elicit: a 2026-07-28 client answers a form in the retry of the call, so
// one request carries the tool's files and the form's. Tools added with
// mcp.AddTool take no files and count nothing. Call it once the tools are
// added; package runtime/serve calls it for its handlers.
//
// It is an error when a form is not a generated object schema, or its
// x-mcp-file entries are malformed.
func MaxRequestBytesFor(s *mcp.Server, forms ...json.RawMessage) (int64, error) {
	var elicited int64
	for _, f := range forms {
		n, err := fileBytes(f)
		if err != nil {
			return 0, fmt.Errorf("runtime.MaxRequestBytesFor: form: %w", err)
		}
		elicited = addSat(elicited, n)
	}
	limit := max(int64(mcp.DefaultMaxRequestBodyBytes), addSat(EnvelopeBytes, elicited))
	for _, d := range hook.Schemas(s) {
		limit = max(limit, addSat(addSat(EnvelopeBytes, schemaBytes(d)), elicited))
	}
	return limit, nil
}
