package gen_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/mcpfile/mcpfile/gen"
	"github.com/mcpfile/mcpfile/gen/emit"
	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/gen/schema"
)

// benchTypes is the number of annotated struct types in the synthetic
// package BenchmarkGenerate200 generates code for.
const benchTypes = 200

// benchPackage writes a module with one package of benchTypes annotated
// struct types into a temporary directory, with this checkout of mcpfile
// replacing the module, and returns the package's directory and source.
func benchPackage(b *testing.B) (dir string, src []byte) {
	b.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	// The module requires what this checkout requires, so that the go
	// command has nothing to resolve: only loading is measured.
	mod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		b.Fatal(err)
	}
	reqs := []string{"github.com/mcpfile/mcpfile v0.0.0"}
	inBlock := false
	for _, line := range strings.Split(string(mod), "\n") {
		switch line = strings.TrimSpace(line); {
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			reqs = append(reqs, line)
		case line == "require (":
			inBlock = true
		case strings.HasPrefix(line, "require "):
			reqs = append(reqs, strings.TrimPrefix(line, "require "))
		}
	}
	gomod := "module bench.test\n\ngo 1.26.0\n\nrequire (\n\t" + strings.Join(reqs, "\n\t") +
		"\n)\n\nreplace github.com/mcpfile/mcpfile => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		b.Fatal(err)
	}
	var s strings.Builder
	s.WriteString("// Package tools has many tools whose inputs carry files.\npackage tools\n\n")
	s.WriteString("import \"github.com/mcpfile/mcpfile/runtime\"\n")
	for i := range benchTypes {
		fmt.Fprintf(&s, `
// Tool%[1]dInput is the input of tool %[1]d.
type Tool%[1]dInput struct {
	// Image is the picture to look at.
	Image runtime.File `+"`"+`json:"image" mcpfile:"accept=image/png|image/jpeg,maxSize=5MiB"`+"`"+`
	// Docs are the documents to read.
	Docs []runtime.File `+"`"+`json:"docs,omitempty" mcpfile:"accept=application/pdf|text/plain,maxSize=1MiB,maxFiles=4,filename=doc_names"`+"`"+`
	// DocNames are the documents' file names.
	DocNames []string `+"`"+`json:"doc_names,omitempty"`+"`"+`
	Scan *string `+"`"+`json:"scan,omitempty" mcpfile:"accept=image/tiff,maxSize=20MiB"`+"`"+`
	Prompt string `+"`"+`json:"prompt" jsonschema:"what to look for"`+"`"+`
	// Detail is how much detail to give.
	Detail int `+"`"+`json:"detail,omitempty"`+"`"+`
	Tags []string `+"`"+`json:"tags,omitempty"`+"`"+`
	Strict *bool `+"`"+`json:"strict,omitempty"`+"`"+`
}
`, i)
	}
	dir = filepath.Join(root, "tools")
	for name, data := range map[string][]byte{
		filepath.Join(root, "go.mod"):  []byte(gomod),
		filepath.Join(root, "go.sum"):  sum,
		filepath.Join(dir, "tools.go"): []byte(s.String()),
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir, []byte(s.String())
}

// generate200 is the package of the BenchmarkGenerate200 benchmarks and
// the two things they time on it.
type generate200 struct {
	dir string
	src []byte
	ctx context.Context
}

func newGenerate200(b *testing.B) *generate200 {
	dir, src := benchPackage(b)
	return &generate200{dir: dir, src: src, ctx: context.Background()}
}

// load loads the package with go/packages alone, in the generator's mode:
// the floor.
func (g *generate200) load(b *testing.B) {
	pkgs, err := packages.Load(&packages.Config{Context: g.ctx, Mode: load.Mode, Dir: g.dir}, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		b.Fatalf("Load: %v %v", err, pkgs)
	}
}

// generate runs the generator on the package.
func (g *generate200) generate(b *testing.B) []gen.File {
	files, err := gen.Generate(g.ctx, gen.Config{Dir: g.dir})
	if err != nil || len(files) != 1 {
		b.Fatalf("Generate: %d files, %v", len(files), err)
	}
	return files
}

