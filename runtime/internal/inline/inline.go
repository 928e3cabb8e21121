// Package inline is the fast path of inline files: it lets the serving
// code (runtime/serve) decode the data: URIs of a tools/call straight from
// the bytes of the JSON-RPC message, with the generated decoder's own
// checks, and hand the go-sdk the message with each such string replaced
// by a short reference, so that the SDK's JSON handling, which walks a
// large string about eight times, never sees the file's bytes
// (BENCHMARKS.md §10).
//
// A reference is "mcpfile-inline:" and a random token. It is resolved
// back to the decoded file by runtime.AddTool's handler, before the
// tool's handler runs, and only there: for the request it was made for
// (the message's params._meta carries the request's random scope key,
// which the fast path strips from whatever a client sent), the tool it
// was called with and the argument it was sent for, once. Anything else
// (a token a client wrote, one from another request, a second use) is
// refused with the refusal the decoder gives the same string as a value,
// which is not a data: URI. Everything the fast path does not understand
// or would refuse goes to the SDK unchanged.
//
// The answers to a form runtime.Elicit asks take the same path. On
// protocol 2026-07-28 they come in the retry of the call (inputResponses):
// Elicit records the form a tool asks under an input request id
// ([RecordForm]), and the accepted answers to it get references of the
// call's scope, resolved for that input request and form only
// ([ForAnswer]). Before it, Elicit sends elicitation/create itself, and
// the client's answer is a response of its own (over HTTP, a request of
// its own) while the call waits: the references of an [Elicitation] are
// good for its answer only, in the session it was asked in, and are held
// until Elicit takes them or gives up, within bounds (answer.go).
//
// Package runtime registers the tools and forms and resolves references;
// package mcpfileimpl, the decoder, sets [Decode] and recognises
// references; the serving code calls [Rewrite] on each incoming message
// and closes the [Scope] it got once the request is answered, and notes
// the elicitation/create requests it sends ([Asked]).
package inline

import (
	"context"
	"crypto/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
)

const (
	// Scheme starts every reference.
	Scheme = "mcpfile-inline:"

	// MetaKey is the member of a tools/call's params._meta that carries the
	// scope key of the request's references. The fast path removes it
	// from every message a client sends, and runtime.AddTool's handler
	// removes it from the request before the tool's handler sees it.
	MetaKey = "io.mcpfile/inline"

	// MinRef is the shortest JSON string of a file, quotes included, that
	// the fast path replaces with a reference: a smaller file costs the
	// SDK less than a reference costs.
	MinRef = 4096
)

// Decode decodes val, the raw JSON value of the file argument arg that p
// describes, with the generated decoder's code: the same checks in the
// same order, and its error. For each file it calls each with the index
// of its item in an array (-1 for a single file), the JSON string in val
// that carries the file's bytes (the data: URI, or a FileData object's
// base64 member; a subslice of val) and the decoded runtime.File. A value
// the decoder would not decode into files (null, a ChatGPT file object)
// gives no call and no error. text says what is known of val when it is
// a JSON string (see [Text]). Package mcpfileimpl sets it.
//
// The base64 of a data: URI whose string is MinRef bytes or more is
// decoded in place, into the string's own bytes: the file's bytes are
// then those of val, which must not be written or read as JSON again
// while the file is in use, and undo (nil for a file decoded elsewhere)
// writes the string back as it was. Decode writes back what it decoded in
// place before it returns an error.
//
// head, when not nil, is asked for each base64 payload of a data: URI
// without escapes, a subslice of the message, whether the message lost
// the start of its text to a [Splice]: it returns the bytes that text
// decoded to, which the file's bytes then start with, or nil.
var Decode func(arg string, val []byte, p *descriptor.Prop, text Text, head func(payload []byte) []byte, each func(i int, s []byte, file any, undo func())) error

// Text is what the walk of a message knows of a JSON string value.
type Text int

const (
	// Scanned: the string was scanned to its end, escapes and all; its
	// contents may hold escapes.
	Scanned Text = iota
	// Plain: printable ASCII without a backslash, checked.
	Plain
	// Unchecked: val ends at the first quote not after a backslash, and
	// nothing else is known: it is the whole string only when the string
	// is valid JSON. Decode returns no error for it only when it knows
	// the string is plain, having checked the header and the rest itself
	// or had the base64 decoder, which takes no byte outside its
	// alphabet, decode the payload; on an error the caller walks the
	// message again the careful way, for that error may be one of a
	// string read wrong.
	Unchecked
)

// A Scope holds the references made for one incoming message, until the
// tool's handler takes them or the serving code closes it.
type Scope struct {
	key  string // the random scope key, in params._meta
	tool string
	held *holding // where the files of an Elicitation's answer count; nil: not counted

	mu     sync.Mutex
	tokens []string // made here; those not taken are still in entries
}

