// Package emit renders the Go file mcpfilegen writes for one package: for
// each selected type its precomputed schema, its decoder and the guards that
// keep the generated code in step with the struct and with the runtime.
//
// It reads the model only and decides nothing about the user's input: every
// check on tags and types happened before. What is emitted is built with
// jennifer, one small function per construct, and formatted in process.
package emit

import (
	"bytes"
	"fmt"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/internal/par"
	"github.com/mcpfile/mcpfile/gen/model"
)

// GenVersion is the version of the contract between generated code and the
// runtime packages that this emitter writes; the runtime accepts generated
// code from runtime.MinGenVersion to runtime.GenVersion. Version 4 decodes
// with runtime/mcpfileimpl, the package for generated code.
const GenVersion = 4

const (
	runtimePath = "github.com/mcpfile/mcpfile/runtime"
	implPath    = "github.com/mcpfile/mcpfile/runtime/mcpfileimpl"
	jsonPath    = "encoding/json"
)

// The packages the emitter's own code names.
var (
	runtimePkg = types.NewPackage(runtimePath, "runtime")
	implPkg    = types.NewPackage(implPath, "mcpfileimpl")
	jsonPkg    = types.NewPackage(jsonPath, "json")
)

// File returns the generated Go file of p: staleness guards for the struct
// types of p's package that the selected types use, then the selected types
// sorted by name, each with a staleness guard, its MCPSchema method and its
// UnmarshalJSON method when it has file fields; the file starts with the line
// model.GeneratedComment and is gofmt'd. An error means the emitter itself is
// wrong ("internal error: …").
//
// Each type's code is built, rendered and formatted apart from the others,
// in parallel (formatting is most of the emitter's time): gofmt puts exactly
// one blank line between top-level declarations that start with a doc
// comment, so the formatted pieces joined with one blank line are the bytes
// format.Source gives for the whole file (TestPieces). Of a type's code,
// only what depends on more than its name is formatted for it (typeCode);
// the declarations that differ from one type to another only by the name
// are formatted once for the file (namedDecls), and the schemas not at all
// (schemaConst). A type's declarations are dropped as soon as its piece is
// formatted, so that what the emitter holds at once is the pieces formatted
// so far and the few being made, not every type's syntax.
func File(p *model.Package) ([]byte, error) {
	f, ts, named, err := plan(p)
	if err != nil {
		return nil, err
	}
	var head bytes.Buffer
	if err := f.Render(&head); err != nil { // formats
		return nil, fmt.Errorf("internal error: generated invalid Go for package %s: %v", p.Name, err)
	}
	nd, err := formatNamed(f)
	if err != nil {
		return nil, err
	}
	pieces := make([][]byte, len(ts))
	if err := par.Each(len(ts), func(i int) error {
		src, err := formatPiece(f, p.Path, named, nd, ts[i])
		pieces[i] = src
		return err
	}); err != nil {
		return nil, err
	}
	n := head.Len()
	for _, src := range pieces {
		n += len(src) + 2
	}
	out := make([]byte, 0, n)
	out = append(out, head.Bytes()...)
	for _, src := range pieces {
		out = append(append(append(out, '\n'), src...), '\n')
	}
	return out, nil
}

