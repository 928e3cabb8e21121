package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTour runs the tour and fails on any failed check.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	tr := &tour{out: &out}
	tr.run(t.Context())
	if tr.failed > 0 || tr.passed < 34 {
		t.Errorf("%d checks failed, %d passed:\n%s", tr.failed, tr.passed, out.String())
	}
	if strings.Contains(out.String(), "base64,i") {
		t.Errorf("the tour prints file bytes:\n%s", out.String())
	}
}
