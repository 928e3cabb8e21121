package emit

import (
	"bytes"
	"fmt"
	"go/format"
	"runtime"
	"testing"

	"github.com/dave/jennifer/jen"
)

// TestRenderPieces checks that formatting a file in pieces gives the bytes
// that formatting it whole gives, whatever the number of pieces.
func TestRenderPieces(t *testing.T) {
	file := func(marks bool, n int) *jen.File {
		f := jen.NewFilePathName("example.com/p", "p")
		f.ImportName(runtimePath, "runtime")
		f.Add(versionGuard())
		for i := range n {
			name := fmt.Sprintf("T%d", i)
			f.Line()
			if marks {
				f.Comment(pieceMark)
			}
			f.Line()
			f.Add(comment("If this fails to compile, "+name+" changed.").Var().Id("_").Id(name).Op("=").Struct(
				jen.Id("A").Int().Tag(map[string]string{"json": "a"}),
				jen.Id("LongerName").String().Tag(map[string]string{"json": "longer_name,omitempty"}),
			).Values())
			f.Line()
			f.Add(jen.Var().Id("v"+name).Op("=").Index(jen.Op("...")).Qual(runtimePath, "Descriptor").
				Custom(jen.Options{Open: "{", Close: "}", Multi: true},
					jen.Values(jen.Id("MaxSize").Op(":").Lit(i)).Op(",").Comment("a"),
					jen.Values(jen.Id("NoSniff").Op(":").True()).Op(",").Comment("longer_name"),
				))
			f.Line()
			f.Add(comment("F"+name+" decodes.").Func().Id("F"+name).Params(jen.Id("b").Index().Byte()).Error().Block(
				jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual(runtimePath, "ScanObject").Call(jen.Id("b"), jen.Nil(),
					jen.Func().Params(jen.Id("i").Int(), jen.Id("v").Index().Byte()).Error().Block(
						jen.Switch(jen.Id("i")).Block(jen.Case(jen.Lit(0)).Block(jen.Return(jen.Nil()))),
						jen.Return(jen.Nil()),
					)),
				jen.Return(jen.Err()),
			))
		}
		return f
	}
	for _, n := range []int{0, 1, 2, 7, 40} {
		var whole bytes.Buffer
		if err := file(false, n).Render(&whole); err != nil { // Render formats
			t.Fatal(err)
		}
		want, err := format.Source(whole.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{1, 2, 8} { // 4, 8 and 32 chunks at most
			prev := runtime.GOMAXPROCS(procs)
			got, err := render(file(true, n))
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%d types, GOMAXPROCS %d: render in pieces gives\n%s\nwant\n%s", n, procs, got, want)
			}
		}
	}
}
