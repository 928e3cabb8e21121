package inline_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

// small are sizes at which short input reaches every edge of a Reading:
// the start of a splice, block and group boundaries, chunks filled.
var small = readSizes{min: 16, block: 12, chunk: 6, maxChunk: 24}

// real are the sizes NewReading uses.
var real = readSizes{min: inline.SpliceMin}

type readSizes struct{ min, block, chunk, maxChunk int }

func (s readSizes) new() *inline.Reading {
	if s.block == 0 {
		return inline.NewReading()
	}
	return inline.NewReadingSizes(s.min, s.block, s.chunk, s.maxChunk)
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var inAlphabet = func() (t [256]bool) {
	for _, c := range alphabet {
		t[c] = true
	}
	return t
}()

// want is what a Reading must make of in, found the plain way: each
// ";base64," followed by at least min characters of the alphabet is a
// splice of the run's whole groups.
func want(in []byte, min int) (msg []byte, sp []inline.Splice) {
	marker := []byte(";base64,")
	i := 0
	for {
		j := bytes.Index(in[i:], marker)
		if j < 0 {
			break
		}
		s := i + j + len(marker)
		e := s
		for e < len(in) && inAlphabet[in[e]] {
			e++
		}
		if e-s >= min {
			msg = append(msg, in[i:s]...)
			b, err := base64.RawStdEncoding.DecodeString(string(in[s : s+(e-s)/4*4]))
			if err != nil {
				panic(err)
			}
			sp = append(sp, inline.Splice{At: len(msg), Bytes: b})
			i = s + (e-s)/4*4
		} else {
			msg = append(msg, in[i:s]...)
			i = s
		}
	}
	return append(msg, in[i:]...), sp
}

// read writes in to a Reading of sizes s, next(i) bytes at a time from
// in[i:] through a reused buffer, and checks what it made against want:
// the same message and splices, the message as it came from Expand, Len
// counting every byte, and each splice's bytes with the room promised.
func read(t *testing.T, s readSizes, in []byte, next func(i int) int) ([]byte, []inline.Splice) {
	t.Helper()
	m := s.new()
	var buf []byte
	for i := 0; i < len(in); {
		k := min(max(next(i), 1), len(in)-i)
		buf = append(buf[:0], in[i:i+k]...)
		m.Write(buf)
		clear(buf) // p is not kept
		i += k
		if m.Len() != int64(i) {
			t.Fatalf("Len() = %d after %d bytes", m.Len(), i)
		}
	}
	msg, sp := m.Done()
	if out := inline.Expand(msg, sp); !bytes.Equal(out, in) {
		t.Fatalf("Expand(Done()) differs from the %d bytes written (%d bytes, %d splices)", len(in), len(out), len(sp))
	}
	wmsg, wsp := want(in, s.min)
	if !bytes.Equal(msg, wmsg) {
		t.Fatalf("Done() message of %d bytes, want %d", len(msg), len(wmsg))
	}
	if len(sp) != len(wsp) {
		t.Fatalf("Done() made %d splices, want %d", len(sp), len(wsp))
	}
	for i, x := range sp {
		if x.At != wsp[i].At || !bytes.Equal(x.Bytes, wsp[i].Bytes) {
			t.Fatalf("splice %d at %d of %d bytes, want at %d of %d bytes", i, x.At, len(x.Bytes), wsp[i].At, len(wsp[i].Bytes))
		}
		// Room for 3 more, and no more than twice what is needed, so that
		// a message of several files keeps no slack.
		if n := len(x.Bytes); cap(x.Bytes) < n+3 || cap(x.Bytes) > 2*n+3 {
			t.Fatalf("splice %d: cap %d for %d bytes", i, cap(x.Bytes), n)
		}
	}
	return msg, sp
}

func every(n int) func(int) int { return func(int) int { return n } }

// uri is a data: URI of n bytes of seeded random data, in a JSON string.
func uri(seed uint64, n int) (string, []byte) {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return `"data:image/png;base64,` + base64.StdEncoding.EncodeToString(b) + `"`, b
}

func call(args ...string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":[` + strings.Join(args, ",") + `]}}}`)
}

// TestReadingEveryWriteSize writes messages of several runs, short and
// long, broken by each kind of byte, at every write size.
func TestReadingEveryWriteSize(t *testing.T) {
	var args []string
	for i, n := range []int{1, 2, 3, 11, 12, 13, 14, 30, 31, 32, 33, 100} {
		u, _ := uri(uint64(i), n)
		args = append(args, u)
	}
	in := call(append(args,
		`"data:;base64,`+strings.Repeat("QUJD", 5)+`\/x"`,
		`"data:;base64,`+strings.Repeat("QUJD", 6)+"\r\nQUJD\"",
		`";base64;base64,,;base64,`+strings.Repeat("Q", 20)+`;base64,`+strings.Repeat("Q", 21)+`"`,
		`";base64,`+strings.Repeat("Q", 18)+`;base64,`+strings.Repeat("Q", 17)+`"`)...)
	for n := 1; n <= len(in); n++ {
		read(t, small, in, every(n))
	}
}

// TestReadingSplices reads a long file at the sizes NewReading uses: it
// is spliced, the message left is the rest, and msg never took in much
// more of the run than SpliceMin.
func TestReadingSplices(t *testing.T) {
	for _, size := range []int{1 << 20, 1<<20 + 1, 1<<20 + 2} {
		u, file := uri(1, size)
		in := call(u)
		for _, n := range []int{1 << 20, 4096, 65537} {
			t.Run(fmt.Sprintf("size=%d/write=%d", size, n), func(t *testing.T) {
				msg, sp := read(t, real, in, every(n))
				if len(sp) != 1 || len(msg) > 200 {
					t.Fatalf("%d splices, %d bytes of message left", len(sp), len(msg))
				}
				if got := sp[0].Bytes; !bytes.Equal(got, file[:size/3*3]) {
					t.Fatalf("the splice's %d bytes are not the file's first %d", len(got), size/3*3)
				}
				if c := cap(msg); c > 2*inline.SpliceMin+1024 {
					t.Fatalf("cap(msg) = %d reading a run in writes of %d", c, n)
				}
				if c := cap(sp[0].Bytes); c != len(sp[0].Bytes)+3 {
					t.Fatalf("cap %d for %d bytes, joined from its chunks", c, len(sp[0].Bytes))
				}
			})
		}
	}
}

// TestReadingRunEnds ends a run at, before and after SpliceMin and group
// and block boundaries, with each kind of byte outside the alphabet.
func TestReadingRunEnds(t *testing.T) {
	const min, block = inline.SpliceMin, 64 << 10
	var ends []int
	for _, at := range []int{min, min + block, min + 2*block} {
		for d := -5; d <= 5; d++ {
			ends = append(ends, at+d)
		}
	}
	text := []byte(strings.Repeat("QUJD", (min+3*block)/4))
	for _, c := range []byte{'=', '"', '\\', '\r', '\n', 0, 0x1f, 0x7f, 0x80, 0xff, '-', ';'} {
		for _, e := range ends {
			in := append([]byte(`{"f":"data:;base64,`), text[:e]...)
			in = append(append(in, c), `;base64,QUJD"}`...)
			for _, n := range []int{len(in), 4093} {
				t.Run(fmt.Sprintf("byte=%#x/at=%d/write=%d", c, e, n), func(t *testing.T) {
					_, sp := read(t, real, in, every(n))
					if want := e >= min; (len(sp) == 1) != want {
						t.Fatalf("%d splices, want spliced %v", len(sp), want)
					}
				})
			}
		}
	}
}

// TestReadingPadding ends long runs with padding, which stays in the
// message with the partial group before it.
func TestReadingPadding(t *testing.T) {
	for _, pad := range []string{"QQ==", "QUE=", "QQ", "QUE", "Q", "="} {
		in := []byte(`"data:;base64,` + strings.Repeat("QUJD", inline.SpliceMin/4+1) + pad + `"`)
		msg, sp := read(t, real, in, every(4099))
		if len(sp) != 1 || !bytes.HasSuffix(msg, []byte(pad+`"`)) {
			t.Fatalf("%s: %d splices, message ends %q", pad, len(sp), msg[max(0, len(msg)-8):])
		}
	}
}

// TestReadingSeveralFiles reads a call of several files, long and short:
// one splice each of the long, each fitting its bytes.
func TestReadingSeveralFiles(t *testing.T) {
	var args []string
	var files [][]byte
	for i, n := range []int{300 << 10, 49151, 49152, 10, 1 << 20, 100 << 10} {
		u, b := uri(uint64(i), n)
		args = append(args, u)
		if n >= inline.SpliceMin/4*3 {
			files = append(files, b)
		}
	}
	in := call(args...)
	_, sp := read(t, real, in, func(i int) int { return 1<<16 + i%7919 })
	if len(sp) != len(files) {
		t.Fatalf("%d splices, want %d", len(sp), len(files))
	}
}

// TestReadingPlain reads a large message without a run: it is kept
// whole, and Expand gives it back as it is.
func TestReadingPlain(t *testing.T) {
	in := bytes.Repeat([]byte(`{"text":"a plain line; base64, not: `+alphabet+`"},`), 40000)
	msg, sp := read(t, real, in, every(1<<20))
	if len(sp) != 0 || &inline.Expand(msg, sp)[0] != &msg[0] {
		t.Fatalf("%d splices, or Expand copied a message without any", len(sp))
	}
}

// FuzzReading writes any input in pieces chosen by a seed, at small
// sizes: the Reading must make of it what want does, and give it back
// whole.
func FuzzReading(f *testing.F) {
	u, _ := uri(1, 40)
	f.Add(call(u, `"data:;base64,QUJDQUJDQUJDQUJDQUJD\nQUJD"`, `";base64,QUJDQUJDQUJDQUJDQ=="`), uint64(1))
	f.Add([]byte(";base64,QUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJD\rQUJD"), uint64(2))
	f.Add([]byte(";bas;base64,"+strings.Repeat("/+9z", 30)+"Q;base64,"+strings.Repeat("a", 17)), uint64(3))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0))
		sz := []readSizes{small, {min: 4, block: 4, chunk: 3, maxChunk: 3}, {min: 64, block: 48, chunk: 48, maxChunk: 96}}[seed%3]
		read(t, sz, in, func(int) int {
			if r.IntN(2) == 0 {
				return 1 + r.IntN(4)
			}
			return 1 + r.IntN(256)
		})
	})
}

// BenchmarkReading reads a 20 MiB file's message in writes of 1 MiB,
// against appending the same writes to a slice, as a line was read
// before (the decoding then came later).
func BenchmarkReading(b *testing.B) {
	u, _ := uri(1, 20<<20)
	in := call(u)
	buf := make([]byte, 1<<20)
	each := func(f func(p []byte)) {
		for i := 0; i < len(in); i += len(buf) {
			n := copy(buf, in[i:])
			f(buf[:n])
		}
	}
	b.Run("reading", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			m := inline.NewReading()
			each(m.Write)
			if msg, sp := m.Done(); len(sp) != 1 || len(msg) > 200 {
				b.Fatal("not spliced")
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			var msg []byte
			each(func(p []byte) { msg = append(msg, p...) })
			if len(msg) != len(in) {
				b.Fatal("short")
			}
		}
	})
}
