package call

import "testing"

func TestParseArg(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Arg
	}{
		{"doc=@a.pdf", Arg{Name: "doc", Path: "a.pdf"}},
		{"doc=@dir/a b.txt;type=text/markdown", Arg{Name: "doc", Path: "dir/a b.txt", MediaType: "text/markdown"}},
		{"title=Q3 report", Arg{Name: "title", Value: "Q3 report"}},
		{"title=", Arg{Name: "title"}},
		{"eq=a=b", Arg{Name: "eq", Value: "a=b"}},
		{"n:=3", Arg{Name: "n", Value: "3", JSON: true}},
		{`tags:=["a","b"]`, Arg{Name: "tags", Value: `["a","b"]`, JSON: true}},
	} {
		got, err := ParseArg(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseArg(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseArgErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"doc", `argument "doc": want name=@path, name=value or name:=json`},
		{"=x", `argument "=x": want name=@path, name=value or name:=json`},
		{":=3", `argument ":=3": no name before :=`},
		{"n:=three", `argument "n": the value after := is not JSON`},
		{"doc=@", `argument "doc": no path after @`},
		{"doc=@a;type=pdf", `argument "doc": ;type="pdf" is not a media type (want type/subtype, such as application/pdf)`},
	} {
		if _, err := ParseArg(tt.in); err == nil || err.Error() != tt.want {
			t.Errorf("ParseArg(%q) err = %v, want %q", tt.in, err, tt.want)
		}
	}
}
