package inline

import (
	"context"
	"crypto/rand"
	"strconv"
	"sync"
	"time"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/jsonwalk"
)

// This file is the fast path of the answers to elicitation/create
// (protocols before 2026-07-28): runtime.Elicit asks with a form whose
// request carries, in params._meta, the scope key of an [Elicitation];
// the serving code notes the request's id when it sends it ([Asked.Sent])
// and, when the client's response to that id arrives in the same session,
// [Rewrite] decodes its files and hands the SDK references scoped to that
// one elicitation. The response is a message of its own (over HTTP, a
// request of its own) while the call that asked waits elsewhere: its
// references outlive it, within the limits below, until Elicit takes them
// or gives up ([Elicitation.Close]).

// The default limits of the files held for elicitation/create answers
// between the message that carries them and the Elicit that takes them,
// by each [Asked] (one stdio connection, or one HTTP handler): past them,
// an answer goes to the SDK as it came. See [AnswerLimits].
const (
	// AnswerTTL is how long an answer's files are held when no Elicit
	// takes them.
	AnswerTTL = time.Minute
	// MaxAnswerFiles is the most files held at once.
	MaxAnswerFiles = 256
	// MaxAnswerBytes is the most bytes of files held at once.
	MaxAnswerBytes = 256 << 20
)

// AnswerLimits bound the files of the elicitation/create answers that one
// [Asked] holds: how long an answer's files are held when no Elicit takes
// them, and how many files and bytes of files are held at once. A zero
// field means its default (AnswerTTL, MaxAnswerFiles, MaxAnswerBytes); a
// negative one holds none, so that every answer goes to the SDK as it
// came.
type AnswerLimits struct {
	TTL   time.Duration
	Files int
	Bytes int64
}

// orDefaults returns l with its zero fields set to the defaults, and all
// of them zero when one is negative: nothing fits.
func (l AnswerLimits) orDefaults() AnswerLimits {
	if l.TTL < 0 || l.Files < 0 || l.Bytes < 0 {
		return AnswerLimits{}
	}
	if l.TTL == 0 {
		l.TTL = AnswerTTL
	}
	if l.Files == 0 {
		l.Files = MaxAnswerFiles
	}
	if l.Bytes == 0 {
		l.Bytes = MaxAnswerBytes
	}
	return l
}

// holding counts the files of the answers an [Asked] holds, against its
// limits.
type holding struct {
	lim AnswerLimits // orDefaults'

	mu    sync.Mutex
	files int
	bytes int64
}

// reserve counts n more files of size bytes in all, and returns the time
// they may be held; ok is false, and nothing is counted, past the limits.
func (h *holding) reserve(n int, size int64) (ttl time.Duration, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lim.TTL <= 0 || h.files+n > h.lim.Files || h.bytes+size > h.lim.Bytes {
		return 0, false
	}
	h.files += n
	h.bytes += size
	return h.lim.TTL, true
}

// release uncounts e, a reference forgotten or taken.
func (e *entry) release() {
	h := e.scope.held
	if e.held < 0 || h == nil {
		return
	}
	h.mu.Lock()
	h.files--
	h.bytes -= e.held
	h.mu.Unlock()
}

// sizeOf returns the size of file, a runtime.File.
func sizeOf(file any) int64 {
	if f, ok := file.(interface{ Size() int64 }); ok {
		return f.Size()
	}
	return 0
}

// An Elicitation is one elicitation/create that runtime.Elicit sends: the
// scope of the references made for its answer.
type Elicitation struct {
	scope *Scope
	files map[string]*descriptor.Prop // the form's file fields

	mu       sync.Mutex
	closed   bool
	answered bool
	asked    []askedAt // where its request was seen sent
	via      *Asked    // where its response came: its files count there
	timer    *time.Timer
}

type askedAt struct {
	a *Asked
	k askKey
}

// elicitations holds every Elicitation not closed, by scope key.
var elicitations sync.Map // string → *Elicitation

// Ask returns a new Elicitation of a form whose file fields are files
// (field → property). The caller puts its [Elicitation.Key] in the
// request's params._meta under MetaKey, and closes it once the answer is
// read or no longer awaited.
func Ask(files map[string]*descriptor.Prop) *Elicitation {
	el := &Elicitation{scope: &Scope{key: rand.Text()}, files: files}
	elicitations.Store(el.scope.key, el)
	return el
}

// Key returns the scope key of el.
func (el *Elicitation) Key() string { return el.scope.key }

// Bind returns ctx resolving the references of el's answer (see [Take]).
func (el *Elicitation) Bind(ctx context.Context) context.Context {
	return context.WithValue(ctx, bindingKey{}, binding{key: el.scope.key})
}

// Close forgets el and the references of its answer not taken: their
// files are no longer held. It may be called more than once.
func (el *Elicitation) Close() {
	if el == nil {
		return
	}
	elicitations.Delete(el.scope.key)
	el.mu.Lock()
	el.closed = true
	asked := el.asked
	el.asked = nil
	if el.timer != nil {
		el.timer.Stop()
	}
	el.mu.Unlock()
	for _, at := range asked {
		at.a.forget(at.k, el)
	}
	el.scope.Close()
}

