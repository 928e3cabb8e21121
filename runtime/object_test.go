package runtime

import (
	"strings"
	"testing"
)

// The decoding itself is tested through generated types (internal/testtypes,
// gen/internal/fixture); these are the paths only broken generated code takes.

func TestObjectTargets(t *testing.T) {
	o := NewObject([]string{"a", "b"}, FileField{Key: "a"}, FileField{Key: "b"})
	var a File
	var n int
	for _, tc := range []struct {
		name    string
		targets []Target
		want    string
	}{
		{"too few", []Target{Into(&a)}, "1 targets for 2 file fields"},
		{"not a file field", []Target{Into(&a), {field: &n}}, `field "b": target *int is not a pointer to a file field`},
		{"bad filename pairing", []Target{Into(&a), {field: &a, names: new([]string)}}, `field "b": no filename copy from *[]string to *runtime.File`},
	} {
		err := o.Unmarshal([]byte(`{"a":"data:,x","b":"data:,y"}`), new(struct{}), tc.targets...)
		if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want an internal error with %q", tc.name, err, tc.want)
		}
	}
}

func TestObjectNames(t *testing.T) {
	o := NewObject([]string{"one", "opt", "many", "absent"},
		FileField{Key: "one"}, FileField{Key: "opt"}, FileField{Key: "many"}, FileField{Key: "absent"})
	var (
		one, absent         File
		opt                 *File
		many                []File
		oneName, absentName = "../one.txt", "absent.txt"
		optName             = ""
		manyNames           = []string{"a.txt", "", "c\x00.txt"}
	)
	err := o.Unmarshal([]byte(`{"one":"data:,1","opt":"data:,2","many":["data:,a","data:,b","data:,c","data:,d"]}`), new(struct{}),
		IntoNamed(&one, &oneName), IntoNamed(&opt, &optName), IntoNamed(&many, &manyNames), IntoNamed(&absent, &absentName))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{one.Name, opt.Name, many[0].Name, many[1].Name, many[2].Name, many[3].Name, absent.Name}
	want := []string{"one.txt", "", "a.txt", "", SanitizeName("c\x00.txt"), "", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("names %q, want %q", got, want)
	}
}
