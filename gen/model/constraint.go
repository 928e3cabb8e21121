package model

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"path/filepath"
	"strings"
)

// constraint returns the build constraint the generated file must carry:
// that of the files the types ts are declared in, which must all have the
// same one, "" when they have none. The generated file declares methods on
// every one of the types, so it compiles only where all of them exist; and
// where one of them exists, its methods must. Types declared under
// different constraints are reported.
func (b *builder) constraint(ts []*Type) string {
	files := map[string]*ast.File{}
	for _, f := range b.pkg.Syntax {
		files[b.pkg.Fset.File(f.Pos()).Name()] = f
	}
	var (
		first    *Type
		firstExp string
	)
	seen := map[string]string{} // file → its constraint
	for _, t := range ts {
		name := t.Pos.Filename
		exp, ok := seen[name]
		if !ok {
			x, err := FileConstraint(name, files[name])
			if err != nil {
				b.errs.Add(t.Pos, "%v", err)
				return ""
			}
			if x != nil {
				exp = x.String()
			}
			seen[name] = exp
		}
		if first == nil {
			first, firstExp = t, exp
			continue
		}
		if exp != firstExp {
			b.errs.Add(t.Pos, "type %s is declared under %s, type %s under %s: their methods go in one generated file, which can carry one build constraint; give their files the same //go:build line, or generate for them apart (-type and -output)",
				t.Name, describeConstraint(exp), first.Name, describeConstraint(firstExp))
		}
	}
	return firstExp
}

func describeConstraint(exp string) string {
	if exp == "" {
		return "no build constraint"
	}
	return fmt.Sprintf("build constraint %q", exp)
}

// FileConstraint returns the build constraint of the Go file named name,
// with syntax f (nil: none read): its //go:build line or, without one, its
// // +build lines, as the go command reads them in the file's header, and
// the operating system and architecture its name implies, as in x_linux.go
// or x_windows_arm64.go; nil when it has none.
func FileConstraint(name string, f *ast.File) (constraint.Expr, error) {
	var goBuild, plusBuild []constraint.Expr
	if f != nil {
		for _, g := range f.Comments {
			// The go command reads a //go:build line anywhere before
			// the package clause, but // +build lines only where a
			// blank line follows them: not in the package's doc.
			if g.Pos() >= f.Package {
				break
			}
			for _, c := range g.List {
				if !constraint.IsGoBuild(c.Text) && (!constraint.IsPlusBuild(c.Text) || g == f.Doc) {
					continue
				}
				x, err := constraint.Parse(c.Text)
				if err != nil {
					return nil, fmt.Errorf("bad build constraint %q: %v", c.Text, err)
				}
				if constraint.IsGoBuild(c.Text) {
					goBuild = append(goBuild, x)
				} else {
					plusBuild = append(plusBuild, x)
				}
			}
		}
	}
	xs := goBuild
	if len(xs) == 0 {
		xs = plusBuild
	}
	xs = append(xs, nameConstraint(filepath.Base(name))...)
	var x constraint.Expr
	for _, y := range xs {
		if x == nil {
			x = y
		} else {
			x = &constraint.AndExpr{X: x, Y: y}
		}
	}
	return x, nil
}

// nameConstraint returns the tags a file name implies, as go/build's
// goodOSArchFile reads them: *_GOOS, *_GOARCH or *_GOOS_GOARCH, before
// .go and an optional _test.
func nameConstraint(name string) []constraint.Expr {
	name, _, _ = strings.Cut(name, ".")
	i := strings.Index(name, "_")
	if i < 0 {
		return nil
	}
	l := strings.Split(name[i:], "_")
	if n := len(l); n > 0 && l[n-1] == "test" {
		l = l[:n-1]
	}
	n := len(l)
	switch {
	case n >= 2 && knownOS[l[n-2]] && knownArch[l[n-1]]:
		return []constraint.Expr{&constraint.TagExpr{Tag: l[n-2]}, &constraint.TagExpr{Tag: l[n-1]}}
	case n >= 1 && (knownOS[l[n-1]] || knownArch[l[n-1]]):
		return []constraint.Expr{&constraint.TagExpr{Tag: l[n-1]}}
	}
	return nil
}

// knownOS and knownArch are the operating systems and architectures file
// names may name, from the Go distribution's internal/syslist.
var (
	knownOS = setOf("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
		"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")
	knownArch = setOf("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64",
		"mips", "mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le",
		"riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
