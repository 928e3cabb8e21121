package inline

import (
	"bytes"
	"slices"
	"strconv"
	"unsafe"

	"github.com/segmentio/asm/ascii"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// A Conn is what [Rewrite] knows of where a message comes from.
type Conn struct {
	// Files returns the file arguments of a tool (see [ToolFiles]).
	Files func(tool string) map[string]*descriptor.Prop
	// Forms returns the file fields of the form a tool elicits as an
	// input request id (see [ToolForms]); nil: none is known.
	Forms func(tool, id string) *Form
	// Asked holds the elicitation/create requests sent on the connection,
	// and Session names the message's session among them ("" over stdio);
	// nil Asked: no answer to one is taken.
	Asked   *Asked
	Session string
}

// Rewrite returns msg, one JSON-RPC message (or batch) as a client sent
// it, as the go-sdk is to read it, with the scope of the references it
// now holds (nil for none, or when they belong to an [Elicitation]) and
// the raw JSON of its id.
//
// When msg is a tools/call of a tool that c.Files records and every one
// of its file arguments decodes (see [Decode]), each file of at least
// MinRef bytes of JSON is replaced by a reference, and params._meta gets
// the scope's key; so are the files of the accepted answers in its
// inputResponses (protocol 2026-07-28) to the forms c.Forms knows, which
// must decode too. When msg is the response to an elicitation/create of
// an [Elicitation] (see [Asked]), accepting the form, and every file of
// its content decodes, each such file is replaced by a reference that the
// Elicitation holds. Otherwise msg is returned as it is; but wherever a
// client wrote MetaKey into a params._meta, in any message, that member
// is removed first, so that only the fast path sets it.
//
// out is msg itself when nothing changed; otherwise a new slice, which
// holds nothing of a file that was replaced. The large files replaced are
// decoded in place (see [Decode]): their bytes are then msg's, which the
// caller must neither write nor hand to anyone else; a message declined,
// a call or answer refused included, is left as it came.
func Rewrite(msg []byte, c Conn) (out []byte, sc *Scope, id []byte) {
	out, sc, id, ok := rewrite(msg, nil, c, alwaysCareful)
	if !ok {
		// A string the quick walk read may be read wrong: walk again, the
		// way every string is scanned to its end.
		out, sc, id, _ = rewrite(msg, nil, c, true)
	}
	return out, sc, id
}

// RewriteSpliced is [Rewrite] for a message read in pieces, whose long
// runs of base64 were decoded as they came (see [Reading]): the message
// as the client sent it is Expand(msg, sp). The fast path takes msg as it
// is only when each splice is the start of the payload of a file that it
// decodes and replaces by a reference; the file's bytes are then the
// splice's, followed by the rest of its text, and out holds nothing of
// them. Otherwise it rewrites the message as it came, which is then
// returned (or what Rewrite makes of it) and holds no splice.
func RewriteSpliced(msg []byte, sp []Splice, c Conn) (out []byte, sc *Scope, id []byte) {
	if len(sp) > 0 && !alwaysCareful {
		if out, sc, id, ok := rewrite(msg, sp, c, false); ok {
			return out, sc, id
		}
	}
	return Rewrite(Expand(msg, sp), c)
}

// alwaysCareful, when true, makes every Rewrite walk as a retry does (a
// test sets it to compare the two).
var alwaysCareful = false

// rewrite is Rewrite, whose walk of the strings of a call's arguments is
// quick unless careful: each is taken to end at its first quote not
// after a backslash, and only the decoder checks the rest (see
// Unchecked). ok is false when that may have read one wrong: then msg is
// as it came, and nothing was made. With splices, ok is also false unless
// each was taken as the start of a file replaced by a reference (see
// RewriteSpliced).
func rewrite(msg []byte, sp []Splice, c Conn, careful bool) (out []byte, sc *Scope, id []byte, ok bool) {
	r := rewriter{msg: msg, conn: c, careful: careful, splices: sp}
	if len(sp) > 0 {
		r.used = make([]bool, len(sp))
	}
	i := jsonwalk.SkipWS(msg, 0)
	if i == len(msg) {
		return msg, nil, nil, len(sp) == 0
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
			return msg, nil, nil, len(sp) == 0
		}
	default:
		return msg, nil, nil, len(sp) == 0
	}
	if r.retry || (len(r.edits) > 0 && !r.checked()) || (len(sp) > 0 && !r.splicesTaken) {
		r.undo()
		sc.Close()
		return msg, nil, nil, false
	}
	if len(r.edits) == 0 {
		sc.Close()
		return msg, nil, nil, true
	}
	return r.apply(), sc, id, true
}