// addAnswer makes the references of the answer's files, refs, unless el
// is closed, has an answer already, or the limits are reached; it returns
// their strings, in order.
func (el *Elicitation) addAnswer(refs []ref) ([]string, bool) {
	var size int64
	for _, f := range refs {
		size += sizeOf(f.file)
	}
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.closed || el.answered || el.via == nil {
		return nil, false
	}
	ttl, ok := el.via.holding.reserve(len(refs), size)
	if !ok {
		return nil, false
	}
	el.answered = true
	el.scope.held = &el.via.holding
	out := make([]string, len(refs))
	for i, f := range refs {
		out[i] = el.scope.add("", "", f.arg, f.file, sizeOf(f.file))
	}
	el.timer = time.AfterFunc(ttl, el.scope.Close)
	return out, true
}

// Asked is where the serving code notes the elicitation/create requests
// of Elicit it sends to the clients of one connection (stdio) or of one
// HTTP handler, by session and request id, for [Rewrite] to find the
// Elicitation a response answers.
//
// The files of the answers it takes are held within its limits
// ([AnswerLimits]): each Asked has its own.
type Asked struct {
	mu sync.Mutex
	m  map[askKey]*Elicitation

	holding holding
}

type askKey struct{ session, id string }

// NewAsked returns an empty Asked with the default limits.
func NewAsked() *Asked { return NewAskedWithin(AnswerLimits{}) }

// NewAskedWithin returns an empty Asked that holds the files of answers
// within l.
func NewAskedWithin(l AnswerLimits) *Asked {
	return &Asked{m: map[askKey]*Elicitation{}, holding: holding{lim: l.orDefaults()}}
}

// Sent notes msg, a message the server sends in session ("" over stdio):
// when it is an elicitation/create request of an Elicitation not closed,
// the response to its id answers that Elicitation. It returns msg as the
// client is to get it: without the Elicitation's key, which is the
// server's own; msg itself when there is none.
func (a *Asked) Sent(session string, msg []byte) []byte {
	el, id, out := elicitationOf(msg)
	if el == nil {
		return out
	}
	k := askKey{session, id}
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.closed {
		return out
	}
	a.mu.Lock()
	a.m[k] = el
	a.mu.Unlock()
	el.asked = append(el.asked, askedAt{a, k})
	return out
}

// take returns the Elicitation that the response to id in session
// answers, and forgets it there: a request has one response.
func (a *Asked) take(session, id string) *Elicitation {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	k := askKey{session, id}
	el := a.m[k]
	delete(a.m, k)
	a.mu.Unlock()
	if el != nil {
		// Not under a.mu: Sent locks el, then a.
		el.mu.Lock()
		el.via = a
		el.mu.Unlock()
	}
	return el
}

// putBack undoes take(session, id) of el, whose answer was not taken,
// unless el was closed since.
func (a *Asked) putBack(session, id string, el *Elicitation) {
	// Under el.mu, as Sent: Close, which forgets el here, waits for it.
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.closed || el.answered {
		return
	}
	el.via = nil
	a.mu.Lock()
	k := askKey{session, id}
	if a.m[k] == nil {
		a.m[k] = el
	}
	a.mu.Unlock()
}

// forget forgets k when it names el.
func (a *Asked) forget(k askKey, el *Elicitation) {
	a.mu.Lock()
	if a.m[k] == el {
		delete(a.m, k)
	}
	a.mu.Unlock()
}

// elicitationOf returns the Elicitation whose elicitation/create request
// msg is, and the request's id (see IDKey); nil when it is none. out is
// msg without MetaKey in its params._meta.
func elicitationOf(msg []byte) (el *Elicitation, id string, out []byte) {
	r := rewriter{msg: msg}
	i := jsonwalk.SkipWS(msg, 0)
	if i == len(msg) || msg[i] != '{' {
		return nil, "", msg
	}
	top, ok := r.members(i, len(msg))
	if !ok {
		return nil, "", msg
	}
	var method, rawID, key []byte
	for _, m := range top {
		switch m.key {
		case "method":
			method = r.span(m.valSpan)
		case "id":
			rawID = r.span(m.valSpan)
		case "params":
			meta := r.member(m.valSpan, "_meta")
			if meta == nil {
				continue
			}
			if k := r.member(*meta, MetaKey); k != nil {
				key = r.span(*k)
				ms, _ := r.members(meta.Start, meta.End)
				r.replaceObject(*meta, ms, "")
			}
		}
	}
	if string(method) != `"elicitation/create"` || len(r.edits) == 0 {
		return nil, "", msg
	}
	out = r.apply()
	id = IDKey(rawID)
	if id == "" || len(key) < 2 || key[0] != '"' {
		return nil, "", out
	}
	v, ok := elicitations.Load(string(jsonwalk.Unquote(key[1 : len(key)-1])))
	if !ok {
		return nil, "", out
	}
	return v.(*Elicitation), id, out
}

// member returns the span of the value of the member name of the object
// at obj; nil when obj is not an object or has no such member.
func (r *rewriter) member(obj jsonwalk.Span, name string) *jsonwalk.Span {
	if r.msg[obj.Start] != '{' {
		return nil
	}
	ms, _ := r.members(obj.Start, obj.End)
	for _, m := range ms {
		if m.key == name {
			return &m.valSpan
		}
	}
	return nil
}

// IDKey returns the request id the raw JSON token id names, as the SDK
// reads it (a number is truncated to an integer), or "" when it is neither
// a number nor a string.
func IDKey(id []byte) string {
	if len(id) == 0 {
		return ""
	}
	if id[0] == '"' {
		if end, ok := jsonwalk.ScanString(id, 0); !ok || end != len(id) {
			return ""
		}
		return "s" + string(jsonwalk.Unquote(id[1:len(id)-1]))
	}
	f, err := strconv.ParseFloat(string(id), 64)
	if err != nil {
		return ""
	}
	return "n" + strconv.FormatInt(int64(f), 10)
}
