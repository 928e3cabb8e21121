package emit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// schemaDecls renders the MCPSchema method of t and the constant that holds
// its schema, indented for a reader:
//
//	func (T) MCPSchema() json.RawMessage { return json.RawMessage(mcpfileSchemaT) }
//
//	const mcpfileSchemaT = `{ … }`
func schemaDecls(t *model.Type) ([]jen.Code, error) {
	if len(t.Schema) == 0 {
		return nil, fmt.Errorf("no schema")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, t.Schema, "", "  "); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	name := schemaName(t)
	doc := []string{"MCPSchema returns the JSON Schema of " + t.Name + ", computed by mcpfilegen,"}
	switch {
	case t.Flat:
		doc = append(doc, "for mcp.Tool.InputSchema or an elicitation's requestedSchema.")
	default:
		doc = append(doc, "for mcp.Tool.InputSchema.")
	}
	method := comment(doc...).
		Func().Params(jen.Id(t.Name)).Id("MCPSchema").Params().Qual(jsonPath, "RawMessage").
		Block(jen.Return(jen.Qual(jsonPath, "RawMessage").Call(jen.Id(name))))
	value := jen.Const().Id(name).Op("=").Add(rawString(buf.String()))
	return []jen.Code{method, value}, nil
}

func schemaName(t *model.Type) string { return "mcpfileSchema" + t.Name }
