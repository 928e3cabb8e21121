// Package hook is where the runtime meets the transfer layer without
// depending on it: package runtime decodes a file argument that is an
// uploaded file's URI (mcp-file:) into a File that only refers to it, and
// resolves that reference, before the handler runs, through the [Resolver]
// that package transfer puts in the request's context. Package transfer
// depends on runtime, never the reverse; this package depends on neither.
//
// Each thing here is set by the package that owns it and only read by the
// others. Package runtime, which owns File and Error, sets the functions
// that make and check them ([NewRef], [IsRef], [NewFetchRef], [CheckFile])
// when it is initialised; the packages that call them (mcpfileimpl, where
// the decoder is, and transfer) import runtime, so it always has.
package hook

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/internal/descriptor"
	"github.com/mcpfile/mcpfile/runtime/internal/observe"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
)

// FileScheme is the scheme of the file URIs a server hands out in
// files/authorizeUpload. A value with this scheme is a reference, never a
// path: only a Resolver gives it meaning.
const FileScheme = "mcp-file:"

// MaxURILen bounds the file URIs the decoder takes as references; longer
// values are refused before anything else is done with them. It is the
// transfer layer's own limit (token.MaxFileURILen).
const MaxURILen = 512

// A Reader reads the bytes of a resolved file: what a store opens, and what
// runtime.FileReader (the same methods, documented for handlers) hands on.
type Reader = store.Reader

// Resolved is what a file URI resolves to: a stored file that passed the
// checks of the argument it was sent in.
type Resolved struct {
	MediaType string            // lower-cased type/subtype
	Params    map[string]string // other media-type parameters, nil for none
	Name      string            // sanitized, "" for none
	Size      int64
	Open      func() (Reader, error) // a new reader of the bytes on each call
	// Release deletes the stored file, for runtime.File.Release: the
	// owner's quota no longer counts it. Deleting one already gone is not
	// an error.
	Release func(ctx context.Context) error
}

// A Resolver resolves the file URIs of one server's requests.
type Resolver interface {
	// Resolve checks uri, the value of the file argument arg, and the file
	// it names against d, for the request whose extra is given (its auth
	// token info says who is asking; nil without). A rejection is an error
	// whose text is written for the model, as runtime.Error's are, and
	// holds nothing of the URI. The file URI of an upload page (a Page's
	// State) sent back in an argument is waited for while its upload
	// runs, and gives its file to one call only, of the tool that asked
	// for it; the page that AwaitPage
	// just returned, the call's own, is resolved as it is.
	Resolve(ctx context.Context, extra *mcp.RequestExtra, arg, uri string, d descriptor.File) (Resolved, error)

	// GiveBack gives back the files of the upload pages that the call's
	// arguments took (Resolve), when the call was refused for its
	// arguments before any handler saw them: a retry with the arguments
	// put right may take them.
	GiveBack(ctx context.Context)

	// Declare records that the server takes the files of schema, an
	// elicitation form it is about to send: files/authorizeUpload then
	// authorizes what the form's files allow.
	Declare(schema *descriptor.Schema)

	// NewPage mints an upload page (URL-mode elicitation) for one file
	// that d describes, for the caller whose extra is given, asked by the
	// input request key.ID of the call of tool key.Tool in session
	// key.Session; message is what the page shows. With key.Reuse, a page
	// minted under the same key for the same caller (the principal; for an
	// anonymous caller, the session) that is pending is returned again
	// instead of a new one, and one whose file is uploaded is returned once
	// more, Done (Uploading while its upload runs). done, when not nil, is
	// called once, with the page's ElicitationID, when a file has been
	// uploaded through the page. The page shows the server's name, key.Tool
	// and message.
	NewPage(ctx context.Context, extra *mcp.RequestExtra, key PageKey, d descriptor.File, message string, done func(elicitationID string)) (Page, error)

	// AwaitPage waits until a file has been uploaded through the page
	// whose State is state, minted for key's tool and input request (and,
	// as key.Reuse says, as a page found again by its key or not), and
	// returns that file's URI, for Resolve. It calls progress, when not
	// nil, with the bytes received and the most the page takes: throttled
	// while bytes arrive, and once when the upload is complete. A rejection
	// (a state not of this caller, tool and input request; a page that
	// expired unused; an upload that broke off) is an error written for
	// the model.
	AwaitPage(ctx context.Context, extra *mcp.RequestExtra, key PageKey, state string, progress func(received, total int64)) (uri string, err error)

	// ClosePage tells the resolver that no one will wait for the page
	// whose State is state (the person declined, or the call ended): it
	// stops counting as pending and takes no more uploads. A state that is
	// not the caller's, or of a page found again by its key (Reuse), whose
	// State whoever read the link result has, is ignored.
	ClosePage(ctx context.Context, extra *mcp.RequestExtra, state string)
}

