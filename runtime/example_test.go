package runtime_test

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/datauri"
)

const png1x1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="

// Decoding arguments outside runtime.AddTool: imageArgs is a type
// mcpfilegen generated code for (image: accept image/png|image/jpeg,
// maxSize 1KiB).
func ExampleUnmarshal() {
	var args imageArgs
	err := runtime.Unmarshal([]byte(`{"image":"`+png1x1+`","detail":2}`), &args)
	fmt.Println(args.Image, args.Detail, err) // files print redacted

	for _, image := range []string{
		"data:text/plain,hello%20world",
		"file:///etc/passwd",
		datauri.Encode("image/png", make([]byte, 2048)),
	} {
		err := runtime.Unmarshal([]byte(`{"image":"`+image+`"}`), &args)
		fmt.Println(err)
	}
	err = runtime.Unmarshal([]byte(`{"image":{"uri":"`+png1x1+`"}}`), &args)
	var e *runtime.Error
	if errors.As(err, &e) {
		fmt.Println(e.Rule, strings.Contains(err.Error(), "iVBOR"))
	}
	// Output:
	// data:image/png;base64,[70 bytes] 2 <nil>
	// Argument 'image' has a media type that accept does not allow: received "text/plain", allowed are image/png, image/jpeg.
	// Argument 'image' is not a data: URI: received scheme "file:", only data: URIs are accepted.
	// Argument 'image' exceeds maxSize: received 2048 bytes, limit is 1024.
	// type false
}

func ExampleFile_LogValue() {
	var args imageArgs
	_ = runtime.Unmarshal([]byte(`{"image":"`+png1x1+`"}`), &args)
	h := slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	slog.New(h).Info("received", "image", args.Image)
	b, _ := json.Marshal(args.Image)
	fmt.Println(string(b))
	// Output:
	// {"level":"INFO","msg":"received","image":{"mimeType":"image/png","size":70}}
	// {"mimeType":"image/png","size":70}
}

// A handler reads a file through Open, which works for every File wherever
// its bytes are; Bytes gives the bytes of a file held in memory, without a
// copy.
func ExampleFile_Open() {
	f := runtime.NewFile("text/plain", []byte("Hello, world!\n"))

	r, err := f.Open()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	fmt.Printf("%d bytes, sha256:%x, %v\n", n, h.Sum(nil), err)

	head := make([]byte, 5)
	_, err = r.ReadAt(head, 0) // at any offset, whatever Read did
	fmt.Printf("%q %v\n", head, err)

	if b := f.Bytes(); b != nil {
		fmt.Printf("in memory: %q\n", b[7:12])
	}
	// Output:
	// 14 bytes, sha256:d9014c4624844aa5bac314773d6b689ad467fa4e1d1a50a1b8a99d5a95f72ff5, <nil>
	// "Hello" <nil>
	// in memory: "world"
}
