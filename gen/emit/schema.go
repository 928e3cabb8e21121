package emit

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// A schemaUse is what a type's schema is for, as the doc comment of its
// MCPSchema method says.
type schemaUse int

const (
	inputSchema  schemaUse = iota // a tool's input
	formSchema                    // a tool's input or an elicitation's form
	outputSchema                  // a tool's output

	numSchemaUses = iota
)

// useOf returns what the schema of t is for.
func useOf(t *model.Type) schemaUse {
	switch {
	case t.Output && len(t.Files()) == 0:
		return outputSchema
	case t.Flat:
		return formSchema
	}
	return inputSchema
}

// schemaMethod renders the MCPSchema method of the type named name, which
// returns its schema's constant (schemaConst):
//
//	func (T) MCPSchema() json.RawMessage { return json.RawMessage(mcpfileSchemaT) }
func schemaMethod(name string, use schemaUse) jen.Code {
	doc := []string{"MCPSchema returns the JSON Schema of " + name + ", computed by mcpfilegen,"}
	switch use {
	case outputSchema:
		doc = append(doc, "for mcp.Tool.OutputSchema (runtime.AddTool takes it when the tool's output is "+name+").")
	case formSchema:
		doc = append(doc, "for mcp.Tool.InputSchema or an elicitation's requestedSchema.")
	default:
		doc = append(doc, "for mcp.Tool.InputSchema.")
	}
	return comment(doc...).
		Func().Params(jen.Id(name)).Id("MCPSchema").Params().Qual(jsonPath, "RawMessage").
		Block(jen.Return(jen.Qual(jsonPath, "RawMessage").Call(jen.Id(schemaName(name)))))
}

func schemaName(name string) string { return "mcpfileSchema" + name }

// schemaConst is the constant that holds a type's schema, indented for a
// reader: its name and the schema, compact JSON.
//
//	const mcpfileSchemaT = `{ … }`
//
// The schema is most of the generated file's bytes, and formatting it, a
// string literal, is a fifth of the formatter's time for nothing: gofmt
// writes a literal as it is, and a constant declaration of one name does not
// depend on its value. So File formats the declaration with an empty string
// (placeholder) and writes the literal in its place (appendLiteral);
// TestPieces checks that this gives the bytes of the file formatted with
// the literal in place.
type schemaConst struct {
	name   string
	schema []byte
}

// decl renders the declaration with its value (the literal is a token, as
// jennifer has no raw string construct): the code File's pieces must give
// once formatted (TestPieces).
func (c schemaConst) decl() (jen.Code, error) {
	lit, err := appendLiteral(nil, c.schema)
	if err != nil {
		return nil, err
	}
	return jen.Const().Id(c.name).Op("=").Op(string(lit)), nil
}

// placeholder renders the declaration with an empty string for its value,
// which gofmt spells placeholderValue.
func (c schemaConst) placeholder() jen.Code { return jen.Const().Id(c.name).Op("=").Lit("") }

const placeholderValue = `""`

// appendLiteral appends schema, compact JSON, indented, as a Go string
// literal (see literal): indenting adds only spaces and newlines, which do
// not change whether the literal can be a raw one.
func appendLiteral(dst, schema []byte) ([]byte, error) {
	if !bytesCanBeRaw(schema) {
		s, err := appendIndented(nil, schema)
		return strconv.AppendQuote(dst, string(s)), err
	}
	dst = append(dst, '`')
	dst, err := appendIndented(dst, schema)
	return append(dst, '`'), err
}

// appendIndented appends js, compact JSON, indented as
// json.Indent(dst, js, "", "  ") indents it: each element of an object or
// array on a line of its own, indented by two spaces a level, a space after
// each colon, and an empty object or array as {} or []. It does not check
// that js is JSON, as json.Indent does (most of its time): the schema
// phase wrote it (TestAppendIndented, FuzzAppendIndented). It fails only
// when the brackets or quotes of js do not pair up.
func appendIndented(dst, js []byte) ([]byte, error) {
	depth := 0
	for i := 0; i < len(js); i++ {
		switch c := js[i]; c {
		case '"':
			j := i + 1
			for j < len(js) && js[j] != '"' {
				if js[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(js) {
				return nil, fmt.Errorf("unclosed string")
			}
			dst = append(dst, js[i:j+1]...)
			i = j
		case '{', '[':
			if i+1 < len(js) && (js[i+1] == '}' || js[i+1] == ']') {
				dst = append(dst, c, js[i+1])
				i++
				continue
			}
			depth++
			dst = appendNewline(append(dst, c), depth)
		case '}', ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unmatched %q", c)
			}
			dst = append(appendNewline(dst, depth), c)
		case ',':
			dst = appendNewline(append(dst, ','), depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			j := i + 1
			for j < len(js) && !isJSONDelim(js[j]) {
				j++
			}
			dst = append(dst, js[i:j]...)
			i = j - 1
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unclosed object or array")
	}
	return dst, nil
}

func isJSONDelim(c byte) bool {
	switch c {
	case '"', '{', '[', '}', ']', ',', ':':
		return true
	}
	return false
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
