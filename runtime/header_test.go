package runtime

import (
	"fmt"
	"strings"
	"testing"
)

// TestParamInvisibleRefused checks that parameter values holding format
// characters or line separators make the URI malformed, while a name
// parameter holding them is sanitized.
func TestParamInvisibleRefused(t *testing.T) {
	for _, v := range []string{"%E2%80%AE", "%E2%80%8B", "%EF%BB%BF", "%E2%81%A0", "%E2%80%A8", "%E2%80%A9", "%C2%AD", "%E2%81%A6"} {
		uri := "data:text/plain;charset=utf" + v + "-8,hello"
		_, err := Decode("f", uri, Descriptor{})
		e := wantRule(t, "Decode("+uri+")", err, RuleURIForm)
		if e.Reason != "a media type parameter has an invalid value" {
			t.Errorf("Decode(%q) reason %q", uri, e.Reason)
		}
		if verr := Validate("f", uri, Descriptor{}); verr == nil || verr.Error() != err.Error() {
			t.Errorf("Validate(%q) = %v, want %v", uri, verr, err)
		}
		f, err := Decode("f", "data:text/plain;name=a"+v+"b.txt,hello", Descriptor{})
		if err != nil || f.Name != "ab.txt" {
			t.Errorf("Decode(name=a%sb.txt) = %q, %v; want name ab.txt", v, f.Name, err)
		}
	}
	// Printable non-ASCII values stay allowed.
	f, err := Decode("f", "data:text/plain;title=caf%C3%A9,hello", Descriptor{})
	if err != nil || f.Params["title"] != "café" {
		t.Errorf("Decode(title=café) = %v, %v", f.Params, err)
	}
}

// TestFileFormatEscapes checks that a File holding control or format
// characters in its media type, parameters or name, as one built by hand
// may, prints them escaped under every verb that shows them.
func TestFileFormatEscapes(t *testing.T) {
	f := File{
		MediaType: "text/plain",
		Params:    map[string]string{"charset": "utf-8", "x": "a\u202eb", "y": "line\u2028two", "z": "a b] Name:forged", "c\u200b": "nul\x00"},
		Name:      "evil\u202efdp.exe",
		Data:      []byte("secret"),
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		got := fmt.Sprintf(format, f)
		if strings.ContainsAny(got, "\u202e\u2028\u200b\x00") {
			t.Errorf("Sprintf(%q) = %q holds a control or format character", format, got)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("Sprintf(%q) = %q shows the data", format, got)
		}
	}
	want := `{MediaType:text/plain Params:map[charset:utf-8 "c\u200b":"nul\x00" x:"a\u202eb" y:"line\u2028two" z:"a b] Name:forged"] Name:"evil\u202efdp.exe" Data:[6 bytes]}`
	if got := fmt.Sprintf("%+v", f); got != want {
		t.Errorf("Sprintf(%%+v)\n got %s\nwant %s", got, want)
	}
	// Plain values print as before.
	plain := File{MediaType: "text/plain", Params: map[string]string{"charset": "utf-8"}, Name: "Report (v2); final.pdf", Data: []byte("x")}
	if got, want := fmt.Sprintf("%+v", plain), "{MediaType:text/plain Params:map[charset:utf-8] Name:Report (v2); final.pdf Data:[1 bytes]}"; got != want {
		t.Errorf("Sprintf(%%+v) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("%+v", File{}), "{MediaType: Params:map[] Name: Data:[0 bytes]}"; got != want {
		t.Errorf("Sprintf(%%+v) = %s, want %s", got, want)
	}
}