// formatPiece returns the code of t formatted: its own declarations
// (typeCode) rendered with f, the file plan made, and formatted, with the
// declarations of nd, formatted for f, and the schema's literal written in
// between, in output order. named holds the import paths of the packages f
// was told of, which the declarations may name.
func formatPiece(f *jen.File, pkgPath string, named map[string]bool, nd *namedDecls, t *model.Type) ([]byte, error) {
	tw := &typeWriter{pkgPath: pkgPath}
	tc, err := typeCode(tw, t)
	if err != nil {
		return nil, fmt.Errorf("internal error: cannot generate %s: %v", t.Name, err)
	}
	for _, pkg := range tw.imports {
		if !named[pkg.Path()] {
			// Rendering would register it with f, which other
			// goroutines are reading.
			return nil, fmt.Errorf("internal error: code of %s names package %s, which is not imported", t.Name, pkg.Path())
		}
	}
	var buf bytes.Buffer
	if err := decls(append([]jen.Code{tc.guard}, tc.decoder...)).RenderWithFile(&buf, f); err != nil { // formats
		return nil, fmt.Errorf("internal error: generated invalid Go for %s: %v", t.Name, err)
	}
	alias, decoder := bytes.TrimSpace(buf.Bytes()), []byte(nil)
	if len(tc.decoder) > 0 {
		// The decoder starts with its Object's variable. A tag in the
		// guard's struct may span lines and spell anything; the
		// decoder's literals span none: the last such line is its.
		i := bytes.LastIndex(alias, []byte("\n\nvar "+objectName(t)+" = "))
		if i < 0 {
			return nil, fmt.Errorf("internal error: no %s in the formatted code of %s", objectName(t), t.Name)
		}
		alias, decoder = alias[:i], alias[i+2:]
	}
	use := useOf(t)
	src := make([]byte, 0, len(buf.Bytes())+nd.len(t.Name, use)+2*len(t.Schema)+8)
	src = nd.guard.append(src, t.Name)
	src = append(append(src, "\n\n"...), alias...)
	src = nd.schema[use].append(append(src, "\n\n"...), t.Name)
	if src, err = appendLiteral(src, t.Schema); err != nil {
		return nil, fmt.Errorf("internal error: the schema of %s: %v", t.Name, err)
	}
	if decoder != nil {
		src = append(append(src, "\n\n"...), decoder...)
	}
	return src, nil
}

// namedDecls is the code of each type that differs from one type to another
// by the type's name only, formatted once for a file, with nameHole for the
// name, and split where the name goes: the variable of its staleness guard
// (guardVar), and its MCPSchema method (schemaMethod) followed by its
// schema's constant up to the value, for each use of a schema. gofmt lays
// this code out the same whatever the name: no part of it is aligned with
// another line, go/printer breaks no line for its length, and it keeps a
// function body that jennifer writes on lines of its own on them
// (TestPieces compares the file with the whole formatted at once, for
// names of several lengths).
type namedDecls struct {
	guard  namedCode
	schema [numSchemaUses]namedCode
}

// nameHole is the name namedDecls formats the code with: an identifier that
// the code does not otherwise spell.
const nameHole = "mcpfileTypeName"

// namedCode is formatted code split where a type's name goes.
type namedCode [][]byte

// append appends the code with name in its holes.
func (c namedCode) append(dst []byte, name string) []byte {
	for i, part := range c {
		if i > 0 {
			dst = append(dst, name...)
		}
		dst = append(dst, part...)
	}
	return dst
}

// len returns the length of the code of the type named name whose schema
// is for use.
func (nd *namedDecls) len(name string, use schemaUse) int {
	n := 0
	for _, c := range []namedCode{nd.guard, nd.schema[use]} {
		for _, part := range c {
			n += len(part)
		}
		n += (len(c) - 1) * len(name)
	}
	return n
}

// formatNamed renders and formats the code of namedDecls with f.
func formatNamed(f *jen.File) (*namedDecls, error) {
	format := func(ds ...jen.Code) (namedCode, error) {
		var buf bytes.Buffer
		if err := decls(ds).RenderWithFile(&buf, f); err != nil { // formats
			return nil, fmt.Errorf("internal error: generated invalid Go: %v", err)
		}
		return bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte(nameHole)), nil
	}
	nd := &namedDecls{}
	var err error
	if nd.guard, err = format(guardVar(nameHole, jen.Id(nameHole))); err != nil {
		return nil, err
	}
	for use := range nd.schema {
		c := schemaConst{name: schemaName(nameHole)}
		code, err := format(schemaMethod(nameHole, schemaUse(use)), c.placeholder())
		if err != nil {
			return nil, err
		}
		last := code[len(code)-1]
		if !bytes.HasSuffix(last, []byte(" = "+placeholderValue)) {
			return nil, fmt.Errorf("internal error: the formatted schema constant ends %q", last)
		}
		code[len(code)-1] = last[:len(last)-len(placeholderValue)]
		nd.schema[use] = code
	}
	return nd, nil
}

