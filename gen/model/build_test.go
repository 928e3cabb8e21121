package model_test

import (
	"context"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/mcpfile/mcpfile/gen/load"
	"github.com/mcpfile/mcpfile/gen/model"
	"github.com/mcpfile/mcpfile/internal/testmod"
)

// TestMain: testdata holds modules of their own (see testmod.Main).
func TestMain(m *testing.M) { testmod.Main(m) }

var (
	loadOnce sync.Once
	loaded   map[string]*packages.Package
	loadErr  error
)

// fixture returns a package of the testdata module, which replaces the
// runtime with a stand-in so that these tests do not depend on it.
func fixture(t *testing.T, name string) *packages.Package {
	t.Helper()
	loadOnce.Do(func() {
		pkgs, err := load.Packages(context.Background(), "testdata/mod", []string{"./good", "./bad", "./auto", "./autobad"})
		loadErr = err
		loaded = map[string]*packages.Package{}
		for _, p := range pkgs {
			loaded[p.Name] = p
		}
	})
	if loadErr != nil {
		t.Fatalf("loading testdata/mod: %v", loadErr)
	}
	return loaded[name]
}

func TestBuildGood(t *testing.T) {
	pkg := fixture(t, "good")
	p, err := model.Build(pkg, []string{"CompareInput", "Plain", "Grouped"})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var names []string
	for _, ty := range p.Types {
		names = append(names, ty.Name)
	}
	if want := []string{"CompareInput", "Grouped", "Plain"}; !slices.Equal(names, want) {
		t.Errorf("types = %v, want %v", names, want)
	}
	if p.Name != "good" || p.Path != "example.com/fixture/good" || filepath.Base(p.Dir) != "good" {
		t.Errorf("package = %q %q %q", p.Name, p.Path, p.Dir)
	}
	ci := p.Types[0]
	if want := "CompareInput is the input of the compare_documents tool.\n\nIt has two paragraphs."; ci.Doc != want {
		t.Errorf("Doc = %q, want %q", ci.Doc, want)
	}
	if ci.Pos.Line != 10 || filepath.Base(ci.Pos.Filename) != "good.go" {
		t.Errorf("Pos = %v", ci.Pos)
	}
	if want := "Grouped has its doc on the spec."; p.Types[1].Doc != want {
		t.Errorf("Grouped.Doc = %q, want %q", p.Types[1].Doc, want)
	}
	wantKeys := []string{"documents", "first_name", "cover", "cover_name", "detail", "names", "shots", "uri", "PURI", "uris", "-", "note", "More"}
	if !slices.Equal(ci.Keys, wantKeys) {
		t.Errorf("Keys = %q, want %q", ci.Keys, wantKeys)
	}

	type fieldWant struct {
		Go, JSON                   string
		Line                       int
		Embedded, Skip, Omit, Zero bool
		Required                   bool
		Description                string
		File                       *model.File
		FilenameGo                 string
	}
	want := []fieldWant{
		{Go: "Documents", JSON: "documents", Line: 12, Required: true, Description: "Documents to compare, two to five PDFs or text files.",
			File: &model.File{Kind: model.KindFileSlice, Accept: []string{"application/pdf", "text/plain"}, MaxSize: 10 << 20, MaxFiles: 5, MinFiles: 1}},
		{Go: "FirstName", JSON: "first_name", Line: 14, Omit: true, Description: "Original file name of the first document, as the user picked it."},
		{Go: "Cover", JSON: "cover", Line: 15, Omit: true,
			File: &model.File{Kind: model.KindFilePointer, Accept: []string{"image/*"}, MaxSize: 512 << 10, Filename: "cover_name"}, FilenameGo: "CoverName"},
		{Go: "CoverName", JSON: "cover_name", Line: 16, Omit: true, Description: "the cover's file name"},
		{Go: "Detail", JSON: "detail", Line: 18, Omit: true, Description: "how much detail to give"},
		{Go: "Names", JSON: "names", Line: 19, Omit: true},
		{Go: "Shots", JSON: "shots", Line: 20, Zero: true,
			File: &model.File{Kind: model.KindFileSlice, NoSniff: true, Filename: "names"}, FilenameGo: "Names"},
		{Go: "URI", JSON: "uri", Line: 21, Required: true, File: &model.File{Kind: model.KindString}},
		{Go: "PURI", JSON: "PURI", Line: 22, Required: true, File: &model.File{Kind: model.KindStringPointer, Accept: []string{".pdf"}}},
		{Go: "URIs", JSON: "uris", Line: 23, Required: true, File: &model.File{Kind: model.KindStringSlice, MaxFiles: 2, MinFiles: 1}},
		{Go: "secret", Line: 24, Skip: true},
		{Go: "Ignored", Line: 25, Skip: true},
		{Go: "Dash", JSON: "-", Line: 26, Required: true},
		{Go: "Common", Line: 27, Embedded: true},
		{Go: "Extra", Line: 28, Embedded: true},
	}
	if len(ci.Fields) != len(want) {
		t.Fatalf("%d fields, want %d", len(ci.Fields), len(want))
	}
	for i, f := range ci.Fields {
		w := want[i]
		got := fieldWant{Go: f.GoName, JSON: f.JSONName, Line: f.Pos.Line, Embedded: f.Embedded, Skip: f.Skip,
			Omit: f.OmitEmpty, Zero: f.OmitZero, Required: f.Required, Description: f.Description}
		if f.File != nil {
			file := *f.File
			if file.FilenameField != nil {
				got.FilenameGo = file.FilenameField.GoName
			}
			file.FilenameField = nil
			got.File = &file
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("field %d = %+v (file %+v), want %+v (file %+v)", i, got, got.File, w, w.File)
		}
		if f.Type == nil {
			t.Errorf("field %s has no type", f.GoName)
		}
	}
	if got := types.TypeString(ci.Fields[0].Type, nil); got != "[]github.com/mcpfile/mcpfile/runtime.File" {
		t.Errorf("Documents type = %s", got)
	}
	if fs := ci.Files(); len(fs) != 6 {
		t.Errorf("Files() has %d fields, want 6", len(fs))
	}
}

