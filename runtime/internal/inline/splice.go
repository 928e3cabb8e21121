package inline

import (
	"bytes"
	"sync"

	"github.com/segmentio/asm/base64"
)

// A Splice is a run of base64 in a message that was decoded as the message
// was read: the message as it came is msg[:At] + base64.RawStdEncoding of
// Bytes + msg[At:] (Bytes' text: whole groups of 4, no padding).
type Splice struct {
	At    int    // where its text was, in msg
	Bytes []byte // what it decoded to; cap(Bytes) >= len(Bytes)+3
}

// SpliceMin: a run is decoded as it is read once this many characters of
// it have come. Shorter runs, most data: URIs, stay in the message as
// text: the rewriter decodes them where they are, and a splice's
// bookkeeping would cost more than it saves.
const SpliceMin = 64 << 10

// A Reading is one message being read. It keeps the message as it comes,
// except the long runs of base64 after ";base64,": those it decodes as
// their bytes arrive, so that a 27 MB message carrying a 20 MiB file is
// held as the 20 MiB of the file and a message of a few hundred bytes,
// never as the text (BENCHMARKS.md §10). A splice's characters are
// decoded from the buffer they were read into, while it is still in the
// CPU's cache, bar the first SpliceMin of them, which wait in the message.
type Reading struct {
	sz  sizes
	n   int64 // bytes written
	msg []byte
	sp  []Splice

	state readState
	scan  int // in plain: the first index of msg where ";base64," may yet begin
	at    int // in run and splicing: where the run begins in msg

	// In splicing: the bytes decoded go into cur, up to room of them,
	// then into a new chunk; full holds the chunks filled before cur.
	cur  []byte
	room int
	full [][]byte
	// pend is the partial group of 4 characters at the end of what was
	// written, which waits for its next bytes to be decoded.
	pend  [4]byte
	npend int
}

type readState uint8

const (
	plain    readState = iota // outside a run that may be spliced
	run                       // in a run after ";base64,", shorter than SpliceMin so far
	splicing                  // in a run being decoded as it comes
)

// sizes are the sizes a Reading works with, apart so that the tests can
// make them small enough for every edge to be reached with short input.
type sizes struct {
	min      int // SpliceMin; a multiple of 4
	block    int // characters decoded at a time; a multiple of 4
	chunk    int // the first chunk of a splice, in bytes
	maxChunk int // the largest chunk
}

var readSizes = sizes{min: SpliceMin, block: 64 << 10, chunk: 64 << 10, maxChunk: 4 << 20}

var marker = []byte(";base64,")

// b64 tells the characters of the base64 alphabet, the only ones a splice
// takes.
var b64 = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = true
	}
	return t
}()

// NewReading starts the reading of a message whose length is not known
// (a stdio line, an HTTP body without a declared length). A body of a
// declared length is best read into one buffer of that length, decoded
// in place (BENCHMARKS.md §10).
func NewReading() *Reading { return newReading(readSizes) }

func newReading(sz sizes) *Reading { return &Reading{sz: sz} }

// Write takes the message's next bytes, in order. p is not kept (it is
// a reused read buffer).
func (m *Reading) Write(p []byte) {
	// Each step takes what it can of p in its state and may change state:
	// p is taken in pieces, so that the text of a run is appended to msg
	// only up to SpliceMin characters.
	for len(p) > 0 {
		var k int
		switch m.state {
		case plain:
			k = m.plain(p)
		case run:
			k = m.run(p)
		default:
			k = m.splice(p)
		}
		m.n += int64(k)
		p = p[k:]
	}
}

// Len returns how many bytes were written, as they came (those spliced
// included): the caller enforces its limits with it.
func (m *Reading) Len() int64 { return m.n }

// Done returns the message read, with its splices in order; m is not
// used afterwards. A run the message ended in is a splice up to its last
// whole group.
func (m *Reading) Done() (msg []byte, sp []Splice) {
	if m.state == splicing {
		m.end()
	}
	return m.msg, m.sp
}

