package emit

import (
	"bytes"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpfile/mcpfile/gen/model"
)

// whole renders the file File renders, but as one jennifer file formatted
// whole, for TestPieces.
func whole(p *model.Package) ([]byte, error) {
	f, ts, _, err := plan(p)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if len(t.Schema) == 0 {
			return nil, fmt.Errorf("%s has no schema", t.Name)
		}
		c, err := schemaConst{name: schemaName(t.Name), schema: t.Schema}.decl()
		if err != nil {
			return nil, err
		}
		ds := []jen.Code{
			guardVar(t.Name, jen.Id(t.Name)),
			guardStruct(t.Name, structOf(&typeWriter{pkgPath: p.Path}, t)),
			schemaMethod(t.Name, useOf(t)),
			c,
		}
		if len(t.Files()) > 0 {
			dec, err := decoderDecls(t)
			if err != nil {
				return nil, err
			}
			ds = append(ds, dec...)
		}
		for _, d := range ds {
			f.Line()
			f.Add(d)
		}
	}
	var buf bytes.Buffer
	err = f.Render(&buf) // formats
	return buf.Bytes(), err
}

// Whole is whole, for the external tests.
var Whole = whole

// VersionGuardFile returns a Go file of package pkg (its import path's last
// element, below the emit package's testdata/overlay) that holds the
// version guard of code generated for version v.
func VersionGuardFile(pkg string, v int) []byte {
	f := jen.NewFilePathName("github.com/mcpfile/mcpfile/gen/emit/testdata/overlay/"+pkg, pkg)
	f.Add(versionGuard(v))
	return []byte(f.GoString())
}

// AppendIndented is appendIndented, for the external tests.
var AppendIndented = appendIndented
