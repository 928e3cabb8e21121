package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// decoderDecls renders the decoder of a type with file fields:
//
//	var mcpfileObjectT = runtime.NewObject([]string{…every key…}, …one runtime.FileField per file field…)
//	type mcpfileTypeT = T
//	func (t *T) UnmarshalJSON(b []byte) error {
//		type T mcpfileTypeT
//		return mcpfileObjectT.Unmarshal(b, (*T)(t), runtime.Into(&t.Image), …)
//	}
//
// The runtime scans the object once, decodes each file member into its
// target and leaves the other members to encoding/json, which decodes them
// into the local type T: T's fields without T's methods, under T's name so
// that encoding/json's errors read as they would without the method. The
// generated file declares no struct type of its own, so nothing in it looks
// like a type to generate for.
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
		aliasDecl(t),
		unmarshalMethod(t, targets),
	}, nil
}

// The generated package-level names. No prefix is a prefix of another, so
// that the names of two types cannot collide (schemaName is in schema.go).
func objectName(t *model.Type) string { return "mcpfileObject" + t.Name }
func aliasName(t *model.Type) string  { return "mcpfileType" + t.Name }

// objectVar renders the runtime.Object of t: the key table the runtime
// matches object members with, and the file fields, one a line:
//
//	var mcpfileObjectT = runtime.NewObject([]string{"image", "prompt"},
//		runtime.FileField{Key: "image", Descriptor: runtime.Descriptor{Accept: []string{"image/*"}, MaxSize: 5242880}},
//	)
func objectVar(t *model.Type, files []*model.Field) jen.Code {
	keys := make([]jen.Code, len(t.Keys))
	for i, k := range t.Keys {
		keys[i] = jen.Lit(k)
	}
	args := []jen.Code{jen.Index().String().Values(keys...)}
	for _, f := range files {
		args = append(args, jen.Line().Add(fileField(f)))
	}
	args = append(args, jen.Line())
	return comment(
		objectName(t)+" describes "+t.Name+" to its UnmarshalJSON: the members encoding/json",
		"decodes into it, and its file fields with their x-mcp-file constraints.",
	).Var().Id(objectName(t)).Op("=").Qual(runtimePath, "NewObject").Call(args...)
}

// fileField renders one file field's runtime.FileField composite literal
// on one line.
func fileField(f *model.Field) *jen.Statement {
	elems := []jen.Code{jen.Id("Key").Op(":").Lit(f.JSONName)}
	if f.File.MaxFiles > 0 {
		elems = append(elems, jen.Id("MaxFiles").Op(":").Lit(f.File.MaxFiles))
	}
	if d := descriptor(f.File); d != nil {
		elems = append(elems, jen.Id("Descriptor").Op(":").Qual(runtimePath, "Descriptor").Values(d...))
	}
	return jen.Qual(runtimePath, "FileField").Values(elems...)
}

// descriptor returns the elements of a file's runtime.Descriptor composite
// literal, nil when all are zero.
func descriptor(f *model.File) []jen.Code {
	var elems []jen.Code
	if len(f.Accept) > 0 {
		accept := make([]jen.Code, len(f.Accept))
		for i, a := range f.Accept {
			accept[i] = jen.Lit(a)
		}
		elems = append(elems, jen.Id("Accept").Op(":").Index().String().Values(accept...))
	}
	if f.MaxSize > 0 {
		elems = append(elems, jen.Id("MaxSize").Op(":").Lit(int(f.MaxSize)))
	}
	if f.NoSniff {
		elems = append(elems, jen.Id("NoSniff").Op(":").True())
	}
	return elems
}

// aliasDecl renders the alias of T that its UnmarshalJSON declares the
// method-less local T with.
func aliasDecl(t *model.Type) jen.Code {
	return comment(
		aliasName(t) + " is " + t.Name + " for its UnmarshalJSON, whose local type " + t.Name + " shadows it.",
	).Type().Id(aliasName(t)).Op("=").Id(t.Name)
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
		comment(
			"Without the methods of "+t.Name+", so that encoding/json decodes it field by field.",
		).Type().Id(t.Name).Id(aliasName(t)),
		jen.Return(jen.Id(objectName(t)).Dot("Unmarshal").Call(args...)),
	)
}

// target renders the runtime.Target of the file field f: runtime.Into, or
// runtime.IntoNamed with its companion filename field, whose value becomes
// File.Name. Strings passed through unchanged have no Name to fill.
func target(f *model.Field) (jen.Code, error) {
	field := jen.Op("&").Id("t").Dot(f.GoName)
	c := f.File.FilenameField
	if c == nil || f.File.Kind == model.KindString || f.File.Kind == model.KindStringPointer || f.File.Kind == model.KindStringSlice {
		return jen.Qual(runtimePath, "Into").Call(field), nil
	}
	switch {
	case f.File.Kind == model.KindFileSlice && isStringSlice(c.Type),
		f.File.Kind == model.KindFile && isString(c.Type),
		f.File.Kind == model.KindFilePointer && isString(c.Type):
		return jen.Qual(runtimePath, "IntoNamed").Call(field, jen.Op("&").Id("t").Dot(c.GoName)), nil
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
