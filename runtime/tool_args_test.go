package runtime

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

var skelChecker = &argsChecker{files: map[string]*descriptor.Prop{
	"image": {Kind: descriptor.Single}, "docs": {Kind: descriptor.Array}, "few": {Kind: descriptor.Array, MaxItems: 2}, "some": {Kind: descriptor.Array, MinItems: 1},
	"upload":  {Kind: descriptor.Single, File: descriptor.File{TransferModes: []string{descriptor.Upload}}},
	"uploads": {Kind: descriptor.Array, File: descriptor.File{TransferModes: []string{descriptor.Upload}}},
	"either":  {Kind: descriptor.Single, File: descriptor.File{TransferModes: []string{descriptor.Inline, descriptor.Upload}}},
	"inline":  {Kind: descriptor.Array, File: descriptor.File{TransferModes: []string{descriptor.Inline}}},
}}

// TestSkeletonMaxFiles checks that a file array over its maxFiles fails in
// the skeleton with the SEP's words, before anything is validated or decoded.
func TestSkeletonMaxFiles(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // the error text; "" for none
	}{
		{`{"few":["a","b"]}`, ""},
		{`{"few":["a","b","c"]}`, "Argument 'few' exceeds maxFiles: received 3 files, limit is 2."},
		{`{"few":[1,2,3,4]}`, "Argument 'few' exceeds maxFiles: received 4 files, limit is 2."},
		{`{"docs":["a","b","c"]}`, ""},
	} {
		_, _, err := skelChecker.skeleton([]byte(tt.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("skeleton(%s) error = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSkeleton(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"image":"data:image/png;base64,AAAA","detail":2}`, `{"image":"data:,","detail":2}`},
		{` { "image" : "x\"y" , "detail" : [1, {"a":"}\""}] } `, `{"image":"data:,","detail":[1, {"a":"}\""}]}`},
		{`{"docs":["a", "b"]}`, `{"docs":["data:,"]}`},
		{`{"some":["a", "b"]}`, `{"some":["data:,"]}`},
		{`{"docs":[]}`, `{"docs":[]}`},
		{`{"image":5,"image":"x"}`, `{"image":null,"image":"data:,"}`},
		{`{"im\u0061ge":"zzz"}`, `{"im\u0061ge":"data:,"}`},
		{`{"Image":"zzz"}`, `{"Image":"zzz"}`},
		{`{"image":"a\\\\","x":"\\"}`, `{"image":"data:,","x":"\\"}`},
		{`{"image":"a","image":"b"}`, `{"image":"data:,","image":"data:,"}`},
		{`{}`, `{}`},
		{`[1]`, `[1]`},
		{`null`, `null`},
		{`"s"`, `"s"`},
		{``, ``},
	}
	for _, tt := range tests {
		got, _, err := skelChecker.skeleton([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("skeleton(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestSkeletonFileShapes checks that a file member of the wrong JSON type
// fails in the skeleton, named, without the validator's quoting of it.
func TestSkeletonFileShapes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"image":5}`, "Argument 'image' has the wrong JSON type: received a number, want a data: URI string."},
		{`{"image":null}`, "Argument 'image' has the wrong JSON type: received null, want a data: URI string."},
		{`{"image":{"uri":"data:,x"}}`, "Argument 'image' has the wrong JSON type: received an object, want a data: URI string."},
		{`{"image":["data:,x"]}`, "Argument 'image' has the wrong JSON type: received an array, want a data: URI string."},
		{`{"image":"x","image":true}`, "Argument 'image' has the wrong JSON type: received a boolean, want a data: URI string."},
		{`{"docs":["a", "b",3,null,["c"]]}`, "Argument 'docs[2]' has the wrong JSON type: received a number, want a data: URI string."},
		{`{"docs":[null]}`, "Argument 'docs[0]' has the wrong JSON type: received null, want a data: URI string."},
		{`{"docs":"x"}`, "Argument 'docs' has the wrong JSON type: received a string, want an array of data: URI strings."},
		{`{"docs":null}`, "Argument 'docs' has the wrong JSON type: received null, want an array of data: URI strings."},
		{`{"docs":{}}`, "Argument 'docs' has the wrong JSON type: received an object, want an array of data: URI strings."},
		{`{"image":{},"docs":{}}`, "Argument 'image' has the wrong JSON type: received an object, want a data: URI string."},
		{`{"docs":[` + strings.Repeat(`"",`, DefaultMaxFiles) + `""]}`, fmt.Sprintf("Argument 'docs' exceeds maxFiles: received %d files, limit is %d.", DefaultMaxFiles+1, DefaultMaxFiles)},
		{`{"some":[]}`, "Argument 'some' has fewer files than minFiles: received 0 files, minimum is 1."},
		// What is wanted follows the transfer modes: an upload-only field
		// takes an uploaded file's URI, not a data: URI.
		{`{"upload":5}`, "Argument 'upload' has the wrong JSON type: received a number, want an mcp-file: URI string (from files/authorizeUpload)."},
		{`{"uploads":"x"}`, "Argument 'uploads' has the wrong JSON type: received a string, want an array of mcp-file: URI strings (from files/authorizeUpload)."},
		{`{"uploads":[1]}`, "Argument 'uploads[0]' has the wrong JSON type: received a number, want an mcp-file: URI string (from files/authorizeUpload)."},
		{`{"either":{}}`, "Argument 'either' has the wrong JSON type: received an object, want a data: URI or mcp-file: URI string."},
		{`{"inline":[true]}`, "Argument 'inline[0]' has the wrong JSON type: received a boolean, want a data: URI string."},
	} {
		got, _, err := skelChecker.skeleton([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("skeleton(%s) = %q, %v; want error %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSkeletonErrors(t *testing.T) {
	for _, in := range []string{
		`{"a":}`, `{"a":"x`, `{"a" 1}`, `{"a":1,}`, `{"a":1`, `{"a":1}x`, `{a:1}`, `{"docs":["x",]}`, `{"docs":["x"`, `{"a":[1,2}`,
	} {
		if got, _, err := skelChecker.skeleton([]byte(in)); err == nil {
			t.Errorf("skeleton(%q) = %q, want an error", in, got)
		}
	}
}

// FuzzSkeleton checks that the skeleton of a JSON object is a JSON object
// with the same members, file strings replaced, everything else equal.
func FuzzSkeleton(f *testing.F) {
	for _, s := range []string{
		`{"image":"data:image/png;base64,AAAA","detail":2}`,
		`{"docs":["a","b",3],"names":["x"]}`,
		`{"a":{"b":[{"c":"\"]}"}]},"image":"\\"}`,
		`{"im\u0061ge":"x","docs":null}`,
		`{"few":["a","b","c"]}`,
		`{"few":["a","b","c"],"few":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want map[string]any
		if json.Unmarshal(in, &want) != nil || want == nil {
			return
		}
		skel, present, err := skelChecker.skeleton(in)
		var wantErr Rule // the rule the members decide, last of repeated keys winning
		for k, w := range want {
			p := skelChecker.files[k]
			if p == nil {
				continue
			}
			switch p.Kind {
			case descriptor.Single:
				if !isString(w) {
					wantErr = RuleType
				}
			case descriptor.Array:
				if !isArray(w) || slices.ContainsFunc(w.([]any), func(v any) bool { return !isString(v) }) {
					wantErr = RuleType
				} else if n := len(w.([]any)); n > p.MaxFiles(DefaultMaxFiles) || n < p.MinItems {
					wantErr = cmp.Or(wantErr, RuleMaxFiles)
				}
			}
		}
		if wantErr != "" {
			if fe := (*Error)(nil); !errors.As(err, &fe) || fe.Rule != wantErr && !(wantErr == RuleMaxFiles && fe.Rule == RuleMinFiles) && !(wantErr == RuleType && fe.Rule != "") {
				t.Fatalf("skeleton(%q) error = %v, want %s", in, err, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("skeleton(%q): %v", in, err)
		}
		var got map[string]any
		if err := json.Unmarshal(skel, &got); err != nil {
			t.Fatalf("skeleton(%q) = %q: %v", in, skel, err)
		}
		if !slices.Equal(keys(got), keys(want)) {
			t.Fatalf("skeleton(%q) = %q: members differ", in, skel)
		}
		for k, w := range want {
			g := got[k]
			var kind descriptor.Kind
			if p := skelChecker.files[k]; p != nil {
				kind = p.Kind
			}
			switch {
			case kind == descriptor.Single && isString(w):
				if g != "data:," || !present[k] {
					t.Fatalf("skeleton(%q): %q = %v, want the placeholder", in, k, g)
				}
			case kind == descriptor.Array && isArray(w):
				ws, gs := w.([]any), g.([]any)
				if want := min(len(ws), max(skelChecker.files[k].MinItems, 1)); len(gs) != want {
					t.Fatalf("skeleton(%q): %q has %d items, want %d", in, k, len(gs), want)
				}
				for i := range gs {
					if gs[i] != "data:," {
						t.Fatalf("skeleton(%q): %q[%d] = %v", in, k, i, gs[i])
					}
				}
			default:
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("skeleton(%q): %q = %v, want %v", in, k, g, w)
				}
			}
		}
	})
}

func keys(m map[string]any) []string {
	ks := slices.Sorted(maps.Keys(m))
	return ks
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }

func TestHasDefaults(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"integer","default":3}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string","default":"x"}}}}}`, true},
	} {
		c, err := newArgsChecker("arguments", json.RawMessage(tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		if c.hasDefaults != tt.want {
			t.Errorf("newArgsChecker(%s).hasDefaults = %v, want %v", tt.schema, c.hasDefaults, tt.want)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	c := &argsChecker{}
	for _, tt := range []struct {
		args    string
		inst    map[string]any
		present map[string]bool
		want    string
	}{
		{`{"note":"data:,x"}`, map[string]any{"note": "data:,", "level": 3.0}, map[string]bool{"note": true}, `{"note":"data:,x","level":3}`},
		{`{ }`, map[string]any{"level": 3.0}, nil, `{ "level":3}`},
		{``, map[string]any{"level": 3.0}, nil, `{"level":3}`},
		{`{"level":1}`, map[string]any{"level": 1.0}, nil, `{"level":1,"level":1}`},
	} {
		got, err := c.withDefaults(json.RawMessage(tt.args), tt.inst, tt.present)
		if err != nil || string(got) != tt.want {
			t.Errorf("withDefaults(%q, %v) = %q, %v, want %q", tt.args, tt.inst, got, err, tt.want)
		}
	}
}

// TestEchoCutsAtCharacter: a value an error quotes, cut to its bound, is
// cut between characters, never inside one, so the quote shows text and
// not the escaped half of a character.
func TestEchoCutsAtCharacter(t *testing.T) {
	s := strings.Repeat("a", maxEcho-1) + "€€"
	if got, want := echo(s), strconv.Quote(strings.Repeat("a", maxEcho-1)+"…"); got != want {
		t.Errorf("echo(%q) = %s, want %s", s, got, want)
	}
	e := &Error{Arg: "file", Rule: RuleScheme, Scheme: strings.Repeat("b", maxEcho-1) + "é"}
	if got := e.Error(); strings.Contains(got, `\x`) || !strings.Contains(got, `"`+strings.Repeat("b", maxEcho-1)+`…:"`) {
		t.Errorf("scheme error %q, want the scheme cut before the é", got)
	}
}
