package gen

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpfile/mcpfile/gen/emit"
	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/gen/schema"
)

// DefaultOutput is the name of the generated file in each package directory.
const DefaultOutput = "mcpfile_gen.go"

// GCPercent is the garbage collector's target percentage (see
// runtime/debug.SetGCPercent) that mcpfilegen runs with, instead of the
// default 100. Generating allocates several times the size of the loaded
// packages in short-lived values (syntax trees, rendered and formatted
// text), while the loaded packages' types and the model stay live to the
// end: at 100 the collector would mark them over and over, a fifth more of
// the generator's own CPU. The price is memory: the heap grows to five times
// what is live before it is collected, twice the default's peak on 1,000
// types (BENCHMARKS.md §4). A run is short, so a process that calls
// [Generate] once may do the same.
const GCPercent = 400

// MemoryHeadroom and MinHeadroomBytes are how much more memory than
// loading took [LimitMemory] lets generating take: the larger of the two.
const (
	MemoryHeadroom   = 1.35
	MinHeadroomBytes = 14 << 20
)

// LimitMemory sets the process's soft memory limit
// (runtime/debug.SetMemoryLimit) to [MemoryHeadroom] times the memory it
// holds now, or that and [MinHeadroomBytes] when more, if that is lower
// than the limit in force. (The floor keeps a small package, whose load
// holds little, from paying for collections it does not need.) Called once the
// packages are loaded, it keeps the collector's headroom at [GCPercent]
// from growing the heap far past what loading took: the collector runs
// early only when the heap nears the limit, which costs little, since
// generating keeps less live than loading. mcpfilegen calls it through
// Config.AfterLoad; a program that calls [Generate] may do the same.
func LimitMemory() {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	held := int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	limit := max(int64(float64(held)*MemoryHeadroom), held+MinHeadroomBytes)
	if limit > 0 && limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

// Config says what to generate code for.
type Config struct {
	// Dir is the directory patterns are relative to; "" is the current one.
	Dir string
	// Patterns are go/packages patterns; none means ".".
	Patterns []string
	// Types are the names of the types to generate for, in every package
	// matched; none means every struct type with an mcpfile tag, and every
	// one whose fields hold files without one, to be reported (see
	// model.Build).
	Types []string
	// Output is the generated file's name in each package's directory;
	// "" means DefaultOutput.
	Output string
	// AfterLoad, when set, is called once the packages are loaded, before
	// any code is generated: mcpfilegen bounds its memory there
	// ([LimitMemory]).
	AfterLoad func()
}

// File is a generated file.
type File struct {
	Path string // absolute, in the package's directory
	// Content is the file's content; nil means that the file is an earlier
	// output of the generator for a package that no longer has selected
	// types, to be removed (left in place, its guards would stop the
	// package from compiling).
	Content []byte
}

// Generate loads the packages cfg names and returns the generated file of
// each package with selected types, sorted by path. It writes nothing. A
// package without selected types has no file. Whether a file may be
// written over is the writer's to check, when it writes: the file there may
// not be one of the package's (it may not parse, or the build may leave it
// out), and may change until then.
//
// Problems with the user's code are returned together as a
// model.ErrorList, sorted by position; any other error is a failure to load
// or a bug in the generator ("internal error: …").
func Generate(ctx context.Context, cfg Config) ([]File, error) {
	output, err := OutputName(cfg.Output)
	if err != nil {
		return nil, err
	}
	pkgs, err := load.Packages(ctx, cmp.Or(cfg.Dir, "."), cfg.Patterns)
	if err != nil {
		return nil, err
	}
	if cfg.AfterLoad != nil {
		cfg.AfterLoad()
	}
	var (
		files []File
		errs  model.ErrorList
	)
	for i, pkg := range pkgs {
		// The model keeps what it needs of the package, its types; the
		// package's syntax and type information, most of what was loaded,
		// may go while the package's code is generated.
		pkgs[i] = nil
		p, err := model.Build(pkg, cfg.Types)
		if err != nil {
			if l, ok := err.(model.ErrorList); ok {
				errs = append(errs, l...)
				errs = append(errs, typeErrorsBeside(l, load.TypeErrors(cmp.Or(cfg.Dir, "."), pkg))...)
				continue
			}
			return nil, err
		}
		if len(errs) > 0 {
			continue
		}
		if len(p.Types) == 0 {
			if path := earlierOutput(pkg, output); path != "" {
				files = append(files, File{Path: path})
			}
			continue
		}
		if err := schema.Apply(p); err != nil {
			return nil, err
		}
		src, err := emit.File(p)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: filepath.Join(p.Dir, output), Content: src})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// OutputName returns the file name to generate into for the value of
// Config.Output, or an error saying why it cannot be one: it must be a Go
// file name without a directory, not a test file, and not one the go
// command ignores (starting with "." or "_").
func OutputName(name string) (string, error) {
	switch {
	case name == "":
		return DefaultOutput, nil
	case name != filepath.Base(name) || strings.ContainsAny(name, `/\`):
		return "", fmt.Errorf("output %q has a directory: want a file name, written in each package's directory", name)
	case !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == ".go":
		return "", fmt.Errorf("output %q is not a Go file name: want a name ending in .go, not _test.go", name)
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
		return "", fmt.Errorf("output %q starts with %q, and the go command ignores such files: want a name starting with a letter or digit", name, name[:1])
	}
	return name, nil
}

// typeErrorsBeside returns the type errors on the lines of the generator's
// errors. Type errors are otherwise ignored: code calling the generated
// methods cannot type-check before the first run. But a field whose type
// does not resolve cannot be described, and the type error on its line says
// why.
func typeErrorsBeside(errs, typeErrs model.ErrorList) model.ErrorList {
	type line struct {
		file string
		n    int
	}
	lines := map[line]bool{}
	for _, e := range errs {
		lines[line{e.Pos.Filename, e.Pos.Line}] = true
	}
	var beside model.ErrorList
	for _, e := range typeErrs {
		if lines[line{e.Pos.Filename, e.Pos.Line}] {
			beside = append(beside, e)
		}
	}
	return beside
}

// earlierOutput returns the path of the file named output in pkg when the
// generator wrote it (it starts with the generated-code header), or "".
func earlierOutput(pkg *packages.Package, output string) string {
	for _, f := range pkg.Syntax {
		name := pkg.Fset.File(f.Pos()).Name()
		if filepath.Base(name) == output && model.IsOutput(f) {
			return name
		}
	}
	return ""
}