// plan returns the selected types of p sorted by name, and the file their
// code goes in: its head holds the build constraint, the package clause,
// the version guard, the comment on the generated names and the nested
// guards, and every package the types' code names is registered in it as
// imported, in the order the code names them, which decides the names of
// packages that share one. Rendering with f then only reads it, which lets
// the pieces render on several goroutines at once; named holds the import
// paths of those packages.
//
// The packages a type's code names, beyond those the emitter always
// imports, are those of its fields' types, which its staleness guard spells
// (guard): plan renders the types to find them, and leaves the rest
// of each type's code for File to build when it formats it.
func plan(p *model.Package) (f *jen.File, ts []*model.Type, named map[string]bool, err error) {
	ts = slices.Clone(p.Types)
	slices.SortFunc(ts, func(a, b *model.Type) int { return strings.Compare(a.Name, b.Name) })
	imports := make([][]*types.Package, len(ts))
	par.Each(len(ts), func(i int) error {
		tw := &typeWriter{pkgPath: p.Path}
		for _, f := range ts[i].Fields {
			tw.typ(f.Type)
		}
		imports[i] = tw.imports
		return nil
	})

	scope := packageScope(ts)
	f = newFile(p, scope)
	head := &typeWriter{file: f, pkgPath: p.Path, scope: scope}
	f.Add(versionGuard(GenVersion))
	f.Line()
	f.Add(helpersComment())
	for _, g := range nestedGuards(head, ts) {
		f.Line()
		f.Add(g)
	}
	used := []*types.Package{runtimePkg}
	if len(ts) > 0 {
		used = append(used, jsonPkg)
	}
	for _, t := range ts {
		if len(t.Files()) > 0 {
			used = append(used, implPkg)
			break
		}
	}
	for _, pkgs := range imports {
		used = append(used, pkgs...)
	}
	named = map[string]bool{}
	for _, pkg := range used {
		if named[pkg.Path()] {
			continue
		}
		named[pkg.Path()] = true
		if err := head.use(pkg); err != nil {
			return nil, nil, nil, fmt.Errorf("internal error: cannot import %s: %v", pkg.Path(), err)
		}
	}
	return f, ts, named, nil
}

// ownCode is the code of a type that depends on more than its name (see
// namedDecls): the struct of its staleness guard (guardStruct) and, when
// it has file fields, its decoder (decoderDecls).
type ownCode struct {
	guard   jen.Code
	decoder []jen.Code
}

// decls renders declarations one after the other, a blank line apart. The
// first starts the first line: format.Source indents a fragment's result as
// its first line of code is.
func decls(ds []jen.Code) *jen.Statement {
	s := jen.Null()
	for i, d := range ds {
		if i > 0 {
			s.Line().Line()
		}
		s.Add(d)
	}
	return s
}

// newFile starts the generated file of p, with the header line, the build
// constraint of p's types and the names of the imports the emitter always
// uses; scope is p's package scope.
func newFile(p *model.Package, scope *types.Scope) *jen.File {
	f := jen.NewFilePathName(p.Path, p.Name)
	header := model.GeneratedComment
	if p.Constraint != "" {
		// Apart from the first line, and from the package clause: the go
		// command reads a //go:build line anywhere before the clause,
		// gofmt leaves it where it is, and a blank line keeps it out of
		// the package's doc.
		header += "\n\n//go:build " + p.Constraint
	}
	f.HeaderComment(header) // starting with "//", written as is
	importAs(f, scope, runtimePkg)
	importAs(f, scope, jsonPkg)
	importAs(f, scope, implPkg)
	return f
}

// importAs tells f the name to import pkg under: its package name, or, when
// the generated file's package declares that name itself (a variable json,
// a function runtime), the name prefixed with mcpfile, as the package
// leaves such names to generated code. An import and a package-level
// declaration of one name do not compile together.
func importAs(f *jen.File, scope *types.Scope, pkg *types.Package) {
	if scope != nil && scope.Lookup(pkg.Name()) != nil {
		f.ImportAlias(pkg.Path(), "mcpfile"+pkg.Name())
		return
	}
	f.ImportName(pkg.Path(), pkg.Name())
}

// packageScope returns the scope of the package of the types ts, nil when
// there are none.
func packageScope(ts []*model.Type) *types.Scope {
	for _, t := range ts {
		if t.Named != nil && t.Named.Obj().Pkg() != nil {
			return t.Named.Obj().Pkg().Scope()
		}
	}
	return nil
}

// typeCode returns the code of t that depends on more than its name.
func typeCode(tw *typeWriter, t *model.Type) (ownCode, error) {
	if len(t.Schema) == 0 {
		return ownCode{}, fmt.Errorf("no schema")
	}
	tc := ownCode{guard: guardStruct(t.Name, structOf(tw, t))}
	if len(t.Files()) == 0 {
		return tc, nil
	}
	dec, err := decoderDecls(t)
	if err != nil {
		return ownCode{}, err
	}
	tc.decoder = dec
	return tc, nil
}

