package token

import (
	"testing"
	"time"
)

// The benchmarks use the claims and file reference of a typical upload:
// a principal, a name, a media type and a digest. SetBytes is the length
// of the token or URI made or checked.

func BenchmarkSign(b *testing.B) {
	r := ring(b, keyNew, keyOld)
	c := claims()
	c.Name = "report.pdf"
	b.SetBytes(int64(len(sign(b, r, c))))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Sign(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	r := ring(b, keyNew, keyOld)
	c := claims()
	c.Name = "report.pdf"
	tok := sign(b, r, c)
	b.SetBytes(int64(len(tok)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Verify(tok, PurposeUpload, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFileURI(b *testing.B) {
	r := ring(b, keyNew, keyOld)
	f := FileRef{Host: "files.example.com", FileID: NewFileID(), Owner: "alice@example.com", Expires: now.Add(24 * time.Hour)}
	b.SetBytes(int64(len(fileURI(b, r, f))))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.FileURI(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseFileURI is the check every tools/call with an uploaded
// file runs.
func BenchmarkParseFileURI(b *testing.B) {
	r := ring(b, keyNew, keyOld)
	f := FileRef{Host: "files.example.com", FileID: NewFileID(), Owner: "alice@example.com", Expires: now.Add(24 * time.Hour)}
	uri := fileURI(b, r, f)
	b.SetBytes(int64(len(uri)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ParseFileURI(uri, f.Owner, now); err != nil {
			b.Fatal(err)
		}
	}
}
