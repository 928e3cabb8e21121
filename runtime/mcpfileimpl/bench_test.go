package mcpfileimpl

import (
	"encoding/base64"
	"encoding/json"
	"math/rand"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/datauri"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

// benchSizes are the decoded sizes benchmarked.
var benchSizes = []struct {
	name string
	n    int
}{{"64KiB", 64 << 10}, {"5MiB", 5 << 20}}

// benchPNG returns n bytes that start with a PNG signature, then noise.
func benchPNG(n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(int64(n))).Read(b)
	copy(b, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	return b
}

// benchText returns n bytes of text whose percent-encoding escapes spaces,
// newlines and a few other characters.
func benchText(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("line " + strconv.Itoa(i) + ": the quick brown fox jumps over the lazy dog;\n")
	}
	return []byte(b.String()[:n])
}

// benchToken returns the JSON string token of a file argument.
func benchToken(enc string, n int) (tok []byte, decoded int) {
	var uri string
	switch enc {
	case "base64":
		uri = datauri.Encode("image/png", benchPNG(n))
	case "base64-escaped":
		// As PHP's json_encode writes it: every '/' escaped.
		tok, _ := json.Marshal(datauri.Encode("image/png", benchPNG(n)))
		return []byte(strings.ReplaceAll(string(tok), "/", `\/`)), n
	default:
		uri = "data:text/plain," + url.PathEscape(string(benchText(n)))
	}
	tok, err := json.Marshal(uri)
	if err != nil {
		panic(err)
	}
	return tok, n
}

// baselineDecode is what a server does without this package: encoding/json
// into a string, then decoding the data with the standard library.
func baselineDecode(tok []byte) ([]byte, error) {
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return nil, err
	}
	i := strings.IndexByte(s, ',')
	if strings.HasSuffix(s[:i], ";base64") {
		return base64.StdEncoding.DecodeString(s[i+1:])
	}
	d, err := url.PathUnescape(s[i+1:])
	return []byte(d), err
}

// BenchmarkDecodeJSON decodes one file argument from its raw JSON string
// token, next to the baseline on the same bytes. Compare with
//
//	benchstat -col /impl bench.txt
func BenchmarkDecodeJSON(b *testing.B) {
	for _, enc := range []string{"base64", "base64-escaped", "percent"} {
		for _, size := range benchSizes {
			tok, n := benchToken(enc, size.n)
			d := descriptor.File{MaxSize: 32 << 20}
			b.Run("enc="+enc+"/size="+size.name+"/impl=baseline", func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					if data, err := baselineDecode(tok); err != nil || len(data) != n {
						b.Fatal(err, len(data))
					}
				}
			})
			b.Run("enc="+enc+"/size="+size.name+"/impl=runtime", func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					if f, err := decodeJSON("f", tok, d); err != nil || f.Size() != int64(n) {
						b.Fatal(err, f.Size())
					}
				}
			})
		}
	}
}

// BenchmarkDecode is Decode from a Go string (the URI already unmarshalled).
func BenchmarkDecode(b *testing.B) {
	for _, size := range benchSizes {
		uri := datauri.Encode("image/png", benchPNG(size.n))
		b.Run("enc=base64/size="+size.name, func(b *testing.B) {
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeURI("f", uri, descriptor.File{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidateJSON checks a file argument kept as a string.
func BenchmarkValidateJSON(b *testing.B) {
	for _, size := range benchSizes {
		tok, n := benchToken("base64", size.n)
		b.Run("enc=base64/size="+size.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := validateJSON("f", tok, descriptor.File{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanObject walks a 7 MB arguments object whose one file member is
// a 5 MiB base64 file, next to encoding/json checking and decoding the
// same object into a struct with the URI as a string.