// TestBuildTransfer checks that the transfer modes of the tag reach the
// model, in the schema's order, on each kind of field.
func TestBuildTransfer(t *testing.T) {
	p, err := model.Build(fixture(t, "good"), []string{"Transfer"})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	want := map[string][]string{
		"Inline":  {"inline"},
		"Upload":  {"upload"},
		"Both":    {"inline", "upload"},
		"Swapped": {"inline", "upload"},
		"Any":     nil,
		"URI":     {"inline"},
		"URIs":    {"inline"},
	}
	files := p.Types[0].Files()
	if len(files) != len(want) {
		t.Fatalf("%d file fields, want %d", len(files), len(want))
	}
	for _, f := range files {
		if got, w := f.File.TransferModes, want[f.GoName]; !slices.Equal(got, w) || (got == nil) != (w == nil) {
			t.Errorf("field %s: TransferModes = %q, want %q", f.GoName, got, w)
		}
	}
	if up := files[1]; up.File.FilenameField == nil || up.File.FilenameField.GoName != "UploadName" {
		t.Errorf("field Upload: filename=upload_name not resolved with transfer=upload")
	}
}

// TestBuildForm checks that the form of the tag reaches the model on each
// kind of field that takes one, with the other constraints.
func TestBuildForm(t *testing.T) {
	p, err := model.Build(fixture(t, "good"), []string{"Forms"})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	want := map[string]model.File{
		"Data":    {Kind: model.KindFile, Form: "filedata", Accept: []string{"application/pdf"}},
		"PData":   {Kind: model.KindFilePointer, Form: "filedata"},
		"Datas":   {Kind: model.KindFileSlice, Form: "filedata", MaxFiles: 3, MinFiles: 1},
		"OpenAI":  {Kind: model.KindFile, Form: "openai", MaxSize: 1 << 20},
		"POpenAI": {Kind: model.KindFilePointer, Form: "openai", NoSniff: true},
		"URI":     {Kind: model.KindFile},
	}
	files := p.Types[0].Files()
	if len(files) != len(want) {
		t.Fatalf("%d file fields, want %d", len(files), len(want))
	}
	for _, f := range files {
		if got, w := *f.File, want[f.GoName]; !reflect.DeepEqual(got, w) {
			t.Errorf("field %s: File = %+v, want %+v", f.GoName, got, w)
		}
	}
}

