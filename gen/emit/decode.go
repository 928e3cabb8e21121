package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// decoderDecls renders the decoder of a type with file fields:
//
//	var mcpfileFieldsT = runtime.NewFields([]string{…every key…}, …file keys…)
//	var mcpfileDescT = [...]runtime.Descriptor{…one per file field…}
//	type mcpfileTypeT = T
//	func (t *T) UnmarshalJSON(b []byte) error { type T mcpfileTypeT; … }
//
// The runtime scans the object once, hands each file member's raw token to
// the switch and leaves the other members to encoding/json, which decodes
// them into the local type T: T's fields without T's methods, under T's name
// so that encoding/json's errors read as they would without the method. The
// generated file declares no struct type of its own, so nothing in it looks
// like a type to generate for.
func decoderDecls(t *model.Type) ([]jen.Code, error) {
	files := t.Files()
	fill := make([]jen.Code, 0, len(files))
	for _, f := range files {
		c, err := companion(f)
		if err != nil {
			return nil, err
		}
		if c != nil {
			fill = append(fill, c)
		}
	}
	return []jen.Code{
		fieldsVar(t, files),
		descriptorsVar(t, files),
		aliasDecl(t),
		unmarshalMethod(t, files, fill),
	}, nil
}

// The generated package-level names. No prefix is a prefix of another, so
// that the names of two types cannot collide (schemaName is in schema.go).
func fieldsName(t *model.Type) string { return "mcpfileFields" + t.Name }
func descName(t *model.Type) string   { return "mcpfileDesc" + t.Name }
func aliasName(t *model.Type) string  { return "mcpfileType" + t.Name }

// fieldsVar renders the key table the runtime matches object members with.
func fieldsVar(t *model.Type, files []*model.Field) jen.Code {
	keys := make([]jen.Code, len(t.Keys))
	for i, k := range t.Keys {
		keys[i] = jen.Lit(k)
	}
	args := []jen.Code{jen.Index().String().Values(keys...)}
	for _, f := range files {
		args = append(args, jen.Lit(f.JSONName))
	}
	return comment(
		fieldsName(t)+" matches the members of a JSON object to "+t.Name+"'s file fields",
		"as encoding/json matches members to fields.",
	).Var().Id(fieldsName(t)).Op("=").Qual(runtimePath, "NewFields").Call(args...)
}

// descriptorsVar renders the descriptors of the file fields, indexed like
// the runtime indexes them, one a line:
//
//	var mcpfileDescT = [...]runtime.Descriptor{
//		{Accept: []string{"image/*"}, MaxSize: 5242880}, // image
//	}
func descriptorsVar(t *model.Type, files []*model.Field) jen.Code {
	items := make([]jen.Code, len(files))
	for i, f := range files {
		items[i] = descriptor(f.File).Op(",").Comment(f.JSONName)
	}
	return comment(
		descName(t)+" holds the x-mcp-file constraints of "+t.Name+"'s file fields, in field order.",
	).Var().Id(descName(t)).Op("=").Index(jen.Op("...")).Qual(runtimePath, "Descriptor").
		Custom(jen.Options{Open: "{", Close: "}", Multi: true}, items...)
}

// descriptor renders one file field's runtime.Descriptor composite literal,
// without its type, on one line.
func descriptor(f *model.File) *jen.Statement {
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
	return jen.Values(elems...)
}

// aliasDecl renders the alias of T that its UnmarshalJSON declares the
// method-less local T with.
func aliasDecl(t *model.Type) jen.Code {
	return comment(
		aliasName(t) + " is " + t.Name + " for its UnmarshalJSON, whose local type " + t.Name + " shadows it.",
	).Type().Id(aliasName(t)).Op("=").Id(t.Name)
}

// unmarshalMethod renders T's UnmarshalJSON.
func unmarshalMethod(t *model.Type, files []*model.Field, fill []jen.Code) jen.Code {
	cases := make([]jen.Code, len(files))
	for i, f := range files {
		cases[i] = jen.Case(jen.Lit(i)).Block(fileCase(t, i, f)...)
	}
	body := []jen.Code{
		comment(
			"Without the methods of " + t.Name + ", so that encoding/json decodes it field by field.",
		).Type().Id(t.Name).Id(aliasName(t)),
		jen.List(jen.Id("rest"), jen.Err()).Op(":=").Qual(runtimePath, "ScanObject").Call(
			jen.Id("b"), jen.Id(fieldsName(t)),
			jen.Func().Params(jen.Id("i").Int(), jen.Id("v").Index().Byte()).Error().Block(
				jen.Switch(jen.Id("i")).Block(cases...),
				jen.Return(jen.Nil()),
			),
		),
		ifErrReturn(),
		jen.If(jen.Id("rest").Op("!=").Nil()).Block(
			jen.If(
				jen.Err().Op(":=").Qual(jsonPath, "Unmarshal").Call(
					jen.Id("rest"), jen.Parens(jen.Op("*").Id(t.Name)).Call(jen.Id("t")),
				),
				jen.Err().Op("!=").Nil(),
			).Block(jen.Return(jen.Err())),
		),
	}
	body = append(body, fill...)
	body = append(body, jen.Return(jen.Nil()))
	return comment(
		"UnmarshalJSON decodes b into t as encoding/json would, except that it decodes",
		"each file argument and checks it against its x-mcp-file constraints.",
	).Func().Params(jen.Id("t").Op("*").Id(t.Name)).Id("UnmarshalJSON").
		Params(jen.Id("b").Index().Byte()).Error().Block(body...)
}

