package benchfixture

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime"
)

// plainDescribe is Describe as a server without mcpfile declares it: the
// image as its data: URI string.
type plainDescribe struct {
	Image  string   `json:"image"`
	Prompt string   `json:"prompt"`
	Detail int      `json:"detail,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	Strict bool     `json:"strict,omitempty"`
}

// benchArgs returns the arguments of a describe_image call whose image is
// n bytes: a PNG signature, then noise.
func benchArgs(n int) []byte {
	img := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{6}).Read(img)
	copy(img, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	args, err := json.Marshal(plainDescribe{
		Image:  "data:image/png;base64," + base64.StdEncoding.EncodeToString(img),
		Prompt: "What is in this picture? Answer in one sentence.",
		Detail: 3,
		Tags:   []string{"photo", "benchmark"},
		Strict: true,
	})
	if err != nil {
		panic(err)
	}
	return args
}

// BenchmarkUnmarshal5MiB decodes the arguments of a call carrying a 5 MiB
// image: with the generated UnmarshalJSON called directly, as
// runtime.AddTool calls it (impl=generated), and with encoding/json into a
// string field followed by a base64 decode (impl=baseline).
// impl=runtime-unmarshal is runtime.Unmarshal, the entry point for decoding
// outside runtime.AddTool, which calls the method directly. impl=json-generated
// is json.Unmarshal into the generated type: encoding/json walks the whole
// input twice (its syntax check, then skipping the value it hands to
// UnmarshalJSON) before the generated method runs. Compare with
//
//	benchstat -col /impl bench.txt
func BenchmarkUnmarshal5MiB(b *testing.B) {
	const n = 5 << 20
	args := benchArgs(n)
	b.Run("impl=baseline", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			var v plainDescribe
			if err := json.Unmarshal(args, &v); err != nil {
				b.Fatal(err)
			}
			data, err := mcptest.DecodeByHand(v.Image)
			if err != nil || len(data) != n || v.Detail != 3 {
				b.Fatal(err, len(data))
			}
		}
	})
	b.Run("impl=generated", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			var v Describe
			if err := v.UnmarshalJSON(args); err != nil {
				b.Fatal(err)
			}
			if v.Image.Size() != n || v.Detail != 3 {
				b.Fatal(v.Image.Size())
			}
		}
	})
	b.Run("impl=runtime-unmarshal", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			var v Describe
			if err := runtime.Unmarshal(args, &v); err != nil {
				b.Fatal(err)
			}
			if v.Image.Size() != n || v.Detail != 3 {
				b.Fatal(v.Image.Size())
			}
		}
	})
	b.Run("impl=json-generated", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			var v Describe
			if err := json.Unmarshal(args, &v); err != nil {
				b.Fatal(err)
			}
			if v.Image.Size() != n || v.Detail != 3 {
				b.Fatal(v.Image.Size())
			}
		}
	})
}
