package runtime_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
)

// TestUnmarshal checks that runtime.Unmarshal decodes as json.Unmarshal
// does into a generated type, errors included.
func TestUnmarshal(t *testing.T) {
	for _, in := range []string{
		`{"image":"` + png1x1 + `","detail":2}`,
		`{"image":"https://example.com/a.png"}`,
		`{"image":5}`,
		`{"image":"` + png1x1 + `","detail":"x"}`,
		`{"image":`,
		`null`,
		`{}`,
	} {
		var got, want imageArgs
		err := runtime.Unmarshal([]byte(in), &got)
		werr := json.Unmarshal([]byte(in), &want)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !reflect.DeepEqual(got, want) {
			t.Errorf("Unmarshal(%s) = %v, %v; json.Unmarshal gives %v, %v", in, got, err, want, werr)
		}
	}
	// A generated type without file fields has no UnmarshalJSON.
	var n nestedForm
	if err := runtime.Unmarshal([]byte(`{"inner":{"x":"a"}}`), &n); err != nil || n.Inner.X != "a" {
		t.Errorf("Unmarshal into a type without files = %+v, %v", n, err)
	}
}
