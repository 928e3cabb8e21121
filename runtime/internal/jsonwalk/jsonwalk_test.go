package jsonwalk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

type scanned struct {
	rest  string
	files []string // "i=val"
	err   string
}

func scan(b string, f *KeyIndex) scanned {
	var s scanned
	rest, err := ScanObject([]byte(b), f, func(i int, val []byte) error {
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
	f := NewKeyIndex([]string{"name", "image", "docs", "count"}, "image", "docs")
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
			t.Errorf("ScanObject(%s) = %+v, want %+v", tt.in, got, tt.want)
		}
		if got.err == "" && got.rest != "<nil>" && strings.HasPrefix(strings.TrimSpace(tt.in), "{") && !json.Valid([]byte(got.rest)) {
			t.Errorf("ScanObject(%s): rest %s is not valid JSON", tt.in, got.rest)
		}
	}
	// Without Fields everything is rest.
	if got := scan(`{"image":"a"}`, nil); got.rest != `{"image":"a"}` || got.files != nil {
		t.Errorf("ScanObject(nil Fields) = %+v", got)
	}
}

func TestScanObjectErrors(t *testing.T) {
	f := NewKeyIndex([]string{"image"}, "image")
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
		_, err := ScanObject([]byte(in), f, func(int, []byte) error { called = true; return nil })
		if err == nil || err.Error() != want.Error() {
			t.Errorf("ScanObject(%q) error = %v, want encoding/json's %v", in, err, want)
		}
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ScanObject(%q) error %T, want *json.SyntaxError", in, err)
		}
		if called {
			t.Errorf("ScanObject(%q) called file before finding the input malformed", in)
		}
	}
}

func TestScanObjectDepth(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		// The outer object is level 1; the member value adds depth-1 levels.
		in := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		var v struct{}
		want := json.Unmarshal([]byte(in), &v)
		_, err := ScanObject([]byte(in), nil, nil)
		if (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
			t.Errorf("depth %d: ScanObject error %v, encoding/json %v", depth, err, want)
		}
		in = `{"a":` + strings.Repeat(`{"b":`, depth-1) + "1" + strings.Repeat("}", depth-1) + `}`
		want = json.Unmarshal([]byte(in), &v)
		_, err = ScanObject([]byte(in), nil, nil)
		if (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
			t.Errorf("depth %d objects: ScanObject error %v, encoding/json %v", depth, err, want)
		}
	}
}

func TestScanObjectCallbackError(t *testing.T) {
	f := NewKeyIndex([]string{"a", "b"}, "a", "b")
	boom := errors.New("boom")
	var seen []int
	rest, err := ScanObject([]byte(`{"a":1,"b":2,"c":3}`), f, func(i int, _ []byte) error {
		seen = append(seen, i)
		return boom
	})
	if err != boom || rest != nil || len(seen) != 1 {
		t.Errorf("ScanObject with failing callback = %s, %v, calls %v", rest, err, seen)
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
		f := NewKeyIndex(all, file)
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
			if got := f.Lookup([]byte(key)); got != want {
				t.Errorf("NewKeyIndex(.., %q).lookup(%q) = %d, want %d (encoding/json fills %q)", file, key, got, want, filled)
			}
		}
	}
}

func TestIsNull(t *testing.T) {
	for tok, want := range map[string]bool{"null": true, " null\n": true, "nul": false, `"null"`: false, "": false, "nullx": false} {
		if got := IsNull([]byte(tok)); got != want {
			t.Errorf("IsNull(%q) = %v, want %v", tok, got, want)
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

type member struct{ key, val string }

// members lists the members of the object b in order with encoding/json.
func members(t *testing.T, b []byte) []member {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("members(%q): %v %v", b, tok, err)
	}
	var out []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{k.(string), compact(t, raw)})
	}
	return out
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("compact(%q): %v", b, err)
	}
	return buf.String()
}