// An edit replaces msg[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

type rewriter struct {
	msg   []byte
	conn  Conn
	edits []edit

	objects map[int][]member // the members of the objects walk went into, by start
	text    map[int]Text     // what is known of the strings it scanned, by start

	// careful: every string is scanned to its end (see rewrite). Else
	// unchecked holds the end of each string taken to end at its first
	// quote and not yet known to, by start; retry, that the decoder
	// refused one of them.
	careful   bool
	unchecked map[int]int
	retry     bool

	undos []func() // write back the files decoded in msg itself (see Decode)

	// splices are the runs of base64 the message lost as it was read (see
	// RewriteSpliced); used notes those whose bytes a file's decoding took,
	// and splicesTaken that each was in a file replaced by a reference.
	splices      []Splice
	used         []bool
	splicesTaken bool
}

// head is [Decode]'s head for the message: the bytes of the splice whose
// text began where the payload p, a subslice of msg, begins.
func (r *rewriter) head(p []byte) []byte {
	at := unsafe.SliceData(p)
	for i, s := range r.splices {
		if s.At < len(r.msg) && at == &r.msg[s.At] {
			r.used[i] = true
			return s.Bytes
		}
	}
	return nil
}

// spliced reports whether the string of msg at span held a splice's text.
func (r *rewriter) spliced(span jsonwalk.Span) bool {
	for _, s := range r.splices {
		if span.Start < s.At && s.At < span.End {
			return true
		}
	}
	return false
}

// inRefs reports whether every splice is the start of the payload of a
// file of refs, whose decoding took its bytes: only then may the
// references be made. Without splices, it is true.
func (r *rewriter) inRefs(refs []ref) bool {
	for i, s := range r.splices {
		if !r.used[i] || !slices.ContainsFunc(refs, func(f ref) bool { return f.span.Start < s.At && s.At < f.span.End }) {
			return false
		}
	}
	return true
}