func TestBuildSelectsTaggedStructs(t *testing.T) {
	p, err := model.Build(fixture(t, "auto"), nil)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var names []string
	for _, ty := range p.Types {
		names = append(names, ty.Name)
	}
	if want := []string{"A", "B"}; !slices.Equal(names, want) {
		t.Errorf("selected %v, want %v", names, want)
	}
}

// TestBuildErrors checks every error against the `// want "…"` comments of
// testdata/mod/bad: each error must contain a wanted text of its line, and
// each wanted text must be found.
func TestBuildErrors(t *testing.T) {
	pkg := fixture(t, "bad")
	sel := []string{"WrongTypes", "BadTags", "Skipped", "HasUnmarshal", "EmbedsUnmarshal", "EmbedsText", "Tagged",
		"Unsupported", "Node", "Tree", "SchemaTags", "Embeddings", "EmbeddedDash", "BadName", "Gen", "Owners",
		"NotStruct", "Alias", "Var", "Missing", "Untagged", "EmbedsFile", "EmbedsHolder", "StructTags",
		"StringOption", "SchemaOnly", "WithFile", "HasSchema", "BadTransfer", "BadForm"}
	_, err := model.Build(pkg, sel)
	checkWants(t, pkg, err)
}

// TestBuildSelectsFileHolders checks that, without -type, the types whose
// fields hold files undeclared, or mistag them, are selected and reported,
// and the types that would inherit generated methods are reported, against
// the `// want "…"` comments of testdata/mod/autobad.
func TestBuildSelectsFileHolders(t *testing.T) {
	pkg := fixture(t, "autobad")
	_, err := model.Build(pkg, nil)
	checkWants(t, pkg, err)
}

// checkWants checks the errors of Build against the `// want "…"` comments
// of pkg's one file.
func checkWants(t *testing.T, pkg *packages.Package, err error) {
	t.Helper()
	errs, ok := err.(model.ErrorList)
	if !ok {
		t.Fatalf("Build error = %v (%T), want a model.ErrorList", err, err)
	}
	if !slices.IsSortedFunc(errs, func(a, b *model.Error) int { return a.Pos.Line - b.Pos.Line }) {
		t.Errorf("errors are not sorted:\n%s", errs)
	}

	wants := map[int][]string{} // line → wanted texts
	file := pkg.GoFiles[0]
	for _, f := range pkg.Syntax {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				text, ok := strings.CutPrefix(c.Text, "// want ")
				if !ok {
					continue
				}
				line := pkg.Fset.Position(c.Pos()).Line
				for _, q := range wantRE.FindAllString(text, -1) {
					s, err := strconv.Unquote(q)
					if err != nil {
						t.Fatalf("line %d: bad want %s", line, q)
					}
					wants[line] = append(wants[line], s)
				}
			}
		}
	}
	found := map[string]bool{}
	for _, e := range errs {
		if e.Pos.Line == 0 {
			if want := `type "Missing" given with -type is not declared in package bad`; e.Msg != want || e.Pos.Filename != file {
				t.Errorf("error without line: %s, want %s in %s", e, want, file)
			}
			continue
		}
		if e.Pos.Filename != file || e.Pos.Column == 0 {
			t.Errorf("error at %v, want a column in %s", e.Pos, file)
		}
		ok := false
		for _, w := range wants[e.Pos.Line] {
			if strings.Contains(e.Msg, w) {
				ok, found[strconv.Itoa(e.Pos.Line)+w] = true, true
			}
		}
		if !ok {
			t.Errorf("unexpected error: %s", e.Rel(filepath.Dir(file)))
		}
	}
	for line, ws := range wants {
		for _, w := range ws {
			if !found[strconv.Itoa(line)+w] {
				t.Errorf("%s:%d: no error containing %q", filepath.Base(file), line, w)
			}
		}
	}
	// The rendered form is what the command prints.
	for _, line := range strings.Split(errs.Rel(filepath.Dir(file)), "\n") {
		if !relRE.MatchString(line) {
			t.Errorf("rendered error %q does not match %s", line, relRE)
		}
	}
}

