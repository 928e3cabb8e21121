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
	"errors"
	"fmt"
	"go/format"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// GenVersion is the version of the contract between generated code and the
// runtime package that this emitter writes; the runtime accepts generated
// code from runtime.MinGenVersion to runtime.GenVersion.
const GenVersion = 1

const (
	runtimePath = "github.com/mcpfile/mcpfile/runtime"
	jsonPath    = "encoding/json"
	strconvPath = "strconv"
)

// File returns the generated Go file of p: staleness guards for the struct
// types of p's package that the selected types use, then the selected types
// sorted by name, each with a staleness guard, its MCPSchema method and its
// UnmarshalJSON method when it has file fields; the file starts with the line
// model.GeneratedComment and is gofmt'd. An error means the emitter itself is wrong ("internal error: …").
func File(p *model.Package) ([]byte, error) {
	types := slices.Clone(p.Types)
	slices.SortFunc(types, func(a, b *model.Type) int { return strings.Compare(a.Name, b.Name) })

	f := newFile(p)
	f.Add(versionGuard())
	for _, g := range nestedGuards(&typeWriter{file: f, pkgPath: p.Path}, types) {
		f.Line()
		f.Add(g)
	}
	for _, t := range types {
		decls, err := typeDecls(f, p, t)
		if err != nil {
			return nil, fmt.Errorf("internal error: cannot generate %s: %v", t.Name, err)
		}
		f.Line()
		f.Comment(pieceMark)
		for _, d := range decls {
			f.Line()
			f.Add(d)
		}
	}
	src, err := render(f)
	if err != nil {
		return nil, invalidGo(p, types, err)
	}
	return src, nil
}

// newFile starts the generated file of p, with the header line and the
// package names of the imports the emitter always uses.
func newFile(p *model.Package) *jen.File {
	f := jen.NewFilePathName(p.Path, p.Name)
	f.HeaderComment(model.GeneratedComment) // starting with "//", written as is
	f.ImportName(runtimePath, "runtime")
	f.ImportName(jsonPath, "json")
	f.ImportName(strconvPath, "strconv")
	return f
}

// typeDecls returns the declarations generated for t, in output order.
func typeDecls(f *jen.File, p *model.Package, t *model.Type) ([]jen.Code, error) {
	tw := &typeWriter{file: f, pkgPath: p.Path}
	decls := []jen.Code{structGuard(tw, t)}
	schema, err := schemaDecls(t)
	if err != nil {
		return nil, err
	}
	decls = append(decls, schema...)
	if len(t.Files()) == 0 {
		return decls, nil
	}
	dec, err := decoderDecls(t)
	if err != nil {
		return nil, err
	}
	return append(decls, dec...), nil
}

// versionGuard renders the constants that overflow, and so fail to compile,
// when the runtime package does not accept code of GenVersion.
//
//	const (
//		_ = runtime.EnforceVersion(runtime.GenVersion - 1)
//		_ = runtime.EnforceVersion(1 - runtime.MinGenVersion)
//	)
func versionGuard() jen.Code {
	enforce := func(x jen.Code) jen.Code {
		return jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(x)
	}
	return comment(
		"The runtime package must accept code generated for version "+fmt.Sprint(GenVersion)+":",
		"if these constants overflow, update the mcpfile module or run go generate.",
	).Const().Defs(
		enforce(jen.Qual(runtimePath, "GenVersion").Op("-").Lit(GenVersion)),
		enforce(jen.Lit(GenVersion).Op("-").Qual(runtimePath, "MinGenVersion")),
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

// rawString renders s as a raw string literal when it can be one (no
// backquote, no carriage return, no control character but tab and newline,
// valid UTF-8) and as an interpreted one otherwise. Jennifer has no raw string
// construct, so the literal is written as a token.
func rawString(s string) jen.Code {
	if !canBeRaw(s) {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

func canBeRaw(s string) bool {
	for _, r := range s {
		switch {
		case r == '`', r == '\r', r == '\uFEFF', r == 0xFFFD:
			return false
		case r < ' ' && r != '\t' && r != '\n':
			return false
		}
	}
	return true
}

// pieceMark is the line File puts before the declarations of each type, for
// render to cut the file into pieces it can format in parallel. It holds NUL
// bytes, which no other line of the rendered file can hold: Go source has
// none, and text from the user reaches the file only in literals, which
// escape them.
const pieceMark = "//\x00mcpfile\x00"

// render writes f as formatted Go source. The declarations after each
// pieceMark line start with a doc comment, so gofmt puts exactly one blank
// line before them: the file is cut there into chunks that are formatted
// apart, in parallel (formatting is most of the emitter's time), and joined
// with one blank line, which gives the bytes format.Source gives for the
// whole file (TestRenderPieces).
func render(f *jen.File) ([]byte, error) {
	f.NoFormat = true
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	src := buf.Bytes()
	chunks := cut(src, 4*runtime.GOMAXPROCS(0))
	out := make([][]byte, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Go(func() { out[i], errs[i] = format.Source(c) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// Report the error as format.Source reports it for the whole file.
		if _, werr := format.Source(src); werr != nil {
			err = werr
		}
		return nil, &formatError{err: err, src: src}
	}
	n := 0
	for _, o := range out {
		n += len(o) + 1
	}
	res := make([]byte, 0, n)
	res = append(res, out[0]...) // the package clause and imports; ends with a newline
	for _, o := range out[1:] {
		res = append(res, '\n')
		res = append(res, bytes.TrimSpace(o)...)
		res = append(res, '\n')
	}
	return res, nil
}

// cut blanks out the pieceMark lines of src, in place, and cuts src at
// some of them into at most n chunks of about the same size, the first
// holding the package clause.
func cut(src []byte, n int) [][]byte {
	mark := []byte("\n" + pieceMark + "\n")
	blank := bytes.Repeat([]byte{' '}, len(pieceMark))
	target := len(src)/n + 1
	var chunks [][]byte
	start := 0
	for off := 0; ; {
		i := bytes.Index(src[off:], mark)
		if i < 0 {
			return append(chunks, src[start:])
		}
		at := off + i + 1 // the mark line
		copy(src[at:], blank)
		if at-start >= target {
			chunks = append(chunks, src[start:at])
			start = at
		}
		off = at + len(pieceMark)
	}
}

// formatError is a generated file that is not valid Go.
type formatError struct {
	err error
	src []byte
}

func (e *formatError) Error() string { return e.err.Error() + "\n" + numbered(e.src) }

// invalidGo reports a file that did not render or format, naming the first
// type whose code alone fails to, or the package when each type's code is
// valid on its own.
func invalidGo(p *model.Package, types []*model.Type, err error) error {
	culprit := "package " + p.Name
	for _, t := range types {
		f := newFile(p)
		decls, derr := typeDecls(f, p, t)
		if derr != nil {
			continue
		}
		for _, d := range decls {
			f.Add(d)
		}
		if _, terr := render(f); terr != nil {
			culprit, err = t.Name, terr
			break
		}
	}
	return fmt.Errorf("internal error: generated invalid Go for %s: %v", culprit, err)
}

// numbered returns src with a line number before each line.
func numbered(src []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(string(src), "\n"), "\n") {
		fmt.Fprintf(&b, "%5d\t%s\n", i+1, line)
	}
	return b.String()
}