// undo writes back every file decoded in msg itself, so that a message the
// fast path declines after decoding some goes to the SDK as it came.
func (r *rewriter) undo() {
	for _, u := range slices.Backward(r.undos) {
		u()
	}
	r.undos = nil
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
	r.text = map[int]Text{}
	r.unchecked = map[int]int{}
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
		r.text[at] = Scanned
		if plain {
			r.text[at] = Plain
		}
		return next, ok, true
	}
	// The strings of a call's arguments, and of the answers in it, when
	// not careful: each taken to end at its first quote, unless a
	// backslash is before it (see Unchecked).
	quick := args
	if !r.careful {
		quick = func(key string, at int) (int, bool, bool) {
			if r.msg[at] != '"' {
				return 0, false, false
			}
			if q := bytes.IndexByte(r.msg[at+1:end], '"'); q >= 0 && r.msg[at+q] != '\\' {
				next := at + q + 2
				r.text[at] = Unchecked
				r.unchecked[at] = next
				return next, true, true
			}
			return args(key, at)
		}
	}
	// An answer to a form: its content, at depth, whose strings scan
	// scans.
	answer := func(depth int, scan func(string, int) (int, bool, bool)) func(string, int) (int, bool, bool) {
		return func(key string, at int) (int, bool, bool) {
			if key != "content" || r.msg[at] != '{' {
				return 0, false, false
			}
			return into(depth, scan)(at)
		}
	}
	responses := func(_ string, at int) (int, bool, bool) {
		if r.msg[at] != '{' {
			return 0, false, false
		}
		return into(4, answer(5, quick))(at)
	}
	params := func(key string, at int) (int, bool, bool) {
		if r.msg[at] != '{' {
			return 0, false, false
		}
		switch key {
		case "arguments":
			return into(3, quick)(at)
		case "inputResponses":
			return into(3, responses)(at)
		}
		return 0, false, false
	}
	top := func(key string, at int) (int, bool, bool) {
		if r.msg[at] != '{' {
			return 0, false, false
		}
		switch key {
		case "params":
			return into(2, params)(at)
		case "result":
			return into(2, answer(3, args))(at)
		}
		return 0, false, false
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

// checked reports whether each string still unchecked (see Unchecked)
// ends where it was taken to, scanning it: those of a call's arguments
// that are no file, or were not decoded.
func (r *rewriter) checked() bool {
	for at, end := range r.unchecked {
		if next, ok := jsonwalk.ScanString(r.msg, at); !ok || next != end {
			return false
		}
		delete(r.unchecked, at)
	}
	return true
}

// message handles the message msg[start:end]: it removes MetaKey from its
// params._meta and, when fast, tries the fast path. It returns the scope
// of the references made, and the raw id.
func (r *rewriter) message(start, end int, fast bool) (*Scope, []byte) {
	if !fast {
		r.careful = true
	}
	top, ok := r.walk(start, end)
	if !ok {
		return nil, nil
	}
	var method, params, id, result *member
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
		case "result":
			result = m
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
	if fast && method == nil && params == nil && result != nil && id != nil && count["id"] == 1 && count["result"] == 1 && r.conn.Asked != nil {
		session, key := r.conn.Session, IDKey(r.span(id.valSpan))
		if el := r.conn.Asked.take(session, key); el != nil {
			r.elicited(el, result)
			if len(r.splices) > 0 && !r.splicesTaken {
				// Declined with its splices: RewriteSpliced reads the
				// answer again as it came, which may take it.
				r.conn.Asked.putBack(session, key, el)
			}
		}
		return nil, nil
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

// A ref is a file to replace by a reference.
type ref struct {
	span   jsonwalk.Span // its JSON string in msg
	answer string        // the input request whose answer it is in; "" for an argument
	form   string        // the form's schema, for an input request's answer
	arg    string
	file   any
}

// call tries the fast path on a tools/call whose params member and
// members are p and pm; it returns nil when it does not apply, having
// made no reference.
func (r *rewriter) call(p *member, pm []member) *Scope {
	var name, args, meta, responses *member
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
		case "inputResponses":
			slot = &responses
		default:
			continue
		}
		if *slot != nil {
			return nil // repeated: left to the SDK
		}
		*slot = m
	}
	if name == nil || (args != nil && r.msg[args.valSpan.Start] != '{') {
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
	var refs []ref
	if props := r.conn.Files(tool); props != nil && args != nil {
		if !r.decodeFiles(args.valSpan, props, "", "", &refs) {
			r.undo()
			return nil
		}
	}
	if responses != nil && r.conn.Forms != nil && r.msg[responses.valSpan.Start] == '{' {
		if !r.answers(tool, responses.valSpan, &refs) {
			r.undo()
			return nil
		}
	}
	if len(refs) == 0 {
		r.undo()
		return nil
	}
	if !r.checked() {
		r.undo()
		r.retry = true
		return nil
	}
	if !r.inRefs(refs) {
		r.undo()
		return nil
	}
	r.splicesTaken = true
	sc := newScope(tool)
	for _, f := range refs {
		r.edits = append(r.edits, edit{start: f.span.Start, end: f.span.End, repl: `"` + sc.add(f.answer, f.form, f.arg, f.file, -1) + `"`})
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

// decodeFiles decodes the files of the object at obj whose members props
// describes (the arguments of a call, the content of a form's answer),
// adding those of at least MinRef bytes of JSON to refs, as sent in the
// answer to input request answer ("" for none) read as form. It reports
// false when a file is refused or the object is one the fast path leaves
// to the decoder.
func (r *rewriter) decodeFiles(obj jsonwalk.Span, props map[string]*descriptor.Prop, answer, form string, refs *[]ref) bool {
	am, _ := r.members(obj.Start, obj.End)
	seen := map[string]bool{}
	for _, m := range am {
		raw := r.msg[m.keySpan.Start+1 : m.keySpan.End-1]
		prop := props[m.key]
		if prop == nil {
			continue
		}
		if string(raw) != m.key || seen[m.key] {
			return false // an escaped or repeated file member: left to the decoder
		}
		seen[m.key] = true
		val := r.span(m.valSpan)
		text := r.text[m.valSpan.Start]
		var head func([]byte) []byte
		if len(r.splices) > 0 {
			head = r.head
		}
		err := Decode(m.key, val, prop, text, head, func(i int, s []byte, file any, undo func()) {
			start := cap(r.msg) - cap(s) // s is a subslice of msg
			arg := m.key
			if i >= 0 {
				arg += "[" + strconv.Itoa(i) + "]"
			}
			if undo != nil {
				r.undos = append(r.undos, undo)
			}
			span := jsonwalk.Span{Start: start, End: start + len(s)}
			if len(s) >= MinRef || r.spliced(span) {
				*refs = append(*refs, ref{span, answer, form, arg, file})
			}
		})
		if err != nil {
			// Refused: the SDK carries it to the handler, which says why;
			// but a string not checked may have been read wrong.
			r.retry = r.retry || text == Unchecked
			return false
		}
		delete(r.unchecked, m.valSpan.Start) // decoded: plain
	}
	return true
}

// answers decodes the files of the accepted answers in the inputResponses
// object at obj of a call of tool, to the forms c.Forms knows, adding them
// to refs; it reports false when one is refused or left to the decoder.
func (r *rewriter) answers(tool string, obj jsonwalk.Span, refs *[]ref) bool {
	rm, _ := r.members(obj.Start, obj.End)
	seen := map[string]bool{}
	for _, m := range rm {
		raw := r.msg[m.keySpan.Start+1 : m.keySpan.End-1]
		if seen[m.key] || string(raw) != m.key {
			return false // repeated or escaped: left to the SDK
		}
		seen[m.key] = true
		form := r.conn.Forms(tool, m.key)
		if form == nil {
			continue
		}
		content, ok := r.accepted(m.valSpan)
		if !ok {
			continue
		}
		if !r.decodeFiles(content, form.files, m.key, form.schema, refs) {
			return false
		}
	}
	return true
}

// accepted returns the content of the answer at ans, a form's answer,
// when it accepts the form: its action is "accept", written plainly, and
// its content an object, neither repeated.
func (r *rewriter) accepted(ans jsonwalk.Span) (content jsonwalk.Span, ok bool) {
	if r.msg[ans.Start] != '{' {
		return content, false
	}
	ms, _ := r.members(ans.Start, ans.End)
	var action, c *member
	for i := range ms {
		m := &ms[i]
		var slot **member
		switch m.key {
		case "action":
			slot = &action
		case "content":
			slot = &c
		default:
			continue
		}
		if *slot != nil {
			return content, false
		}
		*slot = m
	}
	if action == nil || c == nil || string(r.span(action.valSpan)) != `"accept"` || r.msg[c.valSpan.Start] != '{' {
		return content, false
	}
	return c.valSpan, true
}

// elicited tries the fast path on the result at res of a response to the
// elicitation/create of el: the references of its files are el's.
func (r *rewriter) elicited(el *Elicitation, res *member) {
	content, ok := r.accepted(res.valSpan)
	if !ok {
		return
	}
	var refs []ref
	if !r.decodeFiles(content, el.files, "", "", &refs) || len(refs) == 0 || !r.inRefs(refs) {
		r.undo()
		return
	}
	strs, ok := el.addAnswer(refs)
	if !ok {
		r.undo()
		return
	}
	r.splicesTaken = true
	for i, f := range refs {
		r.edits = append(r.edits, edit{start: f.span.Start, end: f.span.End, repl: `"` + strs[i] + `"`})
	}
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
