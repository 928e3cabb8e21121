// Package jsonwalk walks JSON without decoding it: it finds the members of
// an object and the items of an array as raw byte ranges, skips long
// strings (a base64 payload of megabytes) at memory speed, unescapes JSON
// strings exactly as encoding/json does, and matches keys to struct fields
// with encoding/json's rules. On malformed input every function reports
// what encoding/json reports for the same input, so that users see one set
// of messages. It is used by the runtime's argument check and by the
// decoder generated code calls; it knows nothing of files.
//
// Why not a library: github.com/segmentio/encoding/json, already in the
// go-sdk's module graph, was measured against this walker on the arguments
// of a call with a 5 MiB base64 file (a 7 MB object; segmentio/encoding
// v0.5.4, Go 1.26, amd64, medians of 10). Its Tokenizer checks tokens but
// not the grammar ({"a" 1}, [1 2] and an unclosed object pass), and nothing
// in it limits depth (Valid overflows the goroutine stack at 2,000,000
// nested '['). It matches this walker (about 0.7 ms a walk) only while the
// whole input is printable ASCII without a backslash: one 'é' or '\n'
// elsewhere doubles it (1.76 ms against 0.88 ms), '\/'-escaped base64
// takes 6.3 ms against 3.5 ms, and Valid plus the Tokenizer, for the spans,
// 1.42 ms against 0.71 ms. The only part a library could replace is
// Unquote (segmentio's Unescape, 16 lines); segmentio/asm's ascii.ValidPrint
// is used where it is the fast path.
package jsonwalk

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/segmentio/asm/ascii"
)

// MaxDepth is encoding/json's limit on nested arrays and objects.
const MaxDepth = 10000

// IsNull reports whether tok, a raw JSON value, is the literal null
// (surrounding JSON whitespace allowed). Generated code uses it to leave a
// file field at its zero value, as encoding/json does for null.
func IsNull(tok []byte) bool {
	return string(TrimWS(tok)) == "null"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func SkipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func TrimWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special returns a mask with the high bit set in (at least) the lowest byte
// of x that is '"', '\\', a control character or, when hi is msb, a
// non-ASCII byte. Bits above the lowest match may be spurious.
func special(x, hi uint64) uint64 {
	q := x ^ (lsb * '"')
	s := x ^ (lsb * '\\')
	return (((q - lsb) &^ q) | ((s - lsb) &^ s) | ((x - lsb*0x20) &^ x) | x&hi) & msb
}

// stringSpecial returns the index of the first byte of b[i:] that is '"',
// '\\' or a control character (or, with hi == msb, non-ASCII), or len(b).
// It reads 32 bytes per step, eight at a time (SWAR): a long base64 string
// is skipped at close to memory speed without a per-byte state machine.
func stringSpecial(b []byte, i int, hi uint64) int {
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32 : i+32]
		m0 := special(binary.LittleEndian.Uint64(w[0:8]), hi)
		m1 := special(binary.LittleEndian.Uint64(w[8:16]), hi)
		m2 := special(binary.LittleEndian.Uint64(w[16:24]), hi)
		m3 := special(binary.LittleEndian.Uint64(w[24:32]), hi)
		if m0|m1|m2|m3 != 0 {
			switch {
			case m0 != 0:
				return i + bits.TrailingZeros64(m0)/8
			case m1 != 0:
				return i + 8 + bits.TrailingZeros64(m1)/8
			case m2 != 0:
				return i + 16 + bits.TrailingZeros64(m2)/8
			}
			return i + 24 + bits.TrailingZeros64(m3)/8
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:]), hi); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || (c >= 0x80 && hi != 0) {
			return i
		}
	}
	return len(b)
}

// ScanString returns the index just past the JSON string starting at b[i]
// (a '"'), and false if it is not a valid JSON string.
func ScanString(b []byte, i int) (int, bool) {
	i++
	// Most strings, base64 payloads above all, have no escape: then the
	// first quote closes the string, and it is valid when no byte before
	// it is a control character. Vector routines check that at memory
	// speed; a string they do not clear is walked as before.
	if q := bytes.IndexByte(b[i:], '"'); q >= 0 {
		if s := b[i : i+q]; bytes.IndexByte(s, '\\') < 0 && (ascii.ValidPrint(s) || stringSpecial(s, 0, 0) == len(s)) {
			return i + q + 1, true
		}
	}
	for {
		i = stringSpecial(b, i, 0)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if getu4(b[i:]) < 0 {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default:
			return i, false // a control character
		}
	}
}