// Expand returns the message as it came: msg itself when sp is empty,
// else a new slice.
func Expand(msg []byte, sp []Splice) []byte {
	if len(sp) == 0 {
		return msg
	}
	n := len(msg)
	for _, s := range sp {
		n += base64.RawStdEncoding.EncodedLen(len(s.Bytes))
	}
	out := make([]byte, 0, n)
	i := 0
	for _, s := range sp {
		out = append(out, msg[i:s.At]...)
		o := len(out)
		out = out[:o+base64.RawStdEncoding.EncodedLen(len(s.Bytes))]
		base64.RawStdEncoding.Encode(out[o:], s.Bytes)
		i = s.At
	}
	return append(out, msg[i:]...)
}

// plain takes p up to the end of the next ";base64,", which starts a run,
// or all of it.
func (m *Reading) plain(p []byte) int {
	// A ";base64," begun at the end of msg may end in p. Only one length
	// of its start can be msg's end: ';' is its first byte and no other.
	for k := min(len(m.msg)-m.scan, len(marker)-1); k > 0; k-- {
		if bytes.HasSuffix(m.msg, marker[:k]) {
			if rest := marker[k:]; bytes.HasPrefix(p, rest) {
				m.msg = append(m.msg, rest...)
				m.begin()
				return len(rest)
			}
			break
		}
	}
	if i := bytes.Index(p, marker); i >= 0 {
		k := i + len(marker)
		m.msg = append(m.msg, p[:k]...)
		m.begin()
		return k
	}
	m.msg = append(m.msg, p...)
	m.scan = max(m.scan, len(m.msg)-(len(marker)-1))
	return len(p)
}

// begin starts a run where msg ends.
func (m *Reading) begin() {
	m.state = run
	m.at = len(m.msg)
}

// run takes p's characters of the run up to SpliceMin of them, where the
// splice starts; a run that ends before is left as text.
func (m *Reading) run(p []byte) int {
	need := m.sz.min - (len(m.msg) - m.at)
	i := 0
	for i < len(p) && i < need && b64[p[i]] {
		i++
	}
	m.msg = append(m.msg, p[:i]...)
	switch {
	case i == need:
		m.splice0()
	case i < len(p):
		m.state = plain
		m.scan = len(m.msg)
	}
	return i
}

// splice0 starts a splice: the run's first SpliceMin characters, in msg,
// are decoded, and msg cut back to where the run began.
func (m *Reading) splice0() {
	m.state = splicing
	m.cur, m.full, m.room, m.npend = nil, nil, 0, 0
	text := m.msg[m.at:]
	k, _ := m.decode(text)
	// Whatever the decoder did not take (it takes all: text is checked
	// to be of the alphabet) stays in msg as text.
	m.msg = append(m.msg[:m.at], text[k:]...)
	if k < len(text) {
		m.end()
	}
}

// splice takes p's characters of the run, decoding the whole groups of
// 4, until the run ends.
func (m *Reading) splice(p []byte) int {
	i := 0
	if m.npend > 0 {
		for ; m.npend < 4; i++ {
			if i == len(p) {
				return i
			}
			if !b64[p[i]] {
				m.end()
				return i
			}
			m.pend[m.npend] = p[i]
			m.npend++
		}
		if k, _ := m.decode(m.pend[:]); k == 0 {
			m.end()
			return i
		}
		m.npend = 0
	}
	k, stopped := m.decode(p[i:])
	i += k
	if stopped {
		m.end()
		return i
	}
	for ; i < len(p); i++ {
		if !b64[p[i]] {
			m.end()
			return i
		}
		m.pend[m.npend] = p[i]
		m.npend++
	}
	return i
}

// decode decodes the whole groups of src into the splice, a block at a
// time, up to the first byte outside the alphabet. It returns how many
// characters it took (whole groups) and whether it stopped before the
// end of src's whole groups.
//
// The decoders say where a run ends only in part: they skip '\r' and
// '\n', and what they write past a byte they refuse is theirs to decide.
// So a block is taken only when it decodes to exactly 3 bytes for every 4
// characters, without error; else the block is scanned for its first
// byte outside the alphabet and only the whole groups before it are
// decoded, again.
func (m *Reading) decode(src []byte) (int, bool) {
	src = src[:len(src)/4*4]
	i := 0
	for i < len(src) {
		if m.room-len(m.cur) < 3 {
			m.grow()
		}
		j := i + min(len(src)-i, m.sz.block, (m.room-len(m.cur))/3*4)
		if m.decodeBlock(src[i:j]) {
			i = j
			continue
		}
		e := i
		for e < j && b64[src[e]] {
			e++
		}
		if e = i + (e-i)/4*4; e > i && m.decodeBlock(src[i:e]) {
			i = e
		}
		return i, true
	}
	return i, false
}

