package gen_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
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

// benchSizes are the numbers of annotated struct types in the synthetic
// packages of the generator's benchmarks: the types=N of their names.
var benchSizes = []int{200, 1000}

// benchPackage writes a module with one package of n annotated struct
// types into a temporary directory, with this checkout of mcpfile replacing
// the module, and returns the package's directory and source.
func benchPackage(b *testing.B, n int) (dir string, src []byte) {
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
	for i := range n {
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

// benchPkg is a package of the generator's benchmarks and the two things
// they time on it.
type benchPkg struct {
	dir string
	src []byte
	ctx context.Context
}

// forSizes runs f as the sub-benchmark types=N of b on a package of N
// annotated struct types, for each N in benchSizes.
func forSizes(b *testing.B, f func(b *testing.B, g *benchPkg)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("types=%d", n), func(b *testing.B) {
			dir, src := benchPackage(b, n)
			f(b, &benchPkg{dir: dir, src: src, ctx: context.Background()})
		})
	}
}

// load loads the package with go/packages alone, in the generator's mode:
// the floor.
func (g *benchPkg) load(b *testing.B) {
	pkgs, err := packages.Load(&packages.Config{Context: g.ctx, Mode: load.Mode, Dir: g.dir}, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		b.Fatalf("Load: %v %v", err, pkgs)
	}
}

// generate runs the generator on the package.
func (g *benchPkg) generate(b *testing.B) []gen.File {
	files, err := gen.Generate(g.ctx, gen.Config{Dir: g.dir})
	if err != nil || len(files) != 1 {
		b.Fatalf("Generate: %d files, %v", len(files), err)
	}
	return files
}

// benchStates are the states setState puts a package in.
var benchStates = []string{"new", "again"}