// FuzzScanObject checks ScanObject against encoding/json: the same verdict
// and error for every input; for an object, the file calls and rest hold
// exactly its members, in order, split by KeyIndex.Lookup. WalkArray is
// checked on every array value found.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"image":"data:,x","name":"n"}`, `{"Image":1,"IMAGE":2,"docs":["a","b"]}`,
		`{"\u0069mage":"x","a":{"b":[1,2,{"c":null}]},"d":-1.5e3}`, ` {"a" : [ true , false ] } `,
		`{"ſk":1,"K":2,"k":3}`, `{"a":"\ud800"}`, `[1,2]`, `null`, `{"a":1}x`, `{"a":01}`, `{"a":"x` + "\t" + `"}`,
	} {
		f.Add([]byte(s))
	}
	fields := NewKeyIndex([]string{"name", "image", "docs", "sk", "k"}, "image", "docs", "k")
	f.Fuzz(func(t *testing.T, b []byte) {
		var calls []member
		rest, err := ScanObject(b, fields, func(i int, val []byte) error {
			calls = append(calls, member{fmt.Sprint(i), string(val)})
			return nil
		})
		t0 := TrimWS(b)
		if len(t0) == 0 || t0[0] != '{' {
			if err != nil || !bytes.Equal(rest, b) {
				t.Fatalf("ScanObject(%q) on a non-object = %q, %v; want b, nil", b, rest, err)
			}
			return
		}
		valid := json.Valid(b)
		if valid != (err == nil) {
			t.Fatalf("ScanObject(%q) error %v, json.Valid %v", b, err, valid)
		}
		if !valid {
			if want := json.Unmarshal(b, new(struct{})); err.Error() != want.Error() {
				t.Fatalf("ScanObject(%q) error %q, encoding/json %q", b, err, want)
			}
			if calls != nil {
				t.Fatalf("ScanObject(%q) called file on malformed input", b)
			}
			return
		}
		var wantCalls, wantRest []member
		for _, m := range members(t, b) {
			if i := fields.Lookup([]byte(m.key)); i >= 0 {
				wantCalls = append(wantCalls, member{fmt.Sprint(i), m.val})
			} else {
				wantRest = append(wantRest, m)
			}
		}
		if len(calls) != len(wantCalls) {
			t.Fatalf("ScanObject(%q) calls %q, want %q", b, calls, wantCalls)
		}
		for i := range calls {
			if calls[i].key != wantCalls[i].key || compact(t, []byte(calls[i].val)) != wantCalls[i].val || calls[i].val != string(TrimWS([]byte(calls[i].val))) {
				t.Fatalf("ScanObject(%q) call %d = %q, want %q", b, i, calls[i], wantCalls[i])
			}
			if v := []byte(calls[i].val); v[0] == '[' {
				var arr []json.RawMessage
				if err := json.Unmarshal(v, &arr); err != nil {
					t.Fatal(err)
				}
				k := 0
				n, ok := WalkArray(v, func(tok []byte) bool {
					if compact(t, tok) != compact(t, arr[k]) {
						t.Fatalf("WalkArray(%q) item %d = %q, want %q", v, k, tok, arr[k])
					}
					k++
					return true
				})
				if !ok || n != len(arr) {
					t.Fatalf("WalkArray(%q) = %d, %v; want %d", v, n, ok, len(arr))
				}
			}
		}
		if len(wantRest) == 0 {
			if rest != nil {
				t.Fatalf("ScanObject(%q) rest %q, want nil", b, rest)
			}
			return
		}
		if !json.Valid(rest) {
			t.Fatalf("ScanObject(%q) rest %q is not valid JSON", b, rest)
		}
		got := members(t, rest)
		if fmt.Sprint(got) != fmt.Sprint(wantRest) {
			t.Fatalf("ScanObject(%q) rest %q = %q, want %q", b, rest, got, wantRest)
		}
	})
}

func BenchmarkScanObject(b *testing.B) {
	tok := []byte(`"data:image/png;base64,` + strings.Repeat("QUJD", (5<<20)/3) + `"`)
	other := make(map[string]string)
	for i := range 2000 {
		other["k"+strconv.Itoa(i)] = strings.Repeat("v", 1000)
	}
	ob, _ := json.Marshal(other)
	args := []byte(`{"prompt":"Describe the image.","image":` + string(tok) + `,"other":` + string(ob) + `}`)
	fields := NewKeyIndex([]string{"prompt", "image", "other"}, "image")
	b.Run("impl=baseline", func(b *testing.B) {
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			var v struct {
				Prompt string
				Image  string
				Other  json.RawMessage
			}
			if err := json.Unmarshal(args, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=runtime", func(b *testing.B) {
		b.SetBytes(int64(len(args)))
		b.ReportAllocs()
		for b.Loop() {
			var img []byte
			rest, err := ScanObject(args, fields, func(i int, val []byte) error { img = val; return nil })
			if err != nil || len(img) != len(tok) || len(rest) == 0 {
				b.Fatal(err)
			}
		}
	})
}