// decodeBlock decodes src, whole groups of 4, after cur's bytes, and
// reports whether it decoded to 3 bytes for every 4 characters. The SIMD
// decoder writes 32 bytes for every 24 while at least 45 characters
// remain, so never past the bytes src decodes to: cur's room holds them.
func (m *Reading) decodeBlock(src []byte) bool {
	o, n := len(m.cur), len(src)/4*3
	d, err := base64.RawStdEncoding.Decode(m.cur[o:o+n], src)
	if err != nil || d != n {
		return false
	}
	m.cur = m.cur[:o+n]
	return true
}

// grow gives the splice a new chunk, twice as large as the one before,
// up to maxChunk.
func (m *Reading) grow() {
	if len(m.cur) > 0 {
		m.full = append(m.full, m.cur)
	}
	c := m.sz.chunk
	for range m.full {
		c = min(2*c, m.sz.maxChunk)
	}
	m.cur = spareChunks.take(c)
	m.room = c
}

// end ends the splice: its partial group goes back to msg as text, and
// the next bytes are read as plain text.
func (m *Reading) end() {
	if b := m.join(); len(b) > 0 {
		m.sp = append(m.sp, Splice{At: m.at, Bytes: b})
	}
	m.msg = append(m.msg, m.pend[:m.npend]...)
	m.cur, m.full, m.npend = nil, nil, 0
	m.state = plain
	m.scan = len(m.msg)
}

// join returns the splice's bytes as one slice with room for 3 more.
// The one chunk they were decoded into is kept when they fill at least
// half of it; else they are copied into one that fits, and the chunks
// are kept for the next splices (spareChunks).
func (m *Reading) join() []byte {
	n := len(m.cur)
	for _, c := range m.full {
		n += len(c)
	}
	if n == 0 {
		return nil
	}
	if len(m.full) == 0 && cap(m.cur) >= n+3 && n >= cap(m.cur)/2 {
		return m.cur
	}
	b := make([]byte, 0, n+3)
	for _, c := range m.full {
		b = append(b, c...)
	}
	b = append(b, m.cur...)
	spareChunks.give(m.full...)
	spareChunks.give(m.cur)
	return b
}

// spareChunks holds the chunks of splices joined, for the next ones: a
// chunk of fresh memory costs a page fault every 4 KiB (and the
// collector's zeroing when it is not fresh), which a reused one does not.
// A chunk taken again holds an earlier file's bytes, which nothing reads:
// a splice's bytes are only those it decoded (len), and a chunk kept
// whole as a splice's bytes (see join) is never held here again; the
// decoder appends at most a group to them and cuts their capacity to
// their length before a handler sees them (mcpfileimpl's decodeAfter).
var spareChunks = chunkCache{max: 8 << 20}

// A chunkCache holds up to max bytes of chunks for reuse.
type chunkCache struct {
	mu     sync.Mutex
	max    int
	held   int
	chunks [][]byte
}

// take returns an empty chunk of capacity c, held or new.
func (cc *chunkCache) take(c int) []byte {
	cc.mu.Lock()
	for i, b := range cc.chunks {
		if cap(b) == c {
			cc.chunks = append(cc.chunks[:i], cc.chunks[i+1:]...)
			cc.held -= c
			cc.mu.Unlock()
			return b[:0]
		}
	}
	cc.mu.Unlock()
	return make([]byte, 0, c)
}

// give holds chunks no longer used, within the bound.
func (cc *chunkCache) give(chunks ...[]byte) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, b := range chunks {
		// The chunks of NewReading's splices are powers of two; those of
		// other sizes (tests') are not held.
		if c := cap(b); c > 0 && c&(c-1) == 0 && cc.held+c <= cc.max {
			cc.chunks = append(cc.chunks, b[:0])
			cc.held += cap(b)
		}
	}
}
