package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// decoderDecls renders the decoder of a type with file fields:
//
//	var mcpfileObjectT = mcpfileimpl.NewObject(mcpfileSchemaT, []string{…every key…}, []string{…each file key…}, …unsniffed…)
//
//	func (t *T) UnmarshalJSON(b []byte) error {
//		type T mcpfileStructT_changed_run_go_generate
//		return mcpfileObjectT.Unmarshal(b, (*T)(t), mcpfileimpl.Into(&t.Image), …)
//	}
//
// The runtime scans the object once, decodes each file member into its
// target, checked against the x-mcp-file constraints it reads from the
// schema, and leaves the other members to encoding/json, which decodes them
// into the local type T: defined from the struct the staleness guard spells
// (guard), it has T's fields without T's methods, under T's name so
// that encoding/json's errors read as they would without the method. The
// generated file defines no struct type of its own, so nothing in it looks
// like a type to generate for. The file's head explains these names once
// (helpersComment).
func decoderDecls(t *model.Type) ([]jen.Code, error) {
	files := t.Files()
	targets := make([]jen.Code, len(files))
	for i, f := range files {
		c, err := target(f)
		if err != nil {
			return nil, err
		}
		targets[i] = c
	}
	return []jen.Code{
		objectVar(t, files),
		unmarshalMethod(t, targets),
	}, nil
}

// The generated package-level names. No prefix is a prefix of another, so
// that the names of two types cannot collide (schemaName is in schema.go,
// structName in guard.go).
func objectName(t *model.Type) string { return "mcpfileObject" + t.Name }

// objectVar renders the mcpfileimpl.Object of t, on one line: the schema,
// the key table the decoder matches object members with, the file fields'
// keys, and the keys of those without a content check:
//
//	var mcpfileObjectT = mcpfileimpl.NewObject(mcpfileSchemaT, []string{"image", "scan", "prompt"}, []string{"image", "scan"}, "scan")
//
// The constraints are the schema's alone, so that what a client reads in
// x-mcp-file is what the decoder enforces; the generated file does not
// spell them out twice.
func objectVar(t *model.Type, files []*model.Field) jen.Code {
	keys := make([]jen.Code, len(t.Keys))
	for i, k := range t.Keys {
		keys[i] = jen.Lit(k)
	}
	names := make([]jen.Code, len(files))
	var noSniff []jen.Code
	for i, f := range files {
		names[i] = jen.Lit(f.JSONName)
		if f.File.NoSniff {
			noSniff = append(noSniff, jen.Lit(f.JSONName))
		}
	}
	args := append([]jen.Code{jen.Id(schemaName(t.Name)), jen.Index().String().Values(keys...), jen.Index().String().Values(names...)}, noSniff...)
	return jen.Var().Id(objectName(t)).Op("=").Qual(implPath, "NewObject").Call(args...)
}

// unmarshalMethod renders T's UnmarshalJSON, all on one line: a list that
// spans lines costs the formatter a measuring pass per item.
func unmarshalMethod(t *model.Type, targets []jen.Code) jen.Code {
	args := append([]jen.Code{jen.Id("b"), jen.Parens(jen.Op("*").Id(t.Name)).Call(jen.Id("t"))}, targets...)
	return comment(
		"UnmarshalJSON decodes b into t as encoding/json would, except that it decodes",
		"each file argument and checks it against its x-mcp-file constraints.",
	).Func().Params(jen.Id("t").Op("*").Id(t.Name)).Id("UnmarshalJSON").
		Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Type().Id(t.Name).Id(structName(t.Name)),
		jen.Return(jen.Id(objectName(t)).Dot("Unmarshal").Call(args...)),
	)
}

// target renders the mcpfileimpl.Target of the file field f: Into, or
// IntoNamed with its companion filename field, whose value becomes
// File.Name. Strings passed through unchanged have no Name to fill.
func target(f *model.Field) (jen.Code, error) {
	field := jen.Op("&").Id("t").Dot(f.GoName)
	c := f.File.FilenameField
	if c == nil || f.File.Kind == model.KindString || f.File.Kind == model.KindStringPointer || f.File.Kind == model.KindStringSlice {
		return jen.Qual(implPath, "Into").Call(field), nil
	}
	switch {
	case f.File.Kind == model.KindFileSlice && isStringSlice(c.Type),
		f.File.Kind == model.KindFile && isString(c.Type),
		f.File.Kind == model.KindFilePointer && isString(c.Type):
		return jen.Qual(implPath, "IntoNamed").Call(field, jen.Op("&").Id("t").Dot(c.GoName)), nil
	}
	return nil, fmt.Errorf("field %s: no filename copy from %s (%s)", f.GoName, c.GoName, c.Type)
}

func isString(t types.Type) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Kind() == types.String
}

func isStringSlice(t types.Type) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	return ok && isString(s.Elem())
}