// entry is the file a reference stands for.
type entry struct {
	scope  *Scope
	answer string // the input request whose answer it was sent in; "" for an argument or an elicitation/create answer
	form   string // the schema of the form it was checked against, for an answer
	arg    string
	file   any   // runtime.File
	held   int64 // its bytes, counted in its scope's limits of elicitation answers; -1: not counted
}

// entries holds every reference not taken yet, by token.
var entries sync.Map // string → *entry

// newScope returns an empty scope for a call of tool.
func newScope(tool string) *Scope {
	return &Scope{key: rand.Text(), tool: tool}
}

// add makes a reference to file, sent for arg (of the answer to the input
// request answer, when not "", checked as a field of the form whose schema
// is form), and returns its string. held is what the
// file counts in the limits of elicitation answers (see [holding.reserve]), -1
// for none.
func (s *Scope) add(answer, form, arg string, file any, held int64) string {
	t := rand.Text()
	entries.Store(t, &entry{scope: s, answer: answer, form: form, arg: arg, file: file, held: held})
	s.mu.Lock()
	s.tokens = append(s.tokens, t)
	s.mu.Unlock()
	return Scheme + t
}

// Close forgets the references of s that were not taken: their files are
// no longer held. It may be called more than once.
func (s *Scope) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	tokens := s.tokens
	s.tokens = nil
	s.mu.Unlock()
	for _, t := range tokens {
		if v, ok := entries.LoadAndDelete(t); ok {
			v.(*entry).release()
		}
	}
}

// Live reports whether ref (without quotes) is a reference not taken yet,
// whatever it was made for: the decoder then leaves it to [Take], which
// checks the rest. Anything else is decoded as the value it is.
func Live(ref []byte) bool {
	if len(ref) <= len(Scheme) || string(ref[:len(Scheme)]) != Scheme {
		return false
	}
	_, ok := entries.Load(string(ref[len(Scheme):]))
	return ok
}

type bindingKey struct{}

// A binding is what [Take] resolves references for: the scope key of the
// request, or of the elicitation/create it answers, the tool called ("" for
// an elicitation/create answer) and the input request whose answer is read
// ("" for the call's arguments), with the schema of the form it is read
// as. tools is the registry of the server the
// tool was added to, where the forms it elicits are recorded.
type binding struct {
	key, tool, answer, form string
	tools                   *tools
}

// Bind returns ctx carrying the scope key that meta, the params._meta of a
// call of tool, a tool of s added with runtime.AddTool, holds, and removes
// it from meta, for [Take]. Without one, no reference of the call's
// resolves; ctx still names the tool, for [RecordForm].
func Bind(ctx context.Context, s *mcp.Server, meta map[string]any, tool string) context.Context {
	var key string
	if v, ok := meta[MetaKey]; ok {
		delete(meta, MetaKey)
		key, _ = v.(string)
	}
	b := binding{key: key, tool: tool}
	if s != nil {
		b.tools = toolsOf(s)
	}
	return context.WithValue(ctx, bindingKey{}, b)
}

// ForAnswer returns ctx, the context of a call (see [Bind]), resolving
// the references of the answer to its input request id (protocol
// 2026-07-28: inputResponses), read as the form whose schema is schema,
// instead of its arguments'. A reference made for the answer as another
// form's does not resolve.
func ForAnswer(ctx context.Context, id, schema string) context.Context {
	b, ok := ctx.Value(bindingKey{}).(binding)
	if !ok {
		return ctx
	}
	b.answer, b.form = id, schema
	return context.WithValue(ctx, bindingKey{}, b)
}

// Take returns the file that ref (without quotes) stands for, and forgets
// it, when it was made for the request (or elicitation), tool, answer and
// argument arg that ctx (see [Bind], [ForAnswer], [Elicitation.Bind]) and
// arg name; ok is false otherwise.
func Take(ctx context.Context, ref, arg string) (file any, ok bool) {
	b, _ := ctx.Value(bindingKey{}).(binding)
	if b.key == "" || len(ref) <= len(Scheme) || ref[:len(Scheme)] != Scheme {
		return nil, false
	}
	t := ref[len(Scheme):]
	v, found := entries.Load(t)
	if !found {
		return nil, false
	}
	e := v.(*entry)
	if e.scope.key != b.key || e.scope.tool != b.tool || e.answer != b.answer || e.form != b.form || e.arg != arg {
		return nil, false
	}
	if !entries.CompareAndDelete(t, e) {
		return nil, false // taken meanwhile
	}
	e.release()
	return e.file, true
}

// The tools of each server whose file arguments the fast path decodes: by
// a weak pointer, so that a server the program drops is dropped here too.
var servers sync.Map // weak.Pointer[mcp.Server] → *tools

type tools struct {
	watched atomic.Bool // see [Watch]

	mu    sync.RWMutex
	files map[string]map[string]*descriptor.Prop // tool → argument → property
	defs  map[string]*mcp.Tool                   // tool → what runtime.AddTool added, for a tool in files (see Own)
	forms map[formKey]map[string]*Form           // → by schema
}

