package serve

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/inline"
)

// pieces reads b in pieces of random sizes, some of a few bytes, some
// longer than a splice's start.
type pieces struct {
	b []byte
	r *rand.Rand
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(b), len(p.b), 1+p.r.IntN(3*inline.SpliceMin))
	if p.r.IntN(3) == 0 {
		n = min(n, 1+p.r.IntN(9))
	}
	copy(b, p.b[:n])
	p.b = p.b[n:]
	return n, nil
}

// TestInlineDeclinedAsItCame: what the fast path declines reaches the SDK
// byte for byte as it came, however it is cut into reads, over stdio and
// in HTTP bodies of unknown length: lines with long runs of base64 after
// ";base64," (decoded as they are read) that end in padding, '\r',
// non-ASCII, an escape or a quote, lines that are no message or over the
// limit, and a last line without a newline.
func TestInlineDeclinedAsItCame(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v"}, nil)
	const limit = 300 << 10
	r := rand.New(rand.NewPCG(1, 2))
	alpha := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for iter := 0; iter < 60; iter++ {
		var in bytes.Buffer
		for range 1 + r.IntN(4) {
			switch r.IntN(3) {
			case 0:
				in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"f":"data:text/plain;base64,`)
			case 1:
				in.WriteString(`x;bas`)
			}
			for range 1 + r.IntN(4) {
				in.WriteString(";base64,")
				n := r.IntN(2 * inline.SpliceMin)
				if r.IntN(4) == 0 {
					n = r.IntN(limit + 1000)
				}
				for range n {
					in.WriteByte(alpha[r.IntN(64)])
				}
				in.WriteString([]string{"=", "==", "\r", "é", "\"", "\\/", "-", ""}[r.IntN(8)])
			}
			if r.IntN(5) > 0 {
				in.WriteString("\"}}}\n")
			}
		}
		want := in.Bytes()
		c := newInlineIO(s, limit, inline.AnswerLimits{})
		got, err := io.ReadAll(c.reader(io.NopCloser(&pieces{append([]byte(nil), want...), r})))
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, "stdio", got, want)
		body := &pieces{append([]byte(nil), want...), r}
		msg, sp, err := readBody(body, -1, limit)
		if err != nil {
			got, _ = io.ReadAll(io.MultiReader(bytes.NewReader(msg), body))
		} else {
			got, _, _ = inline.RewriteSpliced(msg, sp, c.conn)
		}
		sameBytes(t, "HTTP", got, want)
	}
}

// sameBytes fails t unless got is want, saying where they differ.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%s: %d bytes read of %d sent, the first difference at %d: %.20q, sent %.20q", what, len(got), len(want), i, got[i:], want[i:])
}
