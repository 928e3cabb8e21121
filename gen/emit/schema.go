package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// schemaDecls renders the MCPSchema method of t and returns the constant
// that holds its schema, indented for a reader:
//
//	func (T) MCPSchema() json.RawMessage { return json.RawMessage(mcpfileSchemaT) }
//
//	const mcpfileSchemaT = `{ … }`
func schemaDecls(t *model.Type) (jen.Code, schemaConst, error) {
	if len(t.Schema) == 0 {
		return nil, schemaConst{}, fmt.Errorf("no schema")
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, t.Schema, "", "  "); err != nil {
		return nil, schemaConst{}, fmt.Errorf("schema: %v", err)
	}
	name := schemaName(t)
	doc := []string{"MCPSchema returns the JSON Schema of " + t.Name + ", computed by mcpfilegen,"}
	switch {
	case t.Output && len(t.Files()) == 0:
		doc = append(doc, "for mcp.Tool.OutputSchema (runtime.AddTool takes it when the tool's output is "+t.Name+").")
	case t.Flat:
		doc = append(doc, "for mcp.Tool.InputSchema or an elicitation's requestedSchema.")
	default:
		doc = append(doc, "for mcp.Tool.InputSchema.")
	}
	method := comment(doc...).
		Func().Params(jen.Id(t.Name)).Id("MCPSchema").Params().Qual(jsonPath, "RawMessage").
		Block(jen.Return(jen.Qual(jsonPath, "RawMessage").Call(jen.Id(name))))
	return method, schemaConst{name: name, lit: literal(buf.String())}, nil
}

func schemaName(t *model.Type) string { return "mcpfileSchema" + t.Name }

// schemaConst is the constant that holds a type's schema: its name and its
// value as a Go string literal.
//
// The schema is most of the generated file's bytes, and formatting it, a
// string literal, is a fifth of the formatter's time for nothing: gofmt
// writes a literal as it is, and a constant declaration of one name does not
// depend on its value. So File formats the declaration with an empty string
// (placeholder) and splices the literal in (splice); TestPieces checks
// that this gives the bytes of the file formatted with the literal in place.
type schemaConst struct{ name, lit string }

// decl renders the declaration with its value (the literal is a token, as
// jennifer has no raw string construct).
func (c schemaConst) decl() jen.Code { return jen.Const().Id(c.name).Op("=").Op(c.lit) }

// placeholder renders the declaration with an empty string for its value.
func (c schemaConst) placeholder() jen.Code { return jen.Const().Id(c.name).Op("=").Lit("") }

// splice returns src, formatted code with c's placeholder in it, with the
// placeholder's value replaced by c's.
func (c schemaConst) splice(src []byte) ([]byte, error) {
	decl := []byte("const " + c.name + ` = ""`)
	i := bytes.Index(src, decl)
	if j := i + len(decl); i < 0 || j < len(src) && src[j] != '\n' {
		return nil, fmt.Errorf("no %s placeholder in the formatted code", c.name)
	}
	i += len(decl) - len(`""`)
	return slices.Concat(src[:i], []byte(c.lit), src[i+len(`""`):]), nil
}
