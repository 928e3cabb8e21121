package inline

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/segmentio/asm/ascii"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// Rewrite returns msg, one JSON-RPC message (or batch) as a client sent
// it, as the go-sdk is to read it, with the scope of the references it
// now holds (nil for none) and the raw JSON of its id.
//
// When msg is a tools/call of a tool that files records and every one of
// its file arguments decodes (see [Decode]), each file of at least MinRef
// bytes of JSON is replaced by a reference, and params._meta gets the
// scope's key. Otherwise msg is returned as it is; but wherever a client
// wrote MetaKey into a params._meta, in any message, that member is
// removed first, so that only the fast path sets it.
//
// out is msg itself when nothing changed; otherwise a new slice, which
// holds nothing of a file that was replaced. The large files replaced are
// decoded in place (see [Decode]): their bytes are then msg's, which the
// caller must neither write nor hand to anyone else; a message declined,
// a call refused included, is left as it came.
func Rewrite(msg []byte, files func(tool string) map[string]*descriptor.Prop) (out []byte, sc *Scope, id []byte) {
	r := rewriter{msg: msg, files: files}
	i := jsonwalk.SkipWS(msg, 0)
	if i == len(msg) {
		return msg, nil, nil
	}
	switch msg[i] {
	case '{':
		sc, id = r.message(i, len(msg), true)
	case '[':
		// A batch (protocol 2025-03-26): its members are only cleaned.
		t := msg[i:]
		if _, ok := jsonwalk.WalkArray(t, func(elem []byte) bool {
			if elem[0] == '{' {
				start := cap(msg) - cap(elem) // elem is a subslice of msg
				r.message(start, start+len(elem), false)
			}
			return true
		}); !ok {
			return msg, nil, nil
		}
	default:
		return msg, nil, nil
	}
	if len(r.edits) == 0 {
		sc.Close()
		return msg, nil, nil
	}
	return r.apply(), sc, id
}

// An edit replaces msg[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

type rewriter struct {
	msg   []byte
	files func(tool string) map[string]*descriptor.Prop
	edits []edit

	objects map[int][]member // the members of the objects walk went into, by start
	plain   map[int]bool     // whether the strings it scanned are plain, by start
}

// member is a member of an object: key (unescaped) and the spans in msg.
type member struct {
	key      string
	keySpan  jsonwalk.Span
	valSpan  jsonwalk.Span
	stripped bool
}

// members returns the members of the object msg[start:end] (msg[start]
// is '{'); ok is false when it is malformed. The objects the walk of the
// message went into are not walked again.
func (r *rewriter) members(start, end int) (ms []member, ok bool) {
	if ms, ok := r.objects[start]; ok {
		return ms, true
	}
	ms, next, ok := r.object(start, end, 1, nil)
	return ms, ok && jsonwalk.SkipWS(r.msg[:end], next) == end
}

// object walks the object at msg[start] (a '{'), which ends before end
// and is enclosed in depth-1 others, and returns its members and the index
// past it. The value of each member is scanned by scan, when not nil and
// it returns true, or else by jsonwalk.ScanValue: a value walked by scan
// is walked once, not scanned first and walked again.
func (r *rewriter) object(start, end, depth int, scan func(key string, at int) (next int, ok, done bool)) (ms []member, next int, ok bool) {
	b := r.msg[:end]
	i := jsonwalk.SkipWS(b, start+1)
	if i < len(b) && b[i] == '}' {
		return nil, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, i, false
		}
		keyEnd, ok := jsonwalk.ScanString(b, i)
		if !ok {
			return nil, i, false
		}
		k := b[i+1 : keyEnd-1]
		var name string
		if len(k) <= 6*64 { // longer keys are none of those looked for
			name = string(jsonwalk.Unquote(k))
		}
		j := jsonwalk.SkipWS(b, keyEnd)
		if j >= len(b) || b[j] != ':' {
			return nil, j, false
		}
		at := jsonwalk.SkipWS(b, j+1)
		if at >= len(b) {
			return nil, at, false
		}
		var valEnd int
		done := false
		if scan != nil {
			valEnd, ok, done = scan(name, at)
		}
		if !done {
			valEnd, ok = jsonwalk.ScanValue(b, at, depth)
		}
		if !ok {
			return nil, valEnd, false
		}
		ms = append(ms, member{key: name, keySpan: jsonwalk.Span{Start: i, End: keyEnd}, valSpan: jsonwalk.Span{Start: at, End: valEnd}})
		i = jsonwalk.SkipWS(b, valEnd)
		if i < len(b) && b[i] == ',' {
			i = jsonwalk.SkipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return ms, i + 1, true
		}
		return nil, i, false
	}
}