// A PageKey says which call asks for an upload page.
type PageKey struct {
	Session *mcp.ServerSession
	// Caller, on a server of another SDK (Session nil), tells apart the
	// callers without auth whose requests the owner does not (a session
	// without an ID): a comparable value that keeps nothing alive; nil
	// for one such caller (stdio's one client).
	Caller any
	Tool   string // the tool called
	ID     string // the input request's ID
	Form   string // what is asked: the form's type and the message
	Reuse  bool   // a page for a client without URL-mode elicitation: found again by the retry
}

// A Page is an upload page: the URL a person opens to upload one file.
type Page struct {
	URL           string // the page, for the person's browser
	ElicitationID string // the URL-mode elicitation's elicitationId
	State         string // what AwaitPage takes: opaque, signed, safe to hand to the client; the file URI of the page's upload
	Done          bool   // a file has been uploaded through it already
	Uploading     bool   // a file is being uploaded through it (in this process) now
	Again         bool   // found again under its key (Reuse): an earlier call handed it out already
}

type resolverKey struct{}

// WithResolver returns ctx carrying r and the request's extra: what the
// transfer layer's middleware does for every request of a server that
// serves uploads.
func WithResolver(ctx context.Context, r Resolver, extra *mcp.RequestExtra) context.Context {
	return context.WithValue(ctx, resolverKey{}, &bound{r, extra})
}

type bound struct {
	r     Resolver
	extra *mcp.RequestExtra
}

// ResolverFrom returns the Resolver in ctx and the extra of its request,
// or nil when the server serves no uploads.
func ResolverFrom(ctx context.Context) (Resolver, *mcp.RequestExtra) {
	b, _ := ctx.Value(resolverKey{}).(*bound)
	if b == nil {
		return nil, nil
	}
	return b.r, b.extra
}

// A server's record: whether it serves uploads, and the schemas whose
// files it takes (its tools' arguments, and the forms it elicited).
type serverInfo struct {
	mu      sync.Mutex
	serves  bool
	schemas []*descriptor.Schema
	fetcher *fetch.Fetcher // for ChatGPT file objects, set by runtime.UseFetcher
	obs     *observe.Observer
	refuse  int // how a tool call's refused arguments are answered, set by runtime.SetRefusalForm
}

// servers holds the record of each server, by a weak pointer, so that a
// server the program drops (one per session, say) is dropped here too.
// A server is a go-sdk *mcp.Server or an mcp-go *server.MCPServer (S is
// the SDK's server type): the record is the same for either.
var servers sync.Map // weak.Pointer[S] → *serverInfo

func info[S any](s *S) *serverInfo {
	k := weak.Make(s)
	if v, ok := servers.Load(k); ok {
		return v.(*serverInfo)
	}
	v, loaded := servers.LoadOrStore(k, new(serverInfo))
	if !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[S]) { servers.Delete(k) }, k)
	}
	return v.(*serverInfo)
}

// Serve records that s serves uploads.
func Serve[S any](s *S) {
	i := info(s)
	i.mu.Lock()
	i.serves = true
	i.mu.Unlock()
}

