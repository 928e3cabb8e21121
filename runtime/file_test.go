package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/datauri"
)

// secret is a payload whose bytes must never be printed.
const secret = "TOP-SECRET-PAYLOAD"

func secretFile(t *testing.T) File {
	t.Helper()
	f := NewFile("text/plain", []byte(secret))
	f.Params, f.Name = map[string]string{"charset": "utf-8"}, "notes.txt"
	return f
}

func b64(s string) string {
	return datauri.Encode("x/y", []byte(s))[len("data:x/y;base64,"):]
}

func TestFileRedactedFmt(t *testing.T) {
	f := secretFile(t)
	tests := []struct{ format, want string }{
		{"%v", "data:text/plain;base64,[18 bytes]"},
		{"%s", "data:text/plain;base64,[18 bytes]"},
		{"%q", `"data:text/plain;base64,[18 bytes]"`},
		{"%+v", "{MediaType:text/plain Params:map[charset:utf-8] Name:notes.txt Size:18}"},
		{"%#v", `runtime.File{MediaType:"text/plain", Params:map[string]string{"charset":"utf-8"}, Name:"notes.txt" /* 18 bytes */}`},
		{"%x", "%!x(runtime.File=data:text/plain;base64,[18 bytes])"},
		{"%d", "%!d(runtime.File=data:text/plain;base64,[18 bytes])"},
	}
	for _, tt := range tests {
		for _, v := range []any{f, &f} {
			if got := fmt.Sprintf(tt.format, v); got != tt.want {
				t.Errorf("Sprintf(%q, %T) = %s, want %s", tt.format, v, got, tt.want)
			}
		}
	}
	// Inside other values, through exported fields.
	type input struct {
		Doc  File
		Docs []File
		Ptr  *File
	}
	in := input{Doc: f, Docs: []File{f, f}, Ptr: &f}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q"} {
		got := fmt.Sprintf(format, in) + fmt.Sprint(in) + fmt.Sprintln(f) + f.String()
		if strings.Contains(got, secret) || strings.Contains(got, b64(secret)) || strings.Contains(got, fmt.Sprintf("%x", secret)) {
			t.Errorf("Sprintf(%q) shows the data: %s", format, got)
		}
	}
}

func TestFileRedactedSlog(t *testing.T) {
	f := secretFile(t)
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("got", "file", f, "ptr", &f, "in", struct{ Doc File }{f})
	slog.New(slog.NewJSONHandler(&js, nil)).Info("got", "file", f, "ptr", &f, "in", struct{ Doc File }{f})
	for _, out := range []string{text.String(), js.String()} {
		if strings.Contains(out, secret) || strings.Contains(out, b64(secret)) {
			t.Errorf("slog shows the data: %s", out)
		}
	}
	if !strings.Contains(text.String(), "file.mimeType=text/plain file.name=notes.txt file.size=18") {
		t.Errorf("text handler output = %s", text.String())
	}
	if !strings.Contains(js.String(), `"file":{"mimeType":"text/plain","name":"notes.txt","size":18}`) {
		t.Errorf("JSON handler output = %s", js.String())
	}
}