// setState puts the package in state "new" (no generated file, as on a
// first run) or "again" (the generated file in place, as when go generate
// runs again after a change), and loads it once, so that the go command's
// cache is warm.
func (g *benchPkg) setState(b *testing.B, state string) {
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

// BenchmarkGenerate generates code for a package of N annotated struct
// types (impl=generate), next to loading the same package with go/packages
// alone in the generator's mode (impl=load), the floor:
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
//	benchstat -col /impl -row /types,/state bench.txt
//
// The two run one after the other, each for many iterations; on a machine
// whose speed drifts, BenchmarkGeneratePaired compares them better.
func BenchmarkGenerate(b *testing.B) {
	// Both run with the collector set as mcpfilegen sets it.
	defer debug.SetGCPercent(debug.SetGCPercent(gen.GCPercent))
	forSizes(b, func(b *testing.B, g *benchPkg) {
		for _, state := range benchStates {
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
	})
}

// BenchmarkGeneratePaired times the floor and the generator of
// BenchmarkGenerate in turn within each iteration, so that both see the
// machine in the same state, and reports the generator's cost over the
// floor's: load-ns/op and generate-ns/op are their times, overhead-% the
// generator's time over the floor's less 100, cpu-overhead-% the same for
// the CPU time of the process and its go command. sec/op, B/op and
// allocs/op are the sums. Both run in this process, one run after another;
// BenchmarkGenerateProcess runs each in a process of its own, as
// mcpfilegen runs, and measures their peak memory.
func BenchmarkGeneratePaired(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(gen.GCPercent))
	forSizes(b, func(b *testing.B, g *benchPkg) {
		for _, state := range benchStates {
			g.setState(b, state)
			b.Run("state="+state, func(b *testing.B) {
				b.SetBytes(int64(len(g.src)))
				b.ReportAllocs()
				var p paired
				for b.Loop() {
					t0, c0 := time.Now(), cpuTime()
					g.load(b)
					t1, c1 := time.Now(), cpuTime()
					g.generate(b)
					t2, c2 := time.Now(), cpuTime()
					p.load.add(t1.Sub(t0), c1-c0, 0)
					p.gen.add(t2.Sub(t1), c2-c1, 0)
				}
				p.report(b)
			})
		}
	})
}

// BenchmarkGenerateProcess runs the floor and the generator of
// BenchmarkGenerate each in a process of its own, this test binary run
// again (benchChild), in turn within each iteration, the one to go first
// alternating: each loads the package, or generates for it, once, with the
// collector set as mcpfilegen sets it, as mcpfilegen does in a go generate
// run. Besides the metrics of BenchmarkGeneratePaired, timed from the start
// of the work to its end in the process, it reports each process's peak
// memory, the most of its memory that was resident at once (peakRSS: the
// heap at its largest, as the collector let it grow, with the stacks and
// the binary's pages; not the go command's): load-peak-B and
// generate-peak-B, and peak-overhead-%, the generator's over the floor's
// less 100.
func BenchmarkGenerateProcess(b *testing.B) {
	if peakRSS() == 0 {
		b.Skip("no peak resident memory on " + goruntime.GOOS)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	forSizes(b, func(b *testing.B, g *benchPkg) {
		for _, state := range benchStates {
			g.setState(b, state)
			b.Run("state="+state, func(b *testing.B) {
				b.SetBytes(int64(len(g.src)))
				var p paired
				for i := 0; b.Loop(); i++ {
					order := []string{"load", "generate"}
					if i%2 == 1 {
						order[0], order[1] = order[1], order[0]
					}
					for _, what := range order {
						s := &p.load
						if what == "generate" {
							s = &p.gen
						}
						s.add(runChild(b, exe, what, g.dir))
					}
				}
				p.report(b)
			})
		}
	})
}

// paired sums what the floor (load) and the generator (gen) cost over the
// iterations of a benchmark.
type paired struct{ load, gen side }

type side struct {
	time, cpu time.Duration
	peak      int64 // bytes, summed
}

func (s *side) add(t, cpu time.Duration, peak int64) {
	s.time, s.cpu, s.peak = s.time+t, s.cpu+cpu, s.peak+peak
}

// report reports the means of both sides and the generator's overheads.
func (p *paired) report(b *testing.B) {
	n := float64(b.N)
	b.ReportMetric(float64(p.load.time.Nanoseconds())/n, "load-ns/op")
	b.ReportMetric(float64(p.gen.time.Nanoseconds())/n, "generate-ns/op")
	b.ReportMetric(100*(float64(p.gen.time)/float64(p.load.time)-1), "overhead-%")
	if p.load.cpu > 0 {
		b.ReportMetric(100*(float64(p.gen.cpu)/float64(p.load.cpu)-1), "cpu-overhead-%")
	}
	if p.load.peak > 0 {
		b.ReportMetric(float64(p.load.peak)/n, "load-peak-B")
		b.ReportMetric(float64(p.gen.peak)/n, "generate-peak-B")
		b.ReportMetric(100*(float64(p.gen.peak)/float64(p.load.peak)-1), "peak-overhead-%")
	}
}

// The environment of a benchChild process: what it does ("load" or
// "generate") and the package's directory.
const (
	childEnv    = "MCPFILE_BENCH_CHILD"
	childDirEnv = "MCPFILE_BENCH_DIR"
)

// runChild runs exe, this test binary, as a benchChild process that does
// what in dir, and returns what the process measured.
func runChild(b *testing.B, exe, what, dir string) (t, cpu time.Duration, peak int64) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+what, childDirEnv+"="+dir,
		"GOMAXPROCS="+strconv.Itoa(goruntime.GOMAXPROCS(0)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s in a process of its own: %v\n%s", what, err, stderr.Bytes())
	}
	if _, err := fmt.Sscan(string(out), &t, &cpu, &peak); err != nil {
		b.Fatalf("%s in a process of its own: output %q: %v", what, out, err)
	}
	return t, cpu, peak
}

// benchChild loads the package in dir (what is "load") or generates for it
// ("generate") once, as mcpfilegen would, and prints the time and CPU time
// (of this process and its go command) it took, in nanoseconds, and this
// process's peak resident memory in bytes.
func benchChild(what, dir string) error {
	debug.SetGCPercent(gen.GCPercent)
	ctx := context.Background()
	t0, c0 := time.Now(), cpuTime()
	switch what {
	case "load":
		pkgs, err := packages.Load(&packages.Config{Context: ctx, Mode: load.Mode, Dir: dir}, ".")
		if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
			return fmt.Errorf("Load: %v %v", err, pkgs)
		}
	case "generate":
		files, err := gen.Generate(ctx, gen.Config{Dir: dir, AfterLoad: gen.LimitMemory})
		if err != nil || len(files) != 1 {
			return fmt.Errorf("Generate: %d files, %v", len(files), err)
		}
	default:
		return fmt.Errorf("%s=%q: want load or generate", childEnv, what)
	}
	t1, c1 := time.Now(), cpuTime()
	fmt.Println(int64(t1.Sub(t0)), int64(c1-c0), peakRSS())
	return nil
}

// TestMain runs benchChild instead of the tests in a process that
// BenchmarkGenerateProcess started.
func TestMain(m *testing.M) {
	if what := os.Getenv(childEnv); what != "" {
		if err := benchChild(what, os.Getenv(childDirEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkAfterLoad is the generator's own work on the package of
// BenchmarkGenerate, once it is loaded: the model, the schemas and the Go
// file (model.Build, schema.Apply, emit.File). It is what generation adds
// to loading, measured without the go command, whose time varies far more
// from run to run than this does; the package is loaded once, with no
// generated file. Besides the time, cpu-ns/op is the CPU time on all
// processors.
func BenchmarkAfterLoad(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(gen.GCPercent))
	forSizes(b, func(b *testing.B, g *benchPkg) {
		pkgs, err := load.Packages(g.ctx, g.dir, nil)
		if err != nil || len(pkgs) != 1 {
			b.Fatalf("Packages: %v %v", err, pkgs)
		}
		b.SetBytes(int64(len(g.src)))
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
	})
}
