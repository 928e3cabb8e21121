package emit

import (
	"go/types"
	"io"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// guard renders the staleness guard of the struct type named name, which
// typ denotes in the generated file and whose fields st spells: the
// declarations that fail to compile once the type no longer is the struct
// the code was generated for:
//
//	var _ T = mcpfileStructT_changed_run_go_generate{}
//
//	type mcpfileStructT_changed_run_go_generate = struct {
//		Image runtime.File `json:"image" mcpfile:"accept=image/*"`
//	}
//
// A value of the struct type is assignable to T only if T's underlying
// type is identical to it: same fields in the same order, same names, types,
// embedding and tags (a conversion would ignore tags, an assignment does
// not). Unexported and embedded fields are spelled as in the source, which
// compiles since the guard lives in T's package. The compiler reports the
// assignment, under the comment that says what to do, and its message says
// it too, since it names the alias: "cannot use
// mcpfileStructT_changed_run_go_generate{} (value of struct type
// mcpfileStructT_changed_run_go_generate) as T value in variable
// declaration". The struct is declared apart rather than as the literal
// struct{…}{}: the formatter measures a value that spans lines by printing
// it once more.
func guard(name string, st, typ jen.Code) []jen.Code {
	return []jen.Code{guardVar(name, typ), guardStruct(name, st)}
}

// guardVar renders the variable of the staleness guard (see guard).
func guardVar(name string, typ jen.Code) jen.Code {
	return comment(
		"If this fails to compile, " + name + " changed since mcpfilegen ran: run go generate.",
	).Var().Id("_").Add(typ).Op("=").Id(structName(name)).Values()
}

// guardStruct renders the struct alias of the staleness guard (see guard).
func guardStruct(name string, st jen.Code) jen.Code {
	return jen.Type().Id(structName(name)).Op("=").Add(st)
}

// structOf renders the struct type of t's fields, with their tags, as the
// staleness guard of a selected type spells it.
func structOf(tw *typeWriter, t *model.Type) jen.Code {
	fields := make([]jen.Code, len(t.Fields))
	for i, f := range t.Fields {
		fields[i] = tw.field(f.GoName, f.Type, f.Embedded, f.Tag)
	}
	return jen.Struct(fields...)
}

// structName is the name of the alias of the struct type named name, as
// guard declares it: the compiler's message on a stale guard names it, so
// it says what to do. The suffix is the same for every name, which keeps
// the names of two types apart.
func structName(name string) string { return "mcpfileStruct" + name + "_changed_run_go_generate" }

// nestedGuards renders a guard like a selected type's, declarations in output
// order, for each struct type of
// the package that the fields of the selected types reach, through
// pointers, slices, maps, embedding and other structs: their schemas are
// part of the selected types'. Types of other packages are not guarded.
func nestedGuards(tw *typeWriter, selected []*model.Type) []jen.Code {
	seen := map[*types.TypeName]bool{}
	var found []*types.Named
	for _, t := range selected {
		if t.Named != nil {
			seen[t.Named.Obj()] = true
		}
	}
	var walk func(types.Type)
	walk = func(typ types.Type) {
		switch t := typ.(type) {
		case *types.Alias:
			walk(types.Unalias(t))
		case *types.Named:
			obj := t.Obj()
			if obj.Pkg() == nil || obj.Pkg().Path() != tw.pkgPath || seen[obj] {
				return
			}
			seen[obj] = true
			if _, ok := t.Underlying().(*types.Struct); ok {
				found = append(found, t)
				walk(t.Underlying())
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Struct:
			for i := range t.NumFields() {
				walk(t.Field(i).Type())
			}
		}
	}
	for _, t := range selected {
		for _, f := range t.Fields {
			walk(f.Type)
		}
	}
	slices.SortFunc(found, func(a, b *types.Named) int { return strings.Compare(a.String(), b.String()) })
	var guards []jen.Code
	for _, n := range found {
		guards = append(guards, guard(n.Obj().Name(), tw.struct_(n.Underlying().(*types.Struct)), tw.typ(n))...)
	}
	return guards
}

// typeWriter renders go/types types as Go source, qualifying names from other
// packages. With a file, it tells the file their package names; without, it
// notes the packages in imports, for File to tell the file later.
type typeWriter struct {
	file    *jen.File
	pkgPath string       // the generated file's package
	scope   *types.Scope // its package scope, with a file (see importAs)
	imports []*types.Package
}

// qual renders the name of an object of package pkg.
func (w *typeWriter) qual(pkg *types.Package, name string) *jen.Statement {
	if w.file != nil {
		importAs(w.file, w.scope, pkg)
	} else if !slices.Contains(w.imports, pkg) {
		w.imports = append(w.imports, pkg)
	}
	return jen.Qual(pkg.Path(), name)
}

// use tells the file the name of pkg and registers it as imported, by
// rendering a reference to it: code that names pkg may then be rendered
// with the file on several goroutines at once, as that only reads the file.
func (w *typeWriter) use(pkg *types.Package) error {
	importAs(w.file, w.scope, pkg)
	return jen.Qual(pkg.Path(), "X").RenderWithFile(io.Discard, w.file)
}

// field renders one struct field with its raw tag.
func (w *typeWriter) field(name string, typ types.Type, embedded bool, tag string) jen.Code {
	s := jen.Null()
	if !embedded {
		s.Id(name)
	}
	s.Add(w.typ(typ))
	if tag != "" {
		s.Op(literal(tag)) // jennifer has no raw string construct: the literal is a token
	}
	return s
}

// typ renders a type expression denoting typ.
func (w *typeWriter) typ(typ types.Type) jen.Code {
	switch t := typ.(type) {
	case *types.Basic:
		return w.basic(t)
	case *types.Named:
		return w.name(t.Obj(), t.TypeArgs())
	case *types.Alias:
		return w.name(t.Obj(), t.TypeArgs())
	case *types.TypeParam:
		return jen.Id(t.Obj().Name())
	case *types.Pointer:
		return jen.Op("*").Add(w.typ(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(w.typ(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(w.typ(t.Elem()))
	case *types.Map:
		return jen.Map(w.typ(t.Key())).Add(w.typ(t.Elem()))
	case *types.Chan:
		return w.chan_(t)
	case *types.Signature:
		return jen.Func().Add(w.signature(t))
	case *types.Struct:
		return w.struct_(t)
	case *types.Interface:
		return w.interface_(t)
	}
	// Unions and tuples are no field types; go/types has nothing else.
	panic("emit: unexpected field type " + typ.String())
}

// basic renders a predeclared type, or unsafe.Pointer.
func (w *typeWriter) basic(t *types.Basic) jen.Code {
	if t.Kind() == types.UnsafePointer {
		return w.qual(types.Unsafe, "Pointer")
	}
	return jen.Id(t.Name())
}

// name renders a named type or alias, with its type arguments.
func (w *typeWriter) name(obj *types.TypeName, args *types.TypeList) jen.Code {
	var s *jen.Statement
	if pkg := obj.Pkg(); pkg == nil || pkg.Path() == w.pkgPath {
		s = jen.Id(obj.Name())
	} else {
		s = w.qual(pkg, obj.Name())
	}
	if args.Len() == 0 {
		return s
	}
	codes := make([]jen.Code, args.Len())
	for i := range codes {
		codes[i] = w.typ(args.At(i))
	}
	return s.Types(codes...)
}

// chan_ renders a channel type, parenthesizing a receive-only element of a
// bidirectional channel (chan (<-chan int)).
func (w *typeWriter) chan_(t *types.Chan) jen.Code {
	elem := w.typ(t.Elem())
	switch t.Dir() {
	case types.SendOnly:
		return jen.Chan().Op("<-").Add(elem)
	case types.RecvOnly:
		return jen.Op("<-").Chan().Add(elem)
	}
	if e, ok := t.Elem().(*types.Chan); ok && e.Dir() == types.RecvOnly {
		return jen.Chan().Parens(elem)
	}
	return jen.Chan().Add(elem)
}

// signature renders parameters and results; names do not matter to identity.
func (w *typeWriter) signature(t *types.Signature) jen.Code {
	params := make([]jen.Code, t.Params().Len())
	for i := range params {
		p := t.Params().At(i).Type()
		if t.Variadic() && i == len(params)-1 {
			params[i] = jen.Op("...").Add(w.typ(p.(*types.Slice).Elem()))
			continue
		}
		params[i] = w.typ(p)
	}
	s := jen.Params(params...)
	switch n := t.Results().Len(); n {
	case 0:
	case 1:
		s.Add(w.typ(t.Results().At(0).Type()))
	default:
		results := make([]jen.Code, n)
		for i := range results {
			results[i] = w.typ(t.Results().At(i).Type())
		}
		s.Params(results...)
	}
	return s
}

// struct_ renders a struct type literal with its fields' tags.
func (w *typeWriter) struct_(t *types.Struct) jen.Code {
	fields := make([]jen.Code, t.NumFields())
	for i := range fields {
		f := t.Field(i)
		fields[i] = w.field(f.Name(), f.Type(), f.Embedded(), t.Tag(i))
	}
	return jen.Struct(fields...)
}

// interface_ renders an interface type literal: embedded types, then methods.
func (w *typeWriter) interface_(t *types.Interface) jen.Code {
	var items []jen.Code
	for i := range t.NumEmbeddeds() {
		items = append(items, w.typ(t.EmbeddedType(i)))
	}
	for i := range t.NumExplicitMethods() {
		m := t.ExplicitMethod(i)
		items = append(items, jen.Id(m.Name()).Add(w.signature(m.Type().(*types.Signature))))
	}
	return jen.Interface(items...)
}
