package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpfile/mcpfile/cmd/mcpfilegen/internal/diff"
	"github.com/mcpfile/mcpfile/gen"
	"github.com/mcpfile/mcpfile/gen/model"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // generation errors, stale outputs with -check, failures
	exitUsage = 2
)

const usage = `usage: mcpfilegen [-type T,U] [-output file] [-check] [packages]

mcpfilegen generates MCP input schemas and file-decoding UnmarshalJSON methods
for struct types with mcpfile tags. Packages are go/packages patterns; the
default is the package in the current directory. See go doc
github.com/mcpfile/mcpfile/cmd/mcpfilegen.

Flags:
`

// run is mcpfilegen with its arguments, outputs and exit code.
func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("mcpfilegen", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprint(stderr, usage)
		flags.PrintDefaults()
	}
	typeList := flags.String("type", "", "comma-separated `names` of the types to generate for (default: every struct type with an mcpfile tag)")
	output := flags.String("output", gen.DefaultOutput, "`name` of the generated file in each package's directory")
	check := flags.Bool("check", false, "write nothing; exit 1 with a diff if a generated file is stale or missing")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	types, err := parseTypes(*typeList)
	if err == nil {
		_, err = gen.OutputName(*output)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpfilegen: %v\n", err)
		flags.Usage()
		return exitUsage
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "mcpfilegen: %v\n", err)
		return exitError
	}

	files, err := gen.Generate(context.Background(), gen.Config{
		Dir:       wd,
		Patterns:  flags.Args(),
		Types:     types,
		Output:    *output,
		AfterLoad: gen.LimitMemory,
	})
	if err != nil {
		var errs model.ErrorList
		if errors.As(err, &errs) {
			fmt.Fprintln(stderr, errs.Rel(wd))
		} else {
			fmt.Fprintf(stderr, "mcpfilegen: %v\n", err)
		}
		return exitError
	}

	// A file in the way that mcpfilegen did not write stops the run
	// before anything is written.
	var theirs model.ErrorList
	for _, f := range files {
		if e := notOurs(f.Path); e != nil {
			theirs = append(theirs, e)
		}
	}
	if len(theirs) > 0 {
		fmt.Fprintln(stderr, theirs.Rel(wd))
		return exitError
	}
	if *check {
		return checkFiles(wd, files, stdout, stderr)
	}
	for _, f := range files {
		write := writeFile
		if f.Content == nil {
			write = removeFile
		}
		if err := write(f.Path, f.Content); err != nil {
			var e *model.Error
			if errors.As(err, &e) {
				fmt.Fprintln(stderr, e.Rel(wd))
			} else {
				fmt.Fprintf(stderr, "mcpfilegen: %v\n", err)
			}
			return exitError
		}
	}
	return exitOK
}

// notOurs returns an error naming the file at path when there is one and
// mcpfilegen did not write it: its first line is not the generated-code
// header (model.GeneratedComment). Only its own output is the generator's
// to replace or remove; a hand-written file of that name, one that does not
// parse or one excluded by build constraints, is left alone.
func notOurs(path string) *model.Error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &model.Error{Pos: token.Position{Filename: path}, Msg: err.Error()}
	}
	defer f.Close()
	line := make([]byte, len(model.GeneratedComment)+2) // the header, \r\n
	n, _ := io.ReadFull(f, line)
	if model.IsOutputSource(line[:n]) {
		return nil
	}
	return foreign(path)
}

// foreign is the error on a file at path that mcpfilegen did not write.
func foreign(path string) *model.Error {
	return &model.Error{Pos: token.Position{Filename: path}, Msg: fmt.Sprintf(
		"not replacing %s: mcpfilegen did not write it (its first line is not %q); rename it, or choose another file name with -output",
		filepath.Base(path), model.GeneratedComment)}
}

// parseTypes splits the value of -type.
func parseTypes(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	names := strings.Split(list, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" {
			return nil, fmt.Errorf("-type %q has an empty type name", list)
		}
	}
	return names, nil
}

// checkFiles prints a diff for every file whose content on disk differs
// from what was generated and reports whether there was any.
func checkFiles(wd string, files []gen.File, stdout, stderr io.Writer) int {
	stale := 0
	for _, f := range files {
		old, err := os.ReadFile(f.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "mcpfilegen: %v\n", err)
			return exitError
		}
		if bytes.Equal(old, f.Content) && (err == nil) == (f.Content != nil) {
			continue // up to date, or to be removed and already gone
		}
		stale++
		name := rel(wd, f.Path)
		label := name + " (generated)"
		if f.Content == nil {
			label = name + " (removed: no selected types)"
		}
		stdout.Write(diff.Diff(name+" (on disk)", old, label, f.Content))
	}
	if stale > 0 {
		fmt.Fprintf(stderr, "mcpfilegen: %d generated file(s) stale or missing: run go generate\n", stale)
		return exitError
	}
	return exitOK
}

func rel(wd, path string) string {
	if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// removeFile removes the earlier output at path, which no package needs
// any more, if mcpfilegen wrote it.
func removeFile(path string, _ []byte) error {
	if e := notOurs(path); e != nil {
		return e
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeFile replaces the file at path with content, atomically (a temporary
// file in the same directory, renamed over it), unless it already holds
// exactly content, or mcpfilegen did not write it: it reads the file again
// just before, whatever was checked earlier. A new file gets mode 0644; a
// replaced one keeps its mode.
func writeFile(path string, content []byte) error {
	mode := fs.FileMode(0o644)
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, content) {
			return nil
		}
		if !model.IsOutputSource(old) {
			return foreign(path)
		}
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
