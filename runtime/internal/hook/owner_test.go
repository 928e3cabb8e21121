package hook_test

import (
	"errors"
	"testing"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/hook"
)

// TestRuntimeSetsWhatItOwns: importing package runtime alone (not the
// decoder's package, which this test does not link) is enough for the
// transfer layer's check of a stored file to be there and to give the
// runtime's errors, in the order of a data: URI's checks.
func TestRuntimeSetsWhatItOwns(t *testing.T) {
	if hook.NewRef == nil || hook.IsRef == nil || hook.NewFetchRef == nil {
		t.Fatal("package runtime did not set the reference functions")
	}
	if hook.CheckFile == nil {
		t.Fatal("package runtime did not set CheckFile")
	}
	d := descriptor.File{Accept: []string{"image/png"}, MaxSize: 10}
	png := []byte("\x89PNG\r\n\x1a\n")
	for _, tc := range []struct {
		mt   string
		size int64
		head []byte
		want runtime.Rule // "" for none
	}{
		{"image/png", 8, png, ""},
		{"text/plain", 100, png, runtime.RuleMediaType}, // media type before size
		{"image/png", 11, png, runtime.RuleMaxSize},
		{"image/png", 8, []byte("hello, world"), runtime.RuleContent},
	} {
		err := hook.CheckFile("image", d, tc.mt, "", tc.size, tc.head)
		var e *runtime.Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckFile(%q, %d) = %v, want nil", tc.mt, tc.size, err)
		case tc.want != "" && (!errors.As(err, &e) || e.Rule != tc.want || e.Arg != "image"):
			t.Errorf("CheckFile(%q, %d) = %v, want a *runtime.Error of rule %s for argument image", tc.mt, tc.size, err, tc.want)
		}
	}
	d.NoSniff = true
	if err := hook.CheckFile("image", d, "image/png", "", 8, []byte("hello, world")); err != nil {
		t.Errorf("CheckFile with NoSniff = %v, want nil", err)
	}
}
