package mcpfileimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

func TestScanArray(t *testing.T) {
	collect := func(tok string, maxItems int) (items []string, n int, err error) {
		n, err = scanArray("docs", []byte(tok), &descriptor.Prop{Kind: descriptor.Array, MaxItems: maxItems}, func(i int, tok []byte) error {
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
	e := wantRule(t, "scanArray(3 items, max 2)", err, runtime.RuleMaxFiles)
	if e.Error() != "Argument 'docs' exceeds maxFiles: received 3 files, limit is 2." || n != 3 || items != nil {
		t.Errorf("scanArray(3 items, max 2) = %q, %d, %v", items, n, err)
	}
	if _, _, err := collect(`["a","b","c"]`, 0); err != nil {
		t.Errorf("scanArray(maxItems 0) = %v, want runtime.DefaultMaxFiles", err)
	}
	many := "[" + strings.Repeat(`"a",`, runtime.DefaultMaxFiles) + `"a"]`
	_, n, err = collect(many, 0)
	e = wantRule(t, "scanArray(runtime.DefaultMaxFiles+1 items)", err, runtime.RuleMaxFiles)
	if want := fmt.Sprintf("Argument 'docs' exceeds maxFiles: received %d files, limit is %d.", runtime.DefaultMaxFiles+1, runtime.DefaultMaxFiles); e.Error() != want || n != runtime.DefaultMaxFiles+1 {
		t.Errorf("scanArray(runtime.DefaultMaxFiles+1 items) = %d, %v; want %s", n, err, want)
	}
	_, err = scanArray("docs", []byte(`[]`), &descriptor.Prop{Kind: descriptor.Array, MinItems: 1}, nil)
	e = wantRule(t, "scanArray([], minItems 1)", err, runtime.RuleMinFiles)
	if want := "Argument 'docs' has fewer files than minFiles: received 0 files, minimum is 1."; e.Error() != want {
		t.Errorf("scanArray([], minItems 1) = %v, want %s", err, want)
	}
	for tok, kind := range map[string]string{`"data:,x"`: "a string", `null`: "null", `{}`: "an object", `1`: "a number"} {
		_, _, err := collect(tok, 0)
		e := wantRule(t, "scanArray("+tok+")", err, runtime.RuleType)
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
	if _, err := scanArray("docs", []byte(`[1,2,3]`), &descriptor.Prop{}, func(int, []byte) error { calls++; return boom }); err != boom || calls != 1 {
		t.Errorf("scanArray with failing item = %v after %d calls", err, calls)
	}
}

// TestContentSniffErrorText checks the texts of content errors under the new
// check: what the bytes are said to be.
func TestContentSniffErrorText(t *testing.T) {
	tests := []struct {
		mt   string
		data []byte
		want string
	}{
		{"text/plain", cat("\xef\xbb\xbf", binaryTail),
			`Argument 'f' fails the content check: declared "text/plain" but the bytes are unrecognised binary data; send text or declare the real media type.`},
		{"image/png", []byte("BMI,weight\n"),
			`Argument 'f' fails the content check: declared "image/png" but the bytes are text; send image/png data or declare the real media type.`},
		{"application/pdf", cat("GIF89a\x01\x00\x01\x00"),
			`Argument 'f' fails the content check: declared "application/pdf" but the bytes are image/gif; send application/pdf data or declare the real media type.`},
	}
	for _, tt := range tests {
		_, err := decodeURI("f", datauri.Encode(tt.mt, tt.data), descriptor.File{})
		if err == nil || err.Error() != tt.want {
			t.Errorf("decodeURI(%s, %q) = %v\nwant %s", tt.mt, tt.data, err, tt.want)
		}
	}
}

// binaryTail is bytes no text has.
const binaryTail = "\x00\x01\x02\x03\xff\xfe\x10\x00\x00\x00\x7f\x80"

func cat(parts ...string) []byte { return []byte(strings.Join(parts, "")) }