var (
	wantRE = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")
	relRE  = regexp.MustCompile(`^(\w+\.go:\d+:\d+|\w+\.go): mcpfile: [a-z].*[^.]$`)
)

func TestErrorRel(t *testing.T) {
	errs := model.ErrorList{
		{Pos: tokenPos("/m/b.go", 3, 1), Msg: "second"},
		{Pos: tokenPos("/m/a.go", 9, 2), Msg: "first"},
		{Msg: "no position"},
		{Pos: tokenPos("/other/c.go", 1, 1), Msg: "outside"},
		{Pos: tokenPos("/m/a.go", 9, 2), Msg: "first"},
	}
	got := errs.Err().(model.ErrorList).Rel("/m")
	want := "mcpfile: no position\na.go:9:2: mcpfile: first\nb.go:3:1: mcpfile: second\n/other/c.go:1:1: mcpfile: outside"
	if got != want {
		t.Errorf("Rel = %q, want %q", got, want)
	}
	if (model.ErrorList{}).Err() != nil {
		t.Errorf("empty ErrorList.Err() != nil")
	}
}

func tokenPos(file string, line, col int) token.Position {
	return token.Position{Filename: file, Line: line, Column: col}
}

func TestFileConstraint(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"a.go", "package a\n", ""},
		{"a_linux.go", "package a\n", "linux"},
		{"a_linux_test.go", "package a\n", "linux"},
		{"a_windows_arm64.go", "package a\n", "windows && arm64"},
		{"a_amd64.go", "package a\n", "amd64"},
		{"linux.go", "package a\n", ""},
		{"a_unix.go", "package a\n", ""},
		{"a_linux_gen.go", "package a\n", ""},
		{"a.go", "//go:build linux || darwin\n\npackage a\n", "linux || darwin"},
		{"a.go", "// Copyright.\n\n//go:build !windows\n\n// Package a.\npackage a\n", "!windows"},
		{"a.go", "//go:build !windows\n// Package a.\npackage a\n", "!windows"}, // the go command reads it in the doc too
		{"a_arm64.go", "//go:build linux\n\npackage a\n", "linux && arm64"},
		{"a.go", "// +build linux darwin\n// +build amd64\n\npackage a\n", "(linux || darwin) && amd64"},
		{"a.go", "//go:build linux\n// +build darwin\n\npackage a\n", "linux"},
		{"a.go", "// +build linux\npackage a\n", ""}, // no blank line: package doc
		{"a.go", "package a\n\n//go:build linux\n", ""},
		{"a.go", "/*\n//go:build linux\n*/\npackage a\n", ""},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, tc.name, tc.src, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		x, err := model.FileConstraint(tc.name, f)
		got := ""
		if x != nil {
			got = x.String()
		}
		if err != nil || got != tc.want {
			t.Errorf("FileConstraint(%q, %q) = %q, %v, want %q", tc.name, tc.src, got, err, tc.want)
		}
	}
}