// versionGuard renders the constant conversions that overflow, and so fail
// to compile, when the runtime package does not accept code of version v:
//
//	func _() {
//		type mcpfileRuntimeTooOld_update_mcpfile_or_run_go_generate = runtime.EnforceVersion
//		type mcpfileCodeTooOld_run_go_generate = runtime.EnforceVersion
//		const (
//			_ = mcpfileRuntimeTooOld_update_mcpfile_or_run_go_generate(runtime.GenVersion - 3)
//			_ = mcpfileCodeTooOld_run_go_generate(3 - runtime.MinGenVersion)
//		)
//	}
//
// The compiler's message on an overflowing conversion names the type
// converted to ("constant -1 overflows
// mcpfileCodeTooOld_run_go_generate"), so the aliases say what to do: when
// the runtime is older than the code, update the module or regenerate with
// the generator of the module's version (go tool mcpfilegen is); when it is
// newer, regenerate. Declared in a function, the aliases cannot collide
// with the names of the package or of another generated file.
func versionGuard(v int) jen.Code {
	const (
		tooOld = "mcpfileRuntimeTooOld_update_mcpfile_or_run_go_generate"
		tooNew = "mcpfileCodeTooOld_run_go_generate"
	)
	enforce := func(alias string, x jen.Code) jen.Code {
		return jen.Id("_").Op("=").Id(alias).Call(x)
	}
	return comment(
		"The runtime package must accept code generated for version "+fmt.Sprint(v)+": if it does not,",
		"a conversion below overflows, and the compiler's message names what to do.",
	).Func().Id("_").Params().Block(
		jen.Type().Id(tooOld).Op("=").Qual(runtimePath, "EnforceVersion"),
		jen.Type().Id(tooNew).Op("=").Qual(runtimePath, "EnforceVersion"),
		jen.Const().Defs(
			enforce(tooOld, jen.Qual(runtimePath, "GenVersion").Op("-").Lit(v)),
			enforce(tooNew, jen.Lit(v).Op("-").Qual(runtimePath, "MinGenVersion")),
		),
	)
}

// helpersComment renders, once in the file's head, what the unexported
// names generated for each type are, so that each type's code does not
// explain them again.
func helpersComment() jen.Code {
	return comment(
		"For each struct type T below, mcpfileStructT_changed_run_go_generate is T as mcpfilegen",
		"saw it, which T must still be (the compiler's message on a stale guard names it), and",
		"mcpfileSchemaT is T's JSON Schema. A type with file fields also has mcpfileObjectT, the",
		"mcpfileimpl.Object its UnmarshalJSON decodes with: the members encoding/json decodes into",
		"T, which of them are files, and the schema, whose x-mcp-file entries are the constraints",
		"the files are checked against. UnmarshalJSON declares a local type T from",
		"mcpfileStructT_changed_run_go_generate: T's fields without T's methods, so that",
		"encoding/json decodes the other members field by field.",
	)
}

// comment renders a comment of one line per argument, above what follows it.
func comment(lines ...string) *jen.Statement {
	s := jen.Null()
	for _, l := range lines {
		s.Comment(l).Line()
	}
	return s
}

// literal returns s as a Go string literal: a raw one when it can be one
// (no backquote, no carriage return, no control character but tab and
// newline, valid UTF-8), an interpreted one otherwise.
func literal(s string) string {
	if !canBeRaw(s) {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

func canBeRaw(s string) bool {
	for _, r := range s {
		if !rawRune(r) {
			return false
		}
	}
	return true
}

// bytesCanBeRaw is canBeRaw for bytes.
func bytesCanBeRaw(b []byte) bool {
	for _, r := range string(b) { // ranges over b, not a copy
		if !rawRune(r) {
			return false
		}
	}
	return true
}

// rawRune reports whether r may be in a raw string literal, as a rune of
// valid UTF-8 that gofmt leaves as it is.
func rawRune(r rune) bool {
	switch {
	case r == '`', r == '\r', r == '\uFEFF', r == 0xFFFD:
		return false
	case r < ' ' && r != '\t' && r != '\n':
		return false
	}
	return true
}
