package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type scanned struct {
	rest  string
	files []string // "i=val"
	err   string
}

func scan(b string, f *keyIndex) scanned {
	var s scanned
	rest, err := scanObject([]byte(b), f, func(i int, val []byte) error {
		s.files = append(s.files, fmt.Sprintf("%d=%s", i, val))
		return nil
	})
	if rest != nil {
		s.rest = string(rest)
	} else {
		s.rest = "<nil>"
	}
	if err != nil {
		s.err = err.Error()
	}
	return s
}

func TestScanObject(t *testing.T) {
	f := newKeyIndex([]string{"name", "image", "docs", "count"}, "image", "docs")
	tests := []struct {
		in   string
		want scanned
	}{
		{`{}`, scanned{rest: "<nil>"}},
		{` { } `, scanned{rest: "<nil>"}},
		{`{"image":"data:,x"}`, scanned{rest: "<nil>", files: []string{`0="data:,x"`}}},
		{`{"name":"n","image":"data:,x","count":3}`, scanned{rest: `{"name":"n","count":3}`, files: []string{`0="data:,x"`}}},
		{"{\n \"image\" : \"a\" ,\n \"name\":\t\"n\" }", scanned{rest: `{"name":	"n"}`, files: []string{`0="a"`}}},
		{`{"name":"n" , "count" : 1,"image":"a"}`, scanned{rest: `{"name":"n" , "count" : 1}`, files: []string{`0="a"`}}},
		{`{"docs":["a","b"],"image":null}`, scanned{rest: "<nil>", files: []string{`1=["a","b"]`, `0=null`}}},
		{`{"image":"a","image":"b"}`, scanned{rest: "<nil>", files: []string{`0="a"`, `0="b"`}}},
		{`{"\u0069mage":"a"}`, scanned{rest: "<nil>", files: []string{`0="a"`}}},
		{`{"IMAGE":"a","Docs":[]}`, scanned{rest: "<nil>", files: []string{`0="a"`, `1=[]`}}},
		{`{"other":{"image":"nested"},"x":[1,{"a":[]}]}`, scanned{rest: `{"other":{"image":"nested"},"x":[1,{"a":[]}]}`}},
		{`{"a":1,"image":"x","b":2,"docs":[],"c":3}`, scanned{rest: `{"a":1,"b":2,"c":3}`, files: []string{`0="x"`, `1=[]`}}},
		{`{"n\"ame":-1.5e+3,"image":true}`, scanned{rest: `{"n\"ame":-1.5e+3}`, files: []string{`0=true`}}},
		// Not objects: rest is b.
		{`null`, scanned{rest: `null`}},
		{` [1,2]`, scanned{rest: ` [1,2]`}},
		{`"str"`, scanned{rest: `"str"`}},
		{``, scanned{rest: ``}},
	}
	for _, tt := range tests {
		got := scan(tt.in, f)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("scanObject(%s) = %+v, want %+v", tt.in, got, tt.want)
		}
		if got.err == "" && got.rest != "<nil>" && strings.HasPrefix(strings.TrimSpace(tt.in), "{") && !json.Valid([]byte(got.rest)) {
			t.Errorf("scanObject(%s): rest %s is not valid JSON", tt.in, got.rest)
		}
	}
	// Without Fields everything is rest.
	if got := scan(`{"image":"a"}`, nil); got.rest != `{"image":"a"}` || got.files != nil {
		t.Errorf("scanObject(nil Fields) = %+v", got)
	}
}