// setState puts the package in state "new" (no generated file, as on a
// first run) or "again" (the generated file in place, as when go generate
// runs again after a change), and loads it once, so that the go command's
// cache is warm.
func (g *generate200) setState(b *testing.B, state string) {
	out := filepath.Join(g.dir, gen.DefaultOutput)
	if state == "again" {
		files := g.generate(b)
		if err := os.WriteFile(files[0].Path, files[0].Content, 0o644); err != nil {
			b.Fatal(err)
		}
	} else if err := os.Remove(out); err != nil && !os.IsNotExist(err) {
		b.Fatal(err)
	}
	g.load(b)
}

// BenchmarkGenerate200 generates code for a package of 200 annotated
// struct types (impl=generate), next to loading the same package with
// go/packages alone in the generator's mode (impl=load), the floor:
//
//   - state=new: the package has no generated file yet, as on the first run;
//   - state=again: the generated file is in place, as when go generate runs
//     again after a change.
//
// The go command's cache is warm in both: the first load after the package
// changed compiles it (go/packages asks for export data of every package it
// lists, the root's included), which both would pay. Besides the time, cpu-ns/op
// is the CPU time of the process and of the go command it runs, steadier
// than the time on a loaded machine. Compare with
//
//	benchstat -col /impl bench.txt
//
// The two run one after the other, each for many iterations; on a machine
// whose speed drifts, BenchmarkGenerate200Paired compares them better.
func BenchmarkGenerate200(b *testing.B) {
	// Both run with the collector set as mcpfilegen sets it.
	defer debug.SetGCPercent(debug.SetGCPercent(gen.GCPercent))
	g := newGenerate200(b)
	for _, state := range []string{"new", "again"} {
		g.setState(b, state)
		for _, impl := range []string{"load", "generate"} {
			b.Run("state="+state+"/impl="+impl, func(b *testing.B) {
				b.SetBytes(int64(len(g.src)))
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					if impl == "load" {
						g.load(b)
					} else {
						g.generate(b)
					}
				}
				if cpu := cpuTime() - cpu; cpu > 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// BenchmarkGenerate200Paired times the floor and the generator of
// BenchmarkGenerate200 in turn within each iteration, so that both see the
// machine in the same state, and reports the generator's cost over the
// floor's: load-ns/op and generate-ns/op are their times, overhead-% the
// generator's time over the floor's less 100, cpu-overhead-% the same for
// the CPU time of the process and its go command. sec/op, B/op and
// allocs/op are the sums.
func BenchmarkGenerate200Paired(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(gen.GCPercent))
	g := newGenerate200(b)
	for _, state := range []string{"new", "again"} {
		g.setState(b, state)
		b.Run("state="+state, func(b *testing.B) {
			b.SetBytes(int64(len(g.src)))
			b.ReportAllocs()
			var loadT, genT, loadCPU, genCPU time.Duration
			for b.Loop() {
				t0, c0 := time.Now(), cpuTime()
				g.load(b)
				t1, c1 := time.Now(), cpuTime()
				g.generate(b)
				t2, c2 := time.Now(), cpuTime()
				loadT, genT = loadT+t1.Sub(t0), genT+t2.Sub(t1)
				loadCPU, genCPU = loadCPU+c1-c0, genCPU+c2-c1
			}
			n := float64(b.N)
			b.ReportMetric(float64(loadT.Nanoseconds())/n, "load-ns/op")
			b.ReportMetric(float64(genT.Nanoseconds())/n, "generate-ns/op")
			b.ReportMetric(100*(float64(genT)/float64(loadT)-1), "overhead-%")
			if loadCPU > 0 {
				b.ReportMetric(100*(float64(genCPU)/float64(loadCPU)-1), "cpu-overhead-%")
			}
		})
	}
}

// BenchmarkAfterLoad200 is the generator's own work on the package of
// BenchmarkGenerate200, once it is loaded: the model, the schemas and the
// Go file (model.Build, schema.Apply, emit.File). It is what generation adds
// to loading, measured without the go command, whose time varies far more
// from run to run than this does; the package is loaded once, with no
// generated file. Besides the time, cpu-ns/op is the CPU time on all
// processors.
func BenchmarkAfterLoad200(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(gen.GCPercent))
	dir, src := benchPackage(b)
	pkgs, err := load.Packages(context.Background(), dir, nil)
	if err != nil || len(pkgs) != 1 {
		b.Fatalf("Packages: %v %v", err, pkgs)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		p, err := model.Build(pkgs[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := schema.Apply(p); err != nil {
			b.Fatal(err)
		}
		if _, err := emit.File(p); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuTime() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