// Serves reports whether s serves uploads.
func Serves[S any](s *S) bool {
	i := info(s)
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.serves
}

// AddSchema records that s takes the files of schema: runtime.AddTool
// records each tool's arguments, and Elicit each form, through
// [Resolver.Declare], before the client can see it.
func AddSchema[S any](s *S, schema *descriptor.Schema) {
	i := info(s)
	i.mu.Lock()
	defer i.mu.Unlock()
	if !slices.Contains(i.schemas, schema) {
		i.schemas = append(i.schemas, schema)
	}
}

// Schemas returns the schemas recorded for s.
func Schemas[S any](s *S) []*descriptor.Schema {
	i := info(s)
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.schemas)
}

// NewRef returns a runtime.File (as any) that refers to the file URI uri,
// to be resolved before a handler sees it. Package runtime sets it when it
// is initialised; package mcpfileimpl's decoder calls it.
var NewRef func(uri string) any

// IsRef reports whether f, a runtime.File, refers to a file URI or URL
// that is not resolved yet. Package runtime sets it with NewRef.
var IsRef func(f any) bool

// NewFetchRef returns a runtime.File (as any) that refers to a file to be
// fetched from url (a ChatGPT file object's download_url), with the media
// type and name its object declared ("" for none), for runtime.AddTool to
// fetch before the handler runs. Package runtime sets it.
var NewFetchRef func(url, mediaType, name string) any

// SetFetcher records f as the fetcher of s, for package runtime:
// runtime.UseFetcher calls it.
func SetFetcher[S any](s *S, f *fetch.Fetcher) {
	i := info(s)
	i.mu.Lock()
	i.fetcher = f
	i.mu.Unlock()
}

// Fetcher returns the fetcher SetFetcher recorded for s, nil when s (or
// a nil s, an elicitation's) has none.
func Fetcher[S any](s *S) *fetch.Fetcher {
	if s == nil {
		return nil
	}
	i := info(s)
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.fetcher
}

// SetRefusalForm records form, a runtime.RefusalForm, as how s answers a
// tool call whose file arguments break a rule: runtime.SetRefusalForm
// calls it.
func SetRefusalForm[S any](s *S, form int) {
	i := info(s)
	i.mu.Lock()
	i.refuse = form
	i.mu.Unlock()
}

// RefusalForm returns the form SetRefusalForm recorded for s, 0 (the
// default) when none was.
func RefusalForm[S any](s *S) int {
	if s == nil {
		return 0
	}
	i := info(s)
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.refuse
}

// CheckFile checks a file that did not arrive as a data: URI (one fetched
// or uploaded), sent for argument arg, against d, with the rules and
// errors of a data: URI's checks: its media type mt (type/subtype,
// lower-cased) against accept, its size, and, unless d.NoSniff, its first
// bytes head (up to content.SniffLen) against mt with charset. Package
// runtime sets it; package transfer calls it for the files it resolves.
var CheckFile func(arg string, d descriptor.File, mt, charset string, size int64, head []byte) error

// SetObserver records o as the observer of s: what package runtime logs
// and measures of s's tool calls goes to it. transfer.Register sets its
// own, so that a server's records go to one logger.
func SetObserver[S any](s *S, o *observe.Observer) {
	i := info(s)
	i.mu.Lock()
	i.obs = o
	i.mu.Unlock()
}

// Observer returns the observer SetObserver recorded for s, or
// observe.Default().
func Observer[S any](s *S) *observe.Observer {
	if s == nil {
		return observe.Default()
	}
	i := info(s)
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.obs == nil {
		return observe.Default()
	}
	return i.obs
}

// ObserverFrom returns the observer of the server whose request ctx is:
// that of the Resolver in ctx, when it has one (transfer.Register's), or
// observe.Default().
func ObserverFrom(ctx context.Context) *observe.Observer {
	if r, _ := ResolverFrom(ctx); r != nil {
		if o, ok := r.(interface{ Observer() *observe.Observer }); ok {
			return o.Observer()
		}
	}
	return observe.Default()
}
