package datauri_test

import (
	"fmt"

	"github.com/mcpfile/mcpfile/runtime/datauri"
)

const png1x1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg=="

func ExampleDecode() {
	h, data, err := datauri.Decode("data:text/plain;charset=utf-8,hello%20world")
	fmt.Println(h.MediaType, h.Params["charset"], string(data), err)

	_, _, err = datauri.Decode("https://example.com/cat.png")
	fmt.Println(err)
	// Output:
	// text/plain utf-8 hello world <nil>
	// not a data: URI: scheme "https:"
}

func ExampleEncode() {
	fmt.Println(datauri.Encode("text/plain;charset=utf-8", []byte("hello")))
	fmt.Println(datauri.Encode("not a type", []byte{1, 2}))
	// Output:
	// data:text/plain;charset=utf-8;base64,aGVsbG8=
	// data:application/octet-stream;base64,AQI=
}

func ExampleRedact() {
	fmt.Println(datauri.Redact(png1x1))
	fmt.Println(datauri.Redact("https://example.com/cat.png"))
	// Output:
	// data:image/png;base64,[70 bytes]
	// https:[27 bytes]
}