// getu4 decodes \uXXXX from the beginning of s, returning -1 if it fails.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		if !isHex(c) {
			return -1
		}
		r = r<<4 | rune(unhex(c))
	}
	return r
}

// Unescaper walks the contents of a JSON string that ScanString accepted,
// giving its unescaped bytes piece by piece: runs of plain ASCII as
// sub-slices of s (found 32 bytes at a time), each escape or non-ASCII
// character on its own, exactly as encoding/json unescapes them (lone
// surrogates and invalid UTF-8 become U+FFFD). A piece is valid until the
// next call.
type Unescaper struct {
	s   []byte
	r   int
	buf [utf8.UTFMax]byte
}

// NewUnescaper returns the Unescaper of s, the contents (without quotes) of
// a JSON string that ScanString accepted.
func NewUnescaper(s []byte) Unescaper { return Unescaper{s: s} }

// Next returns the next piece, or nil at the end.
func (u *Unescaper) Next() []byte {
	s, r := u.s, u.r
	if r >= len(s) {
		return nil
	}
	switch c := s[r]; {
	case c == '\\':
		if e := s[r+1]; e == '/' || e == '"' || e == '\\' {
			u.r = r + 2
			u.buf[0] = e
			return u.buf[:1]
		}
		var rr rune
		switch e := s[r+1]; e {
		case 'b':
			rr, r = '\b', r+2
		case 'f':
			rr, r = '\f', r+2
		case 'n':
			rr, r = '\n', r+2
		case 'r':
			rr, r = '\r', r+2
		case 't':
			rr, r = '\t', r+2
		case 'u':
			rr, r = getu4(s[r:]), r+6
			if utf16.IsSurrogate(rr) {
				if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
					rr, r = dec, r+6
				} else {
					rr = unicode.ReplacementChar
				}
			}
		default: // unreachable: ScanString accepted s
			rr, r = rune(e), r+2
		}
		u.r = r
		return utf8.AppendRune(u.buf[:0], rr)
	case c >= utf8.RuneSelf:
		rr, size := utf8.DecodeRune(s[r:])
		u.r = r + size
		if rr == utf8.RuneError && size == 1 {
			return utf8.AppendRune(u.buf[:0], rr)
		}
		return s[r : r+size]
	default:
		end := stringSpecial(s, r+1, msb)
		u.r = end
		return s[r:end]
	}
}

// Unquote unescapes s, the contents of a JSON string that ScanString
// accepted, exactly as encoding/json does. Without escapes and non-ASCII
// bytes it returns s itself.
func Unquote(s []byte) []byte {
	if stringSpecial(s, 0, msb) == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	u := Unescaper{s: s}
	for p := u.Next(); p != nil; p = u.Next() {
		b = append(b, p...)
	}
	return b
}

// Plain reports whether s has no quote, backslash, control character or
// non-ASCII byte: whether it is, as it stands, the contents of a JSON string
// without escapes. Printable ASCII, the usual case, is recognised with
// vector routines at memory speed.
func Plain(s []byte) bool {
	if ascii.ValidPrint(s) {
		return bytes.IndexByte(s, '"') < 0 && bytes.IndexByte(s, '\\') < 0
	}
	return stringSpecial(s, 0, msb) == len(s) // DEL is plain too
}