// walk walks the message msg[start:end], an object, going into params and
// its arguments rather than scanning them first, and noting which string
// values of the arguments are plain (see scanString).
func (r *rewriter) walk(start, end int) ([]member, bool) {
	r.objects = map[int][]member{}
	r.plain = map[int]bool{}
	into := func(depth int, scan func(string, int) (int, bool, bool)) func(int) (int, bool, bool) {
		return func(at int) (int, bool, bool) {
			ms, next, ok := r.object(at, end, depth, scan)
			if ok {
				r.objects[at] = ms
			}
			return next, ok, true
		}
	}
	args := func(_ string, at int) (int, bool, bool) {
		if r.msg[at] != '"' {
			return 0, false, false
		}
		next, plain, ok := scanString(r.msg[:end], at)
		r.plain[at] = plain
		return next, ok, true
	}
	params := func(key string, at int) (int, bool, bool) {
		if key != "arguments" || r.msg[at] != '{' {
			return 0, false, false
		}
		return into(3, args)(at)
	}
	top := func(key string, at int) (int, bool, bool) {
		if key != "params" || r.msg[at] != '{' {
			return 0, false, false
		}
		return into(2, params)(at)
	}
	ms, next, ok := r.object(start, end, 1, top)
	return ms, ok && jsonwalk.SkipWS(r.msg[:end], next) == end
}

// scanString is jsonwalk.ScanString, and reports whether the string is
// plain: printable ASCII without a backslash, what the vector routines
// clear (jsonwalk.Plain).
func scanString(b []byte, i int) (next int, plain, ok bool) {
	if q := bytes.IndexByte(b[i+1:], '"'); q >= 0 {
		if s := b[i+1 : i+1+q]; bytes.IndexByte(s, '\\') < 0 && ascii.ValidPrint(s) {
			return i + q + 2, true, true
		}
	}
	next, ok = jsonwalk.ScanString(b, i)
	return next, false, ok
}

// message handles the message msg[start:end]: it removes MetaKey from its
// params._meta and, when fast, tries the fast path. It returns the scope
// of the references made, and the raw id.
func (r *rewriter) message(start, end int, fast bool) (*Scope, []byte) {
	top, ok := r.walk(start, end)
	if !ok {
		return nil, nil
	}
	var method, params, id *member
	count := map[string]int{}
	for i := range top {
		m := &top[i]
		switch m.key {
		case "method":
			method = m
		case "params":
			params = m
		case "id":
			id = m
		default:
			continue
		}
		count[m.key]++
	}
	var pm []member
	for i := range top {
		if top[i].key == "params" && r.msg[top[i].valSpan.Start] == '{' {
			ms, _ := r.members(top[i].valSpan.Start, top[i].valSpan.End)
			r.clean(ms)
			if &top[i] == params {
				pm = ms
			}
		}
	}
	if !fast || method == nil || params == nil || id == nil || count["method"] > 1 || count["params"] > 1 || count["id"] > 1 {
		return nil, nil
	}
	if string(r.span(method.valSpan)) != `"tools/call"` || pm == nil {
		return nil, nil
	}
	if c := r.msg[id.valSpan.Start]; c != '"' && c != '-' && (c < '0' || c > '9') {
		return nil, nil
	}
	sc := r.call(params, pm)
	if sc == nil {
		return nil, nil
	}
	return sc, r.span(id.valSpan)
}

func (r *rewriter) span(s jsonwalk.Span) []byte { return r.msg[s.Start:s.End] }

// clean removes every MetaKey member from the _meta objects of params,
// whose members are pm: each such object is written again without them.
func (r *rewriter) clean(pm []member) {
	for _, m := range pm {
		if m.key != "_meta" || r.msg[m.valSpan.Start] != '{' {
			continue
		}
		ms, _ := r.members(m.valSpan.Start, m.valSpan.End)
		if slices.ContainsFunc(ms, func(m member) bool { return m.key == MetaKey }) {
			r.replaceObject(m.valSpan, ms, "")
		}
	}
}

