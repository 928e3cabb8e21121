package emit

import (
	"bytes"

	"github.com/mcpfile/mcpfile/gen/model"
)

// whole renders the file File renders, but as one jennifer file formatted
// whole, for TestPieces.
func whole(p *model.Package) ([]byte, error) {
	f, _, pieces, err := plan(p)
	if err != nil {
		return nil, err
	}
	for _, pc := range pieces {
		for _, d := range pc.decls {
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