// A Form is a form a tool elicits: its schema and file fields.
type Form struct {
	schema string
	files  map[string]*descriptor.Prop // field → property
}

// formKey names the forms a tool elicits as the input request id.
type formKey struct{ tool, id string }

func toolsOf(s *mcp.Server) *tools {
	k := weak.Make(s)
	if v, ok := servers.Load(k); ok {
		return v.(*tools)
	}
	v, loaded := servers.LoadOrStore(k, &tools{files: map[string]map[string]*descriptor.Prop{}, defs: map[string]*mcp.Tool{}, forms: map[formKey]map[string]*Form{}})
	if !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[mcp.Server]) { servers.Delete(k) }, k)
	}
	return v.(*tools)
}

// AddTool records that the tool name of s, added with runtime.AddTool,
// takes files, as runtime.File values, in the arguments of files (name →
// property); it replaces what was recorded for name. A tool with no
// such argument is forgotten.
func AddTool(s *mcp.Server, name string, files map[string]*descriptor.Prop) {
	t := toolsOf(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.forms { // the tool's handler is a new one
		if k.tool == name {
			delete(t.forms, k)
		}
	}
	delete(t.defs, name) // until Own says whose it is
	if len(files) == 0 {
		delete(t.files, name)
		return
	}
	t.files[name] = files
}

// Watch reports whether it is the first call for s: package runtime
// then installs on s what notices a call of a recorded tool that another
// handler answered.
func Watch(s *mcp.Server) (first bool) {
	return toolsOf(s).watched.CompareAndSwap(false, true)
}

// Own notes def as the tool that package runtime added to s under its
// name, after [AddTool] recorded its files: the tool the server lists
// while no other replaced it (see [Recorded]).
func Own(s *mcp.Server, def *mcp.Tool) {
	t := toolsOf(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.files[def.Name] != nil {
		t.defs[def.Name] = def
	}
}

// Recorded returns the tool of s named name that [AddTool] records files
// for, as [Own] noted it; nil for none.
func Recorded(s *mcp.Server, name string) *mcp.Tool {
	t := toolsOf(s)
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.files[name] == nil {
		return nil
	}
	return t.defs[name]
}

// ToolFiles returns the function [Rewrite] takes for s: the file
// arguments of a tool recorded with [AddTool], nil for any other.
func ToolFiles(s *mcp.Server) func(tool string) map[string]*descriptor.Prop {
	t := toolsOf(s)
	return func(tool string) map[string]*descriptor.Prop {
		t.mu.RLock()
		defer t.mu.RUnlock()
		return t.files[tool]
	}
}

// maxForms bounds the forms recorded for one tool and input request id:
// a handler elicits one of a few forms, chosen in its code.
const maxForms = 16

// RecordForm records that the tool of the call whose context is ctx (see
// [Bind]) elicits, as input request id (protocol 2026-07-28), the form
// whose schema is schema and whose file fields are files (field →
// property), so that the fast path may decode the answer in the retry of
// the call. A tool that elicits more than one form under the same id has
// its answers left to the SDK, as does a call not bound by [Bind].
func RecordForm(ctx context.Context, id, schema string, files map[string]*descriptor.Prop) {
	b, _ := ctx.Value(bindingKey{}).(binding)
	if b.tools == nil || len(files) == 0 {
		return
	}
	t := b.tools
	k := formKey{b.tool, id}
	t.mu.RLock()
	_, ok := t.forms[k][schema]
	t.mu.RUnlock()
	if ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.forms[k]
	if m == nil {
		m = map[string]*Form{}
		t.forms[k] = m
	}
	if len(m) < maxForms {
		m[schema] = &Form{schema, files}
	}
}

// ToolForms returns the function [Conn] takes for s: the form that the
// tool elicits as input request id, when [RecordForm] recorded exactly
// one; nil otherwise.
func ToolForms(s *mcp.Server) func(tool, id string) *Form {
	t := toolsOf(s)
	return func(tool, id string) *Form {
		t.mu.RLock()
		defer t.mu.RUnlock()
		m := t.forms[formKey{tool, id}]
		if len(m) != 1 {
			return nil
		}
		for _, f := range m {
			return f
		}
		return nil
	}
}

// NewRef returns a runtime.File (as any) that stands for the reference
// ref until runtime.AddTool resolves it with [Take]; refusal is the error
// the decoder gives ref as a value, which the call gets when ref does not
// resolve. Package runtime sets it; the decoder calls it for a [Live]
// reference.
var NewRef func(ref string, refusal error) any

// Held returns the number of references made and not taken or forgotten
// yet, in the whole process: for tests that check that none outlives its
// request.
func Held() int {
	n := 0
	entries.Range(func(any, any) bool { n++; return true })
	return n
}