// replaceObject writes the object at obj, whose members are ms, again:
// first, when not empty, the member first, then every member of ms but
// MetaKey's, as they were written. An earlier replacement of the same
// object is dropped.
func (r *rewriter) replaceObject(obj jsonwalk.Span, ms []member, first string) {
	var b bytes.Buffer
	b.WriteByte('{')
	b.WriteString(first)
	for _, m := range ms {
		if m.key == MetaKey {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(r.msg[m.keySpan.Start:m.valSpan.End])
	}
	b.WriteByte('}')
	r.edits = slices.DeleteFunc(r.edits, func(e edit) bool { return e.start == obj.Start && e.end == obj.End })
	r.edits = append(r.edits, edit{start: obj.Start, end: obj.End, repl: b.String()})
}

// call tries the fast path on a tools/call whose params member and
// members are p and pm; it returns nil when it does not apply, having
// made no reference.
func (r *rewriter) call(p *member, pm []member) *Scope {
	var name, args, meta *member
	for i := range pm {
		m := &pm[i]
		var slot **member
		switch m.key {
		case "name":
			slot = &name
		case "arguments":
			slot = &args
		case "_meta":
			slot = &meta
		default:
			continue
		}
		if *slot != nil {
			return nil // repeated: left to the SDK
		}
		*slot = m
	}
	if name == nil || args == nil || r.msg[args.valSpan.Start] != '{' {
		return nil
	}
	if meta != nil && r.msg[meta.valSpan.Start] != '{' {
		return nil
	}
	tok := r.span(name.valSpan)
	if tok[0] != '"' || !jsonwalk.Plain(tok[1:len(tok)-1]) {
		return nil
	}
	tool := string(tok[1 : len(tok)-1])
	props := r.files(tool)
	if props == nil {
		return nil
	}
	am, _ := r.members(args.valSpan.Start, args.valSpan.End)
	type ref struct {
		span jsonwalk.Span
		arg  string
		file any
	}
	var refs []ref
	var undos []func() // of the files decoded in msg itself
	decline := func() *Scope {
		// msg goes to the SDK as it came.
		for _, u := range slices.Backward(undos) {
			u()
		}
		return nil
	}
	seen := map[string]bool{}
	for _, m := range am {
		raw := r.msg[m.keySpan.Start+1 : m.keySpan.End-1]
		prop := props[m.key]
		if prop == nil {
			continue
		}
		if string(raw) != m.key || seen[m.key] {
			return decline() // an escaped or repeated file member: left to the decoder
		}
		seen[m.key] = true
		val := r.span(m.valSpan)
		err := Decode(m.key, val, prop, r.plain[m.valSpan.Start], func(i int, s []byte, file any, undo func()) {
			start := cap(r.msg) - cap(s) // s is a subslice of msg
			arg := m.key
			if i >= 0 {
				arg += "[" + strconv.Itoa(i) + "]"
			}
			if undo != nil {
				undos = append(undos, undo)
			}
			if len(s) >= MinRef {
				refs = append(refs, ref{jsonwalk.Span{Start: start, End: start + len(s)}, arg, file})
			}
		})
		if err != nil {
			return decline() // refused: the SDK carries it to the handler, which says why
		}
	}
	if len(refs) == 0 {
		return decline()
	}
	sc := newScope(tool)
	for _, f := range refs {
		r.edits = append(r.edits, edit{start: f.span.Start, end: f.span.End, repl: `"` + sc.add(f.arg, f.file) + `"`})
	}
	keyMember := strconv.Quote(MetaKey) + ":" + strconv.Quote(sc.key)
	if meta == nil {
		at := p.valSpan.Start + 1
		r.edits = append(r.edits, edit{start: at, end: at, repl: `"_meta":{` + keyMember + `},`})
		return sc
	}
	ms, _ := r.members(meta.valSpan.Start, meta.valSpan.End)
	r.replaceObject(meta.valSpan, ms, keyMember)
	return sc
}

// apply returns msg with the edits made.
func (r *rewriter) apply() []byte {
	slices.SortStableFunc(r.edits, func(a, b edit) int { return a.start - b.start })
	n := len(r.msg)
	for _, e := range r.edits {
		n += len(e.repl) - (e.end - e.start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, e := range r.edits {
		out = append(out, r.msg[at:e.start]...)
		out = append(out, e.repl...)
		at = e.end
	}
	return append(out, r.msg[at:]...)
}
