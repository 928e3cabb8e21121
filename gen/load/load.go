// Package load loads the packages mcpfilegen generates code for, with
// golang.org/x/tools/go/packages, and turns load and type errors into
// positioned errors.
package load

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpfile/mcpfile/gen/model"
)

// Mode is what the generator needs of a package: its syntax with comments
// and full type information. Types of imported packages come from export
// data, so NeedDeps is not needed.
const Mode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo

// Packages loads the packages matching patterns (default ".") as seen from
// dir, without changing the working directory. Test files are not loaded.
//
// Errors that leave a package without syntax (the go command's, a parse
// error) are returned together as a model.ErrorList. Type errors are not:
// before the first run of the generator, code that calls the methods it
// generates (runtime.AddTool needs MCPSchema) does not type-check, and the
// generator must still run. They stay in the package; see [TypeErrors].
func Packages(ctx context.Context, dir string, patterns []string) ([]*packages.Package, error) {
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Context:   ctx,
		Mode:      Mode,
		Dir:       absDir,
		ParseFile: parseFile,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	var errs model.ErrorList
	for _, p := range pkgs {
		errs = append(errs, packageErrors(absDir, p, false)...)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, model.ErrorList{{Msg: fmt.Sprintf("no packages match %q", strings.Join(patterns, " "))}}
	}
	return pkgs, nil
}

// parseFile parses a file of a loaded package, skipping ast.Object
// resolution, which nothing here reads. A file this generator wrote is cut
// down to its header and package clause: the generator replaces it, so it
// reads the package as on its first run, and the type checker skips what
// would be most of its work on a package with many generated decoders. Code
// that calls the generated methods then fails to type-check, as before the
// first run; such errors are reported only beside the generator's own.
func parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	const mode = parser.AllErrors | parser.ParseComments | parser.SkipObjectResolution
	f, err := parser.ParseFile(fset, filename, src, mode)
	if err == nil && model.IsOutput(f) {
		var head []*ast.CommentGroup
		for _, g := range f.Comments {
			if g.Pos() < f.Package {
				head = append(head, g)
			}
		}
		f.Decls, f.Imports, f.Comments, f.Unresolved = nil, nil, head, nil
	}
	return f, err
}

// TypeErrors returns the type errors of a package Packages loaded, with
// file names absolute against dir, leaving out those in the generator's own
// earlier output (it may be stale until it is regenerated). The generator
// reports them only when they keep it from describing a selected type.
func TypeErrors(dir string, p *packages.Package) model.ErrorList {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		absDir = dir
	}
	return packageErrors(absDir, p, true)
}

// packageErrors returns p's type errors (typeErrors) or its other errors.
func packageErrors(dir string, p *packages.Package, typeErrors bool) model.ErrorList {
	// A file this generator wrote may be stale, and fail to compile
	// until it is regenerated: its errors are not the user's.
	output := map[string]bool{}
	for _, f := range p.Syntax {
		if model.IsOutput(f) {
			output[p.Fset.File(f.Pos()).Name()] = true
		}
	}
	positioned := slices.ContainsFunc(p.Errors, func(e packages.Error) bool { return e.Pos != "" })
	var errs model.ErrorList
	for _, e := range p.Errors {
		// The go command's compiler output ("# pkg\nfile:line: …")
		// repeats the type errors go/packages reports with positions;
		// when it names only output files, which are not type-checked
		// here (see parseFile), it is about stale output.
		compiler := e.Pos == "" && strings.HasPrefix(e.Msg, "# ") && (positioned || onlyIn(dir, e.Msg, output))
		if (e.Kind == packages.TypeError || compiler) != typeErrors {
			continue
		}
		pos := position(dir, e.Pos)
		if compiler || output[pos.Filename] {
			continue
		}
		errs = append(errs, &model.Error{Pos: pos, Msg: e.Msg})
	}
	return errs
}

// onlyIn reports whether every error of the go command's compiler output
// msg ("# pkg\nfile:line:col: …", relative to dir) involves one of files:
// its own position is in one, or that of a line continuing it is
// ("\tfile:line:col: other declaration of json", when a declaration of the
// package clashes with an import of the generated file).
func onlyIn(dir, msg string, files map[string]bool) bool {
	_, rest, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	var involved []bool // per error
	for _, l := range strings.Split(rest, "\n") {
		if l == "" || l == "too many errors" {
			continue // the compiler giving up
		}
		pos, _, ok := strings.Cut(strings.TrimSpace(l), ": ")
		in := ok && files[position(dir, pos).Filename]
		if l[0] == ' ' || l[0] == '\t' {
			if len(involved) > 0 && in {
				involved[len(involved)-1] = true // a continuation line
			}
			continue
		}
		involved = append(involved, in)
	}
	return len(involved) > 0 && !slices.Contains(involved, false)
}

// position parses go/packages' "file:line:col" (line and column optional)
// into a token.Position with an absolute file name.
func position(dir, pos string) token.Position {
	if pos == "" || pos == "-" {
		return token.Position{}
	}
	var p token.Position
	rest := pos
	// Peel up to two trailing numbers off; file names may contain colons.
	var nums []int
	for range 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		rest = rest[:i]
	}
	p.Filename = rest
	if !filepath.IsAbs(p.Filename) {
		p.Filename = filepath.Join(dir, p.Filename)
	}
	if len(nums) > 0 {
		p.Line = nums[0]
	}
	if len(nums) > 1 {
		p.Column = nums[1]
	}
	return p
}