func TestScanObjectErrors(t *testing.T) {
	f := newKeyIndex([]string{"image"}, "image")
	for _, in := range []string{
		`{`, `{"image"`, `{"image":`, `{"image":"a"`, `{"image":"a",}`, `{"image":"a"}x`, `{"image":"a"} {}`,
		`{image:"a"}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":nul}`,
		`{"a":[1,]}`, `{"a":[1 2]}`, `{"a":{"b"}}`, `{"a":{"b":1,}}`, `{"a" "b"}`, `{,}`, `{"a":1,,"b":2}`,
		"{\"a\":\"x\ty\"}", "{\"image\":\"x\ny\"}", `{"a":"\x"}`, `{"a":"\u12G4"}`, `{"a":'x'}`, "{\"a\":1}\x00",
		"{\"a\":\v1}", `{"a":[}`, `{"a":]}`, `{"a":"\`, `{"a":+1}`, `{"a":NaN}`, `{"a":"x"}}`,
		`{"image":"data:,x","b":[` + strings.Repeat("[", 20000) + `}`,
	} {
		var v struct{}
		want := json.Unmarshal([]byte(in), &v)
		if want == nil {
			t.Fatalf("test input %q is valid", in)
		}
		called := false
		_, err := scanObject([]byte(in), f, func(int, []byte) error { called = true; return nil })
		if err == nil || err.Error() != want.Error() {
			t.Errorf("scanObject(%q) error = %v, want encoding/json's %v", in, err, want)
		}
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("scanObject(%q) error %T, want *json.SyntaxError", in, err)
		}
		if called {
			t.Errorf("scanObject(%q) called file before finding the input malformed", in)
		}
	}
}

func TestScanObjectDepth(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		// The outer object is level 1; the member value adds depth-1 levels.
		in := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		var v struct{}
		want := json.Unmarshal([]byte(in), &v)
		_, err := scanObject([]byte(in), nil, nil)
		if (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
			t.Errorf("depth %d: scanObject error %v, encoding/json %v", depth, err, want)
		}
		in = `{"a":` + strings.Repeat(`{"b":`, depth-1) + "1" + strings.Repeat("}", depth-1) + `}`
		want = json.Unmarshal([]byte(in), &v)
		_, err = scanObject([]byte(in), nil, nil)
		if (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
			t.Errorf("depth %d objects: scanObject error %v, encoding/json %v", depth, err, want)
		}
	}
}

func TestScanObjectCallbackError(t *testing.T) {
	f := newKeyIndex([]string{"a", "b"}, "a", "b")
	boom := errors.New("boom")
	var seen []int
	rest, err := scanObject([]byte(`{"a":1,"b":2,"c":3}`), f, func(i int, _ []byte) error {
		seen = append(seen, i)
		return boom
	})
	if err != boom || rest != nil || len(seen) != 1 {
		t.Errorf("scanObject with failing callback = %s, %v, calls %v", rest, err, seen)
	}
}

// TestLookupMatchesEncodingJSON checks keys.lookup against the field
// encoding/json fills for the same key.
func TestLookupMatchesEncodingJSON(t *testing.T) {
	type T struct {
		Sk    string `json:"sk"`
		SK    string `json:"SK"`
		K     string `json:"k"`
		Kelv  string `json:"Kelvin"`
		Image string `json:"image"`
		Ima   string `json:"IMAGE"`
		Uni   string `json:"ǅx"`
		Plain string
	}
	all := []string{"sk", "SK", "k", "Kelvin", "image", "IMAGE", "ǅx", "Plain"}
	keys := []string{
		"sk", "SK", "Sk", "sK", "\u017fk", "\u017fK", "s\u212a", "k", "K", "\u212a",
		"kelvin", "\u212aelvin", "KELVIN", "image", "IMAGE", "Image", "ımage", "İmage",
		"ǅx", "ǄX", "ǆx", "plain", "PLAIN", "Plain", "nope", "", "imagé",
	}
	rt := reflect.TypeOf(T{})
	for fileIdx, file := range all {
		f := newKeyIndex(all, file)
		for _, key := range keys {
			var v T
			b, _ := json.Marshal(map[string]string{key: "x"})
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			filled := ""
			rv := reflect.ValueOf(v)
			for i := range rt.NumField() {
				if rv.Field(i).String() == "x" {
					filled = all[i]
				}
			}
			want := -1
			if filled == file {
				want = 0
			}
			_ = fileIdx
			if got := f.lookup([]byte(key)); got != want {
				t.Errorf("newKeyIndex(.., %q).lookup(%q) = %d, want %d (encoding/json fills %q)", file, key, got, want, filled)
			}
		}
	}
}

func TestScanArray(t *testing.T) {
	collect := func(tok string, maxItems int) (items []string, n int, err error) {
		n, err = scanArray("docs", []byte(tok), fileProp{kind: fileArray, maxItems: maxItems}, func(i int, tok []byte) error {
			items = append(items, fmt.Sprintf("%d=%s", i, tok))
			return nil
		})
		return
	}
	items, n, err := collect(` [ "a" , "b",null,{"x":[1]} ] `, 4)
	if err != nil || n != 4 || strings.Join(items, " ") != `0="a" 1="b" 2=null 3={"x":[1]}` {
		t.Errorf("scanArray = %q, %d, %v", items, n, err)
	}
	if items, n, err := collect(`[]`, 1); err != nil || n != 0 || items != nil {
		t.Errorf("scanArray([]) = %q, %d, %v", items, n, err)
	}
	items, n, err = collect(`["a","b","c"]`, 2)
	e := wantRule(t, "scanArray(3 items, max 2)", err, RuleMaxFiles)
	if e.Error() != "Argument 'docs' exceeds maxFiles: received 3 files, limit is 2." || n != 3 || items != nil {
		t.Errorf("scanArray(3 items, max 2) = %q, %d, %v", items, n, err)
	}
	if _, _, err := collect(`["a","b","c"]`, 0); err != nil {
		t.Errorf("scanArray(maxItems 0) = %v, want DefaultMaxFiles", err)
	}
	many := "[" + strings.Repeat(`"a",`, DefaultMaxFiles) + `"a"]`
	_, n, err = collect(many, 0)
	e = wantRule(t, "scanArray(DefaultMaxFiles+1 items)", err, RuleMaxFiles)
	if want := fmt.Sprintf("Argument 'docs' exceeds maxFiles: received %d files, limit is %d.", DefaultMaxFiles+1, DefaultMaxFiles); e.Error() != want || n != DefaultMaxFiles+1 {
		t.Errorf("scanArray(DefaultMaxFiles+1 items) = %d, %v; want %s", n, err, want)
	}
	_, err = scanArray("docs", []byte(`[]`), fileProp{kind: fileArray, minItems: 1}, nil)
	e = wantRule(t, "scanArray([], minItems 1)", err, RuleMinFiles)
	if want := "Argument 'docs' has fewer files than minFiles: received 0 files, minimum is 1."; e.Error() != want {
		t.Errorf("scanArray([], minItems 1) = %v, want %s", err, want)
	}
	for tok, kind := range map[string]string{`"data:,x"`: "a string", `null`: "null", `{}`: "an object", `1`: "a number"} {
		_, _, err := collect(tok, 0)
		e := wantRule(t, "scanArray("+tok+")", err, RuleType)
		if want := "Argument 'docs' has the wrong JSON type: received " + kind + ", want an array of data: URI strings."; e.Error() != want {
			t.Errorf("scanArray(%s) error\n got %s\nwant %s", tok, e, want)
		}
	}
	for _, tok := range []string{`[`, `["a",]`, `["a" "b"]`, `[1,2]x`, `["a\x"]`, `[,]`, `"abc`} {
		var v []json.RawMessage
		want := json.Unmarshal([]byte(tok), &v)
		_, _, err := collect(tok, 0)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("scanArray(%s) = %v, want encoding/json's %v", tok, err, want)
		}
	}
	boom := errors.New("boom")
	calls := 0
	if _, err := scanArray("docs", []byte(`[1,2,3]`), fileProp{}, func(int, []byte) error { calls++; return boom }); err != boom || calls != 1 {
		t.Errorf("scanArray with failing item = %v after %d calls", err, calls)
	}
}

func TestIsNull(t *testing.T) {
	for tok, want := range map[string]bool{"null": true, " null\n": true, "nul": false, `"null"`: false, "": false, "nullx": false} {
		if got := isNull([]byte(tok)); got != want {
			t.Errorf("isNull(%q) = %v, want %v", tok, got, want)
		}
	}
}

func TestStringSpecial(t *testing.T) {
	for n := range 80 {
		for pos := range n {
			for _, c := range []byte{'"', '\\', 0, 0x1f, 0x80} {
				b := []byte(strings.Repeat("a", n))
				b[pos] = c
				want := pos
				if c == 0x80 {
					if got := stringSpecial(b, 0, 0); got != n {
						t.Errorf("stringSpecial(%q, ascii) = %d, want %d", b, got, n)
					}
				}
				if got := stringSpecial(b, 0, msb); got != want {
					t.Errorf("stringSpecial(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
	// Bytes just above the thresholds are not special.
	b := []byte(strings.Repeat(" !#[]~\x7f", 10))
	if got := stringSpecial(b, 0, msb); got != len(b) {
		t.Errorf("stringSpecial(%q) = %d, want %d", b, got, len(b))
	}
}