// Kind names the kind of the JSON value that starts t.
func Kind(t []byte) string {
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// errInvalidJSON is returned if this package finds b malformed and
// encoding/json does not, which would be a bug here.
var errInvalidJSON = errors.New("jsonwalk: internal error: malformed JSON that encoding/json accepts")

// DecodeError returns the error encoding/json reports for b.
func DecodeError(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	return errInvalidJSON
}

// ScanNumber returns the index just past the JSON number starting at b[i].
func ScanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// literal reports whether b[i:] starts with lit.
func literal(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// ScanValue returns the index just past the JSON value starting at b[i]
// (no leading whitespace). depth is the number of arrays and objects that
// enclose it; encoding/json allows MaxDepth in all.
func ScanValue(b []byte, i, depth int) (int, bool) {
	var stackArr [64]byte
	stack := stackArr[:0] // the open '{' and '[' inside the value
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; c {
		case '"':
			j, ok := ScanString(b, i)
			if !ok {
				return j, false
			}
			i = j
		case '{', '[':
			if depth+len(stack)+1 > MaxDepth {
				return i, false
			}
			stack = append(stack, c)
			i = SkipWS(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				i++
				stack = stack[:len(stack)-1]
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = objectKey(b, i); !ok {
					return i, false
				}
			}
			continue
		case 't':
			if !literal(b, i, "true") {
				return i, false
			}
			i += 4
		case 'f':
			if !literal(b, i, "false") {
				return i, false
			}
			i += 5
		case 'n':
			if !literal(b, i, "null") {
				return i, false
			}
			i += 4
		default:
			j, ok := ScanNumber(b, i)
			if !ok {
				return j, false
			}
			i = j
		}
		// A value ended at b[i]: close containers or go to the next element.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = SkipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				i++
				stack = stack[:len(stack)-1]
				continue
			}
			if b[i] != ',' {
				return i, false
			}
			i = SkipWS(b, i+1)
			if top == '{' {
				var ok bool
				if i, ok = objectKey(b, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// objectKey scans a member's key and colon at b[i] and returns the index of
// its value.
func objectKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := ScanString(b, i)
	if !ok {
		return i, false
	}
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return SkipWS(b, i+1), true
}

// KeyIndex matches JSON object keys to a struct's file fields the way
// encoding/json matches keys to fields: an exact match of the JSON name
// first, else the first field, in encoding/json's field order, whose name
// is equal under Unicode simple case folding, with encoding/json's own
// folding code: "IMAGE" finds "image", the Kelvin sign K finds "k" and the
// long s ſ finds "s", while "İmage" finds nothing. A KeyIndex is immutable and
// safe for concurrent use; generated code builds one per type in a
// package-level variable.
type KeyIndex struct {
	exact  map[string]int // JSON name → index in files, or -1
	folded map[string]int // folded name → index in files of the first field, or -1
}

// NewKeyIndex returns the KeyIndex of a struct. all is every JSON name the
// struct decodes, in encoding/json's field order (promoted fields included);
// files are the JSON names of its file fields, in order. A file name missing
// from all is treated as if it came last.
func NewKeyIndex(all []string, files ...string) *KeyIndex {
	f := &KeyIndex{exact: make(map[string]int, len(all)), folded: make(map[string]int, len(all))}
	index := func(name string) int {
		for i, n := range files {
			if n == name {
				return i
			}
		}
		return -1
	}
	add := func(name string) {
		if _, ok := f.exact[name]; ok {
			return
		}
		i := index(name)
		f.exact[name] = i
		k := string(foldName([]byte(name)))
		if _, ok := f.folded[k]; !ok {
			f.folded[k] = i
		}
	}
	for _, name := range all {
		add(name)
	}
	for _, name := range files {
		add(name)
	}
	return f
}

// lookup returns the index in files of the field that the unescaped key
// decodes into, or -1 when that is not a file field (or no field).
func (f *KeyIndex) Lookup(key []byte) int {
	if f == nil {
		return -1
	}
	if i, ok := f.exact[string(key)]; ok {
		return i
	}
	var arr [64]byte
	if i, ok := f.folded[string(appendFoldedName(arr[:0], key))]; ok {
		return i
	}
	return -1
}

// foldName and appendFoldedName are encoding/json's (fold.go): they map
// names that encoding/json considers equal to the same bytes.
func foldName(in []byte) []byte {
	var arr [32]byte
	return appendFoldedName(arr[:0], in)
}

func appendFoldedName(out, in []byte) []byte {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

// foldRune returns the smallest rune of r's case-folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// Span is a range b[Start:End].
type Span struct{ Start, End int }

// fileMember is a member of an object that holds a file field.
type fileMember struct {
	index int
	val   []byte
}

// ScanObject walks the JSON object b for a generated UnmarshalJSON method.
// For each member whose unescaped key KeyIndex.lookup maps to a file field
// it calls file with the field's index and the raw value (not copied, not
// unescaped, no surrounding whitespace), in the order of b, once per
// occurrence (so for a repeated key the last call wins, as in encoding/json).
// Every other member is copied, with its original key bytes, into rest: a
// smaller JSON object to hand to encoding/json; rest is nil when there is no
// such member.
//
// The calls happen only after the whole of b is found well-formed. When b is
// malformed, ScanObject returns the error encoding/json returns for b (from
// the same syntax check json.Unmarshal makes), so messages match exactly.
// When b is a well-formed value other than an object (null, an array, a
// string…), or empty, rest is b itself and err is nil, so that
// encoding/json reports it. An error from file ends the walk and is
// returned with a nil rest.
func ScanObject(b []byte, fields *KeyIndex, file func(i int, val []byte) error) (rest []byte, err error) {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return b, nil
	}
	var membersArr [4]fileMember
	members := membersArr[:0]
	var runsArr [4]Span
	runs := runsArr[:0]
	run := Span{-1, -1} // the kept members since the last file member
	restLen := 0
	ok := WalkObject(b, i, func(key, val Span) bool {
		idx := -1
		if fields != nil {
			idx = fields.Lookup(Unquote(b[key.Start+1 : key.End-1]))
		}
		if idx >= 0 {
			members = append(members, fileMember{idx, b[val.Start:val.End]})
			if run.Start >= 0 {
				runs = append(runs, run)
				restLen += run.End - run.Start
				run = Span{-1, -1}
			}
		} else {
			if run.Start < 0 {
				run.Start = key.Start
			}
			run.End = val.End
		}
		return true
	})
	if !ok {
		return nil, DecodeError(b, new(struct{}))
	}
	if run.Start >= 0 {
		runs = append(runs, run)
		restLen += run.End - run.Start
	}
	if len(runs) > 0 {
		rest = make([]byte, 0, restLen+len(runs)+1)
		for k, r := range runs {
			if k == 0 {
				rest = append(rest, '{')
			} else {
				rest = append(rest, ',')
			}
			rest = append(rest, b[r.Start:r.End]...)
		}
		rest = append(rest, '}')
	}
	for _, m := range members {
		if err := file(m.index, m.val); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// WalkObject walks the object starting at b[i] (b[i] == '{'), calling each
// for every member with the spans of its key (quotes included) and value
// until each returns false. It reports whether the object is well-formed and
// only white space follows it in b; when each stops the walk, whether what
// was walked is.
func WalkObject(b []byte, i int, each func(key, val Span) bool) bool {
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipWS(b, i+1) == len(b)
	}
	for {
		keyStart := i
		if i >= len(b) || b[i] != '"' {
			return false
		}
		keyEnd, ok := ScanString(b, i)
		if !ok {
			return false
		}
		i = SkipWS(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		valStart := SkipWS(b, i+1)
		valEnd, ok := ScanValue(b, valStart, 1)
		if !ok {
			return false
		}
		if !each(Span{keyStart, keyEnd}, Span{valStart, valEnd}) {
			return true
		}
		i = SkipWS(b, valEnd)
		if i < len(b) && b[i] == ',' {
			i = SkipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return SkipWS(b, i+1) == len(b)
		}
		return false
	}
}

// WalkArray walks the array t (t[0] == '['), calling each, when not nil, for
// every element until it returns false. It returns the number of elements
// and whether t is exactly one well-formed array.
func WalkArray(t []byte, each func(elem []byte) bool) (int, bool) {
	n := 0
	i := SkipWS(t, 1)
	if i < len(t) && t[i] == ']' {
		return 0, SkipWS(t, i+1) == len(t)
	}
	for {
		end, ok := ScanValue(t, i, 1)
		if !ok {
			return n, false
		}
		n++
		if each != nil && !each(t[i:end]) {
			return n, true
		}
		i = SkipWS(t, end)
		if i < len(t) && t[i] == ',' {
			i = SkipWS(t, i+1)
			continue
		}
		if i < len(t) && t[i] == ']' {
			return n, SkipWS(t, i+1) == len(t)
		}
		return n, false
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
