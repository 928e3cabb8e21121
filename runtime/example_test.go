package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/mcpfile/mcpfile/runtime"
)

const png1x1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="

func ExampleDecode() {
	d := runtime.Descriptor{Accept: []string{"image/png", "image/jpeg"}, MaxSize: 5 << 20}

	f, err := runtime.Decode("image", png1x1, d)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.MediaType, len(f.Data))
	fmt.Println(f) // files print redacted

	_, err = runtime.Decode("image", "data:text/plain,hello%20world", d)
	fmt.Println(err)
	_, err = runtime.Decode("image", "file:///etc/passwd", d)
	fmt.Println(err)
	// Output:
	// image/png 70
	// data:image/png;base64,[70 bytes]
	// Argument 'image' has a media type that accept does not allow: received "text/plain", allowed are image/png, image/jpeg.
	// Argument 'image' is not a data: URI: received scheme "file:", only data: URIs are accepted.
}

func ExampleDecode_maxSize() {
	uri := runtime.Encode("application/pdf", make([]byte, 15728640))
	_, err := runtime.Decode("image", uri, runtime.Descriptor{MaxSize: 5242880})

	var e *runtime.Error
	if errors.As(err, &e) {
		fmt.Println(e.Rule, e.Received, e.Limit)
	}
	fmt.Println(err)
	// Output:
	// maxSize 15728640 5242880
	// Argument 'image' exceeds maxSize: received 15728640 bytes, limit is 5242880.
}

func ExampleDecode_percentEncoded() {
	f, err := runtime.Decode("note", "data:text/plain,hello%20world", runtime.Descriptor{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %q\n", f.MediaType, f.Data)
	// Output: text/plain "hello world"
}

func ExampleDecodeJSON() {
	// Some encoders escape '/' and '+'; the token is decoded as encoding/json would.
	tok := []byte(`"data:text\/plain;base64,SGVsbG8gd29ybGQh"`)
	f, err := runtime.DecodeJSON("note", tok, runtime.Descriptor{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", f.Data)
	// Output: "Hello world!"
}

func ExampleEncode() {
	fmt.Println(runtime.Encode("text/plain", []byte("Hello world!")))
	fmt.Println(runtime.Encode("", []byte{0xff}))
	// Output:
	// data:text/plain;base64,SGVsbG8gd29ybGQh
	// data:application/octet-stream;base64,/w==
}

func ExampleDescriptor_Accepts() {
	d := runtime.Descriptor{Accept: []string{"image/*", "application/pdf", ".pdf"}}
	for _, mt := range []string{"image/webp", "IMAGE/PNG", "application/pdf; charset=binary", "text/plain"} {
		fmt.Println(mt, d.Accepts(mt))
	}
	fmt.Println(runtime.Descriptor{Accept: []string{".pdf"}}.Accepts("text/plain"))
	// Output:
	// image/webp true
	// IMAGE/PNG true
	// application/pdf; charset=binary true
	// text/plain false
	// true
}

func ExampleFile_LogValue() {
	f, _ := runtime.Decode("image", png1x1, runtime.Descriptor{})
	h := slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	slog.New(h).Info("received", "image", f)
	b, _ := json.Marshal(f)
	fmt.Println(string(b))
	// Output:
	// {"level":"INFO","msg":"received","image":{"mimeType":"image/png","size":70}}
	// {"mimeType":"image/png","size":70}
}

func ExampleRedact() {
	fmt.Println(runtime.Redact(png1x1))
	fmt.Println(runtime.Redact("https://example.com/cat.png"))
	// Output:
	// data:image/png;base64,[70 bytes]
	// https:[27 bytes]
}

// describeArgs is what mcpfilegen generates an UnmarshalJSON for; written by
// hand here, it shows what the generated method does.
type describeArgs struct {
	Prompt string         `json:"prompt"`
	Images []runtime.File `json:"images" mcpfile:"accept=image/*,maxFiles=2"`
	Names  []string       `json:"names,omitempty"`
}

// describeSchema is its schema; the Object reads the file constraints from it.
const describeSchema = `{"type":"object","properties":{
	"prompt":{"type":"string"},
	"images":{"type":"array","maxItems":2,"items":{"type":"string","format":"uri","x-mcp-file":{"accept":["image/*"]}}},
	"names":{"type":["null","array"],"items":{"type":"string"}}},
	"required":["prompt","images"],"additionalProperties":false}`

var describeObject = runtime.NewObject(describeSchema, []string{"prompt", "images", "names"}, "images")

func (t *describeArgs) UnmarshalJSON(b []byte) error {
	type plain describeArgs // without this method, for encoding/json
	return describeObject.Unmarshal(b, (*plain)(t), runtime.IntoNamed(&t.Images, &t.Names))
}

func ExampleObject() {
	// The runtime finds the file members and decodes them; encoding/json
	// decodes the rest.
	var args describeArgs
	err := json.Unmarshal([]byte(`{"prompt":"Describe it.","images":["`+png1x1+`"],"names":["../dot.png"]}`), &args)
	fmt.Println(args.Prompt, args.Images, args.Images[0].Name, err)

	err = json.Unmarshal([]byte(`{"images":["data:,a","data:,b","data:,c"]}`), &args)
	fmt.Println(err)

	err = json.Unmarshal([]byte(`{"images":["`+png1x1+`","data:text/plain,hi"]}`), &args)
	fmt.Println(err)
	// Output:
	// Describe it. [data:image/png;base64,[70 bytes]] dot.png <nil>
	// Argument 'images' exceeds maxFiles: received 3 files, limit is 2.
	// Argument 'images[1]' has a media type that accept does not allow: received "text/plain", allowed are image/*.
}

func ExampleValidateJSON() {
	// For a field kept as a plain string: every check, no decoded bytes kept.
	uri, err := runtime.ValidateJSON("image", []byte(`"`+png1x1+`"`), runtime.Descriptor{Accept: []string{"image/png"}})
	fmt.Println(runtime.Redact(uri), err)

	_, err = runtime.ValidateJSON("image", []byte(`"data:image/png;base64,aGVsbG8="`), runtime.Descriptor{})
	fmt.Println(err)
	// Output:
	// data:image/png;base64,[70 bytes] <nil>
	// Argument 'image' fails the content check: declared "image/png" but the bytes are text; send image/png data or declare the real media type.
}