func ifErrReturn() jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}

// fileCase renders the statements that decode the raw token v of the i-th
// file field f. A null leaves a runtime.File or string as it is and sets a
// pointer or slice to nil, as encoding/json does.
func fileCase(t *model.Type, i int, f *model.Field) []jen.Code {
	field := func() *jen.Statement { return jen.Id("t").Dot(f.GoName) }
	desc := jen.Id(descName(t)).Index(jen.Lit(i))
	arg := jen.Lit(f.JSONName)
	onNull := []jen.Code{jen.Return(jen.Nil())}
	if f.File.Kind != model.KindFile && f.File.Kind != model.KindString {
		onNull = []jen.Code{field().Op("=").Nil(), jen.Return(jen.Nil())}
	}
	stmts := []jen.Code{jen.If(jen.Qual(runtimePath, "IsNull").Call(jen.Id("v"))).Block(onNull...)}
	switch f.File.Kind {
	case model.KindFile:
		stmts = append(stmts, decodeOne("DecodeJSON", arg, jen.Id("v"), desc)...)
		stmts = append(stmts, field().Op("=").Id("x"))
	case model.KindString:
		stmts = append(stmts, decodeOne("ValidateJSON", arg, jen.Id("v"), desc)...)
		stmts = append(stmts, field().Op("=").Id("x"))
	case model.KindFilePointer, model.KindStringPointer:
		fn := "DecodeJSON"
		if f.File.Kind == model.KindStringPointer {
			fn = "ValidateJSON"
		}
		stmts = append(stmts, decodeOne(fn, arg, jen.Id("v"), desc)...)
		stmts = append(stmts, field().Op("=").Op("&").Id("x"))
	case model.KindFileSlice:
		stmts = append(stmts, decodeSlice(f, "DecodeJSON", jen.Qual(runtimePath, "File"), desc)...)
	case model.KindStringSlice:
		stmts = append(stmts, decodeSlice(f, "ValidateJSON", jen.String(), desc)...)
	}
	return append(stmts, jen.Return(jen.Nil()))
}

// decodeOne renders
//
//	x, err := runtime.<fn>(arg, tok, desc)
//	if err != nil {
//		return err
//	}
func decodeOne(fn string, arg, tok, desc jen.Code) []jen.Code {
	return []jen.Code{
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Qual(runtimePath, fn).Call(arg, tok, desc),
		ifErrReturn(),
	}
}

// decodeSlice renders the decoding of an array of files into a new slice
// that replaces the field's once every item passed; items are named
// "arg[i]" in errors.
func decodeSlice(f *model.Field, fn string, elem, desc jen.Code) []jen.Code {
	itemArg := jen.Lit(f.JSONName+"[").Op("+").Qual(strconvPath, "Itoa").Call(jen.Id("j")).Op("+").Lit("]")
	return []jen.Code{
		jen.Id("xs").Op(":=").Index().Add(elem).Values(),
		jen.If(
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual(runtimePath, "ScanArray").Call(
				jen.Lit(f.JSONName), jen.Id("v"), jen.Lit(f.File.MaxFiles),
				jen.Func().Params(jen.Id("j").Int(), jen.Id("item").Index().Byte()).Error().Block(
					append(decodeOne(fn, itemArg, jen.Id("item"), desc),
						jen.Id("xs").Op("=").Append(jen.Id("xs"), jen.Id("x")),
						jen.Return(jen.Nil()),
					)...,
				),
			),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Err())),
		jen.Id("t").Dot(f.GoName).Op("=").Id("xs"),
	}
}

// companion renders the copy of a file's companion filename into File.Name,
// sanitized, when the companion is not empty; nil when f has none. Strings
// passed through unchanged have no Name to fill.
func companion(f *model.Field) (jen.Code, error) {
	c := f.File.FilenameField
	if c == nil || f.File.Kind == model.KindString || f.File.Kind == model.KindStringPointer || f.File.Kind == model.KindStringSlice {
		return nil, nil
	}
	file := func() *jen.Statement { return jen.Id("t").Dot(f.GoName) }
	name := func() *jen.Statement { return jen.Id("t").Dot(c.GoName) }
	setName := func(s jen.Code) jen.Code {
		return file().Dot("Name").Op("=").Qual(runtimePath, "SanitizeName").Call(s)
	}
	switch {
	case f.File.Kind == model.KindFileSlice && isStringSlice(c.Type):
		// Item by item: the i-th name is the i-th file's.
		item := func() *jen.Statement { return name().Index(jen.Id("i")) }
		return jen.For(jen.Id("i").Op(":=").Range().Add(file())).Block(
			jen.If(jen.Id("i").Op("<").Len(name()).Op("&&").Add(item()).Op("!=").Lit("")).Block(
				file().Index(jen.Id("i")).Dot("Name").Op("=").Qual(runtimePath, "SanitizeName").Call(item()),
			),
		), nil
	case f.File.Kind == model.KindFile && isString(c.Type):
		// A decoded file always has a media type: an absent one gets no name.
		return jen.If(file().Dot("MediaType").Op("!=").Lit("").Op("&&").Add(name()).Op("!=").Lit("")).Block(setName(name())), nil
	case f.File.Kind == model.KindFilePointer && isString(c.Type):
		return jen.If(file().Op("!=").Nil().Op("&&").Add(name()).Op("!=").Lit("")).Block(setName(name())), nil
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