func TestFileMarshalJSON(t *testing.T) {
	f := secretFile(t)
	b, err := json.Marshal(struct {
		Doc  File
		Ptr  *File
		Docs []File
	}{f, &f, []File{f}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Doc":{"mimeType":"text/plain","name":"notes.txt","size":18},"Ptr":{"mimeType":"text/plain","name":"notes.txt","size":18},"Docs":[{"mimeType":"text/plain","name":"notes.txt","size":18}]}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	// Wrapped into an error.
	err = fmt.Errorf("processing %v: %w", f, errors.New("boom"))
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the data: %v", err)
	}
}

// TestFileFormatEscapes checks that a File holding control or format
// characters in its media type, parameters or name, as one built by hand
// may, prints them escaped under every verb that shows them.
func TestFileFormatEscapes(t *testing.T) {
	f := NewFile("text/plain", []byte("secret"))
	f.Params = map[string]string{"charset": "utf-8", "x": "a\u202eb", "y": "line\u2028two", "z": "a b] Name:forged", "c\u200b": "nul\x00"}
	f.Name = "evil\u202efdp.exe"
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		got := fmt.Sprintf(format, f)
		if strings.ContainsAny(got, "\u202e\u2028\u200b\x00") {
			t.Errorf("Sprintf(%q) = %q holds a control or format character", format, got)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("Sprintf(%q) = %q shows the data", format, got)
		}
	}
	want := `{MediaType:text/plain Params:map[charset:utf-8 "c\u200b":"nul\x00" x:"a\u202eb" y:"line\u2028two" z:"a b] Name:forged"] Name:"evil\u202efdp.exe" Size:6}`
	if got := fmt.Sprintf("%+v", f); got != want {
		t.Errorf("Sprintf(%%+v)\n got %s\nwant %s", got, want)
	}
	// Plain values print as before.
	plain := NewFile("text/plain", []byte("x"))
	plain.Params, plain.Name = map[string]string{"charset": "utf-8"}, "Report (v2); final.pdf"
	if got, want := fmt.Sprintf("%+v", plain), "{MediaType:text/plain Params:map[charset:utf-8] Name:Report (v2); final.pdf Size:1}"; got != want {
		t.Errorf("Sprintf(%%+v) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("%+v", File{}), "{MediaType: Params:map[] Name: Size:0}"; got != want {
		t.Errorf("Sprintf(%%+v) = %s, want %s", got, want)
	}
}

// secretForms returns the ways fmt can spell the bytes of secret: the text,
// its base64, and what each verb prints for a []byte holding it (decimal,
// hex, octal, Go syntax…), without the brackets around them.
func secretForms() []string {
	forms := []string{secret, b64(secret)}
	for _, verb := range fmtVerbs {
		if verb == "%p" || verb == "%#p" || verb == "%T" {
			continue // an address (of the slice, not its bytes) and a type name
		}
		form := strings.Trim(fmt.Sprintf(verb, []byte(secret)), "[]{}")
		form = strings.TrimPrefix(form, "]byte{") // %#v: []byte{0x54, …}
		if len(form) >= 8 {
			forms = append(forms, form[:8]) // enough to spell "TOP-SECR" in that form
		}
	}
	return forms
}

// fmtVerbs are the verbs TestFileFmtNeverShowsBytes tries, with flags.
var fmtVerbs = []string{
	"%v", "%+v", "%#v", "%s", "%q", "%#q", "%x", "%X", "% x", "%#x", "%d", "%o", "%O", "%b", "%c", "%U", "%e", "%f", "%g", "%t", "%p", "%#p", "%T", "%10.3v",
}

// TestFileFmtNeverShowsBytes prints a File, a *File and values holding
// them (in exported and unexported fields, where fmt prints the File's
// fields itself) under every verb, %p included, and checks that no form of
// the bytes shows.
func TestFileFmtNeverShowsBytes(t *testing.T) {
	f := secretFile(t)
	type exported struct {
		Doc  File
		Docs []File
		Ptr  *File
		Map  map[string]File
	}
	type unexported struct {
		doc  File
		docs []File
		ptr  *File
	}
	values := []any{
		f, &f,
		exported{f, []File{f, f}, &f, map[string]File{"a": f}},
		&exported{Doc: f},
		unexported{f, []File{f}, &f},
		&unexported{doc: f},
		[]File{f}, []*File{&f}, [1]File{f},
		struct{ any }{f},
	}
	forms := secretForms()
	for _, verb := range fmtVerbs {
		for _, v := range values {
			got := fmt.Sprintf(verb, v)
			for _, form := range forms {
				if strings.Contains(got, form) {
					t.Errorf("Sprintf(%q, %T) shows the bytes as %q: %s", verb, v, form, got)
				}
			}
		}
	}
	// fmt handles %p before any method: on a File value it prints the
	// fields itself, and the bytes show as a pointer.
	want := regexp.MustCompile(`^%!p\(runtime\.File=\{text/plain map\[charset:utf-8\] notes\.txt 0x[0-9a-f]+ \{\}\}\)$`)
	if got := fmt.Sprintf("%p", f); !want.MatchString(got) {
		t.Errorf("Sprintf(%%p, File) = %s, want a match for %s", got, want)
	}
	if got := fmt.Sprintf("%p", &f); !regexp.MustCompile(`^0x[0-9a-f]+$`).MatchString(got) {
		t.Errorf("Sprintf(%%p, *File) = %s, want an address", got)
	}
}

func TestNewFile(t *testing.T) {
	data := []byte("hello")
	f := NewFile("text/plain", data)
	if f.MediaType != "text/plain" || f.Params != nil || f.Name != "" || f.Size() != 5 || string(f.Bytes()) != "hello" {
		t.Fatalf("NewFile = %+v, Bytes %q", f, f.Bytes())
	}
	// The bytes are not copied: Bytes and every reader see data itself.
	if &f.Bytes()[0] != &data[0] || cap(f.Bytes()) != cap(data) {
		t.Error("Bytes is a copy of the data given to NewFile")
	}
	data[0] = 'j'
	r, _ := f.Open()
	defer r.Close()
	if b, _ := io.ReadAll(r); string(b) != "jello" {
		t.Errorf("after a change to the data, Open reads %q, want jello", b)
	}
	// Copies of a File share its bytes.
	g := f
	g.Name = "copy.txt"
	if &g.Bytes()[0] != &data[0] || f.Name != "" {
		t.Error("a copy of a File does not share its bytes, or shares its Name")
	}
	if e := NewFile("text/plain", nil); e.Size() != 0 || len(e.Bytes()) != 0 || e.String() != "data:text/plain;base64,[0 bytes]" {
		t.Errorf("NewFile(nil) = %v, Size %d", e, e.Size())
	}
}

func TestFileZero(t *testing.T) {
	var f File
	if f.Size() != 0 || f.Bytes() != nil {
		t.Errorf("zero File: Size %d, Bytes %v; want 0, nil", f.Size(), f.Bytes())
	}
	r, err := f.Open()
	if err != nil {
		t.Fatalf("zero File: Open = %v", err)
	}
	if r.Size() != 0 {
		t.Errorf("zero File: reader Size %d", r.Size())
	}
	if n, err := r.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Errorf("zero File: Read = %d, %v; want 0, EOF", n, err)
	}
	if n, err := r.ReadAt(make([]byte, 4), 0); n != 0 || err != io.EOF {
		t.Errorf("zero File: ReadAt = %d, %v; want 0, EOF", n, err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("zero File: Close = %v", err)
	}
	if got, want := f.String(), "data:;base64,[0 bytes]"; got != want {
		t.Errorf("zero File: String = %s, want %s", got, want)
	}
	if b, _ := json.Marshal(f); string(b) != `{"mimeType":"","size":0}` {
		t.Errorf("zero File: MarshalJSON = %s", b)
	}
}

const digits = "0123456789"

func TestFileReaderRead(t *testing.T) {
	f := NewFile("text/plain", []byte(digits))
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Size() != 10 || f.Size() != 10 {
		t.Errorf("Size = %d, File.Size = %d; want 10", r.Size(), f.Size())
	}
	p := make([]byte, 4)
	for _, want := range []string{"0123", "4567", "89"} {
		if n, err := r.Read(p); string(p[:n]) != want || err != nil {
			t.Errorf("Read = %q, %v; want %q, nil", p[:n], err, want)
		}
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, EOF", n, err)
	}
	if r.Size() != 10 {
		t.Errorf("Size at the end = %d, want 10", r.Size())
	}
	// io.ReadAll and io.Copy read the whole file.
	r2, _ := f.Open()
	defer r2.Close()
	if _, ok := r2.(io.WriterTo); !ok {
		t.Error("the reader of an in-memory file is no io.WriterTo")
	}
	var b bytes.Buffer
	if n, err := io.Copy(&b, r2); n != 10 || err != nil || b.String() != digits {
		t.Errorf("io.Copy = %d, %v, %q", n, err, b.String())
	}
}

// TestFileReaderReadAt checks that ReadAt answers as bytes.Reader's does,
// io.EOF included.
func TestFileReaderReadAt(t *testing.T) {
	f := NewFile("text/plain", []byte(digits))
	r, _ := f.Open()
	defer r.Close()
	tests := []struct {
		off, len int64
		want     string
		err      error
	}{
		{0, 4, "0123", nil},
		{6, 4, "6789", nil},
		{8, 4, "89", io.EOF},
		{9, 1, "9", nil},
		{10, 1, "", io.EOF},
		{10, 0, "", io.EOF},
		{1 << 40, 4, "", io.EOF},
		{0, 0, "", nil},
		{0, 20, digits, io.EOF},
	}
	br := bytes.NewReader([]byte(digits))
	for _, tt := range tests {
		p := make([]byte, tt.len)
		n, err := r.ReadAt(p, tt.off)
		if string(p[:n]) != tt.want || err != tt.err {
			t.Errorf("ReadAt(%d bytes, %d) = %q, %v; want %q, %v", tt.len, tt.off, p[:n], err, tt.want, tt.err)
		}
		bn, berr := br.ReadAt(p, tt.off)
		if n != bn || err != berr {
			t.Errorf("ReadAt(%d bytes, %d) = %d, %v; bytes.Reader gives %d, %v", tt.len, tt.off, n, err, bn, berr)
		}
	}
	if n, err := r.ReadAt(make([]byte, 1), -1); n != 0 || err == nil || err == io.EOF {
		t.Errorf("ReadAt at -1 = %d, %v; want an error other than EOF", n, err)
	}
	// ReadAt neither uses nor moves the offset.
	p := make([]byte, 2)
	_, _ = r.Read(p)
	_, _ = r.ReadAt(p, 7)
	if n, _ := r.Read(p); string(p[:n]) != "23" {
		t.Errorf("Read after ReadAt = %q, want 23", p[:n])
	}
}

func TestFileReaderSeek(t *testing.T) {
	f := NewFile("text/plain", []byte(digits))
	r, _ := f.Open()
	defer r.Close()
	p := make([]byte, 2)
	for _, tt := range []struct {
		offset int64
		whence int
		pos    int64
		read   string
	}{
		{3, io.SeekStart, 3, "34"},
		{-1, io.SeekEnd, 9, "9"},
		{-4, io.SeekCurrent, 6, "67"},
		{0, io.SeekCurrent, 8, "89"},
		{0, io.SeekStart, 0, "01"},
	} {
		pos, err := r.Seek(tt.offset, tt.whence)
		if pos != tt.pos || err != nil {
			t.Errorf("Seek(%d, %d) = %d, %v; want %d", tt.offset, tt.whence, pos, err, tt.pos)
		}
		if n, _ := r.Read(p); string(p[:n]) != tt.read {
			t.Errorf("Read after Seek(%d, %d) = %q, want %q", tt.offset, tt.whence, p[:n], tt.read)
		}
	}
	// Past the end: allowed, and a Read there is at EOF.
	if pos, err := r.Seek(100, io.SeekStart); pos != 100 || err != nil {
		t.Errorf("Seek(100, SeekStart) = %d, %v", pos, err)
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Errorf("Read past the end = %d, %v; want 0, EOF", n, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek(-1, SeekStart) succeeded")
	}
	if _, err := r.Seek(0, 7); err == nil {
		t.Error("Seek(0, 7) succeeded")
	}
}

// TestFileReaderIndependent reads one File through many readers at once,
// and one reader with parallel ReadAt calls (run it with -race).
func TestFileReaderIndependent(t *testing.T) {
	data := bytes.Repeat([]byte(digits), 1000)
	f := NewFile("application/octet-stream", data)
	r1, _ := f.Open()
	r2, _ := f.Open()
	p := make([]byte, 3)
	_, _ = r1.Read(p)
	if n, _ := r2.Read(p); string(p[:n]) != "012" {
		t.Errorf("second reader starts at %q, want 012", p[:n])
	}
	_ = r1.Close()
	if n, err := r2.Read(p); string(p[:n]) != "345" || err != nil {
		t.Errorf("after the first reader's Close, the second reads %q, %v", p[:n], err)
	}
	_ = r2.Close()

	shared, _ := f.Open()
	defer shared.Close()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r, err := f.Open()
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			if b, err := io.ReadAll(r); err != nil || !bytes.Equal(b, data) {
				t.Errorf("reader %d: %d bytes, %v", i, len(b), err)
			}
			q := make([]byte, 10)
			for off := int64(i); off+10 <= int64(len(data)); off += 997 {
				if n, err := shared.ReadAt(q, off); n != 10 || err != nil || !bytes.Equal(q, data[off:off+10]) {
					t.Errorf("ReadAt(%d) = %q, %v", off, q[:n], err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestFileReaderClose(t *testing.T) {
	f := NewFile("text/plain", []byte(digits))
	r, _ := f.Open()
	if err := r.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	p := make([]byte, 4)
	if n, err := r.Read(p); n != 0 || !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Read after Close = %d, %v; want fs.ErrClosed", n, err)
	}
	if n, err := r.ReadAt(p, 0); n != 0 || !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadAt after Close = %d, %v; want fs.ErrClosed", n, err)
	}
	if _, err := r.Seek(0, io.SeekStart); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Seek after Close = %v; want fs.ErrClosed", err)
	}
	if n, err := r.(io.WriterTo).WriteTo(io.Discard); n != 0 || !errors.Is(err, fs.ErrClosed) {
		t.Errorf("WriteTo after Close = %d, %v; want fs.ErrClosed", n, err)
	}
	if err := r.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close = %v; want fs.ErrClosed", err)
	}
	if r.Size() != 10 {
		t.Errorf("Size after Close = %d, want 10", r.Size())
	}
	// The File itself is unaffected.
	r2, _ := f.Open()
	defer r2.Close()
	if b, err := io.ReadAll(r2); string(b) != digits || err != nil {
		t.Errorf("Open after a reader's Close reads %q, %v", b, err)
	}
}

// TestFileSizeShown checks that String, %+v, %#v, LogValue and MarshalJSON
// give the size, which now comes from Size.
func TestFileSizeShown(t *testing.T) {
	f := NewFile("application/octet-stream", make([]byte, 70000))
	var text bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("got", "file", f)
	j, _ := json.Marshal(f)
	for _, tt := range []struct{ got, want string }{
		{f.String(), "data:application/octet-stream;base64,[70000 bytes]"},
		{fmt.Sprintf("%+v", f), "{MediaType:application/octet-stream Params:map[] Name: Size:70000}"},
		{fmt.Sprintf("%#v", f), `runtime.File{MediaType:"application/octet-stream", Params:map[string]string(nil), Name:"" /* 70000 bytes */}`},
		{string(j), `{"mimeType":"application/octet-stream","size":70000}`},
	} {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
	if !strings.Contains(text.String(), "file.mimeType=application/octet-stream file.size=70000") {
		t.Errorf("text handler output = %s", text.String())
	}
}
