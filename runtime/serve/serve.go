// Package serve serves an MCP server built with the go-sdk and package
// runtime, the way its files need: over streamable HTTP to clients of both
// protocol generations, with the transfer endpoints when
// transfer.Register was used, and with request limits computed from the
// server's tools; or over stdio with the line limit to match.
//
//	s := mcp.NewServer(&mcp.Implementation{Name: "images", Version: "v1.0.0"}, nil)
//	runtime.AddTool(s, &mcp.Tool{Name: "describe_image"}, describe)
//	err := serve.ListenAndServe(ctx, "127.0.0.1:8080", s, serve.Options{})
//
// or, to mount it yourself, http.Handle("/", serve.Handler(s, serve.Options{})),
// or serve.Stdio(ctx, s, serve.Options{}) for a client that starts the
// server as its child process.
//
// Why a package: the go-sdk speaks protocol 2026-07-28 over HTTP only
// without sessions (a stateless handler), while older clients need a
// session for the requests a server sends them, such as
// elicitation/create (a stateful handler); its default request limit
// (4 MiB) is smaller than many files; and the files capability a client
// declares in initialize is dropped by its typed capabilities unless
// transfer.KeepFilesCapability keeps it. [Handler] does all of that in one
// value.
//
// Both [Handler] and [Stdio] also read each message a client sends once,
// before the go-sdk does: a tools/call of a tool added with
// runtime.AddTool whose file arguments all pass has its large data: URIs
// decoded and checked there, by the generated decoder's own code, and
// reaches the SDK with a short reference in place of each, which
// runtime.AddTool's handler resolves to the decoded file before the
// tool's handler runs. The SDK's JSON handling, which walks a large
// string about eight times, then never sees the file's bytes: a call
// with a file of megabytes costs a fraction of what it costs through the
// SDK alone, in time and memory (BENCHMARKS.md §10). A reference is good
// for its request, tool and argument only, once; any other (one a client
// writes, one from another request or session) is refused as the same
// string is as a value. The files of the answers to runtime.Elicit's
// forms take the same path: in the retry of a call (inputResponses,
// protocol 2026-07-28), and in the response to an elicitation/create
// (before it), whose references are good for that one elicitation in
// that session and are held until Elicit takes them, at most a minute and
// within a bound of files and bytes in all, for each Handler or Stdio
// (Options.AnswerTTL, MaxAnswerFiles, MaxAnswerBytes; past them, an answer
// goes to the SDK as it came). What this does not take (a file it would refuse,
// a message it does not understand, a tool added otherwise) reaches the
// SDK as it came, with the same answers; a receiving middleware sees the
// references and their scope key (_meta "io.mcpfile/inline"), which the
// tool's handler no longer sees. Elicit's elicitation/create requests
// carry their elicitation's key there too, which the serving code removes
// before the client gets them.
//
// Only runtime.AddTool's handler resolves references, and the go-sdk does
// not tell whose handler a tool's name maps to: replace a tool added with
// runtime.AddTool through runtime.AddTool again, or call
// runtime.RemoveTools before adding one of the go-sdk's own under its
// name. A handler that replaced it otherwise sees a reference string in
// place of each large data: URI in the first call it answers; then the
// fast path leaves the tool to the SDK and logs a warning (see
// runtime.AddTool).
package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/internal/inline"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// Defaults of the zero [Options].
const (
	// DefaultPath is the path of the MCP endpoint.
	DefaultPath = "/mcp"
	// DefaultSessionTimeout ends the session of a client that stopped
	// calling without closing it (protocol 2025-11-25 and older; 2026-07-28
	// has no sessions).
	DefaultSessionTimeout = 10 * time.Minute
	// DefaultReadHeaderTimeout bounds how long a client may take to send a
	// request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds how long a client may take to send a whole
	// request: a stalled body holds at most one request limit until then.
	// The upload endpoint moves its read deadline while bytes keep coming
	// (transfer.UploadOptions.IdleTimeout), so a large upload is not cut.
	DefaultReadTimeout = 5 * time.Minute
	// DefaultIdleTimeout closes a kept-alive connection with no request.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultShutdownTimeout is how long a server stopping waits for the
	// requests in flight before it closes what is still open: a client's
	// stream of server messages may never end by itself. (Calls waiting
	// for a person's upload through an upload page end at once, answering
	// that the server is shutting down: transfer.Shutdown.)
	DefaultShutdownTimeout = 5 * time.Second

	// DefaultAnswerTTL is how long the files of an answer to an
	// elicitation/create that the fast path of inline files decoded are
	// held for runtime.Elicit when it does not take them.
	DefaultAnswerTTL = time.Minute
	// DefaultMaxAnswerFiles is the most files of such answers held at
	// once by one [Handler] or [Stdio].
	DefaultMaxAnswerFiles = 256
	// DefaultMaxAnswerBytes is the most bytes of files of such answers
	// held at once by one [Handler] or [Stdio] (256 MiB).
	DefaultMaxAnswerBytes = 256 << 20
)

// StatelessSince is the first protocol version that the go-sdk serves over
// HTTP only without sessions: [Handler] sends the requests whose
// Mcp-Protocol-Version header names it or a later version to a stateless
// handler, and the rest to a stateful one.
const StatelessSince = "2026-07-28"

// Options configure [Handler], [Stdio], [ListenAndServe] and [Serve].
// The zero value serves MCP at [DefaultPath] with the limits the server's
// tools need and the defaults above.
type Options struct {
	// Path is the path of the MCP endpoint. Empty means DefaultPath.
	Path string

	// MaxRequestBytes is the largest request body (over HTTP) or line
	// (over stdio) the server reads; the go-sdk answers a larger body with
	// 413 Request Entity Too Large, and ends a stdio session on a longer
	// line. Zero means runtime.MaxRequestBytesFor(server, Forms...): what
	// the tools added with runtime.AddTool before the handler is made
	// need, at least the go-sdk's 4 MiB (and over stdio, its 16 MiB line).
	MaxRequestBytes int64

	// Forms are the schemas (MCPSchema) of the forms the server's tools
	// elicit with runtime.Elicit: a 2026-07-28 client answers a form in
	// the retry of the call, so that request carries the form's files
	// with the tool's. Read only when MaxRequestBytes is zero.
	Forms []json.RawMessage

	// SessionTimeout ends idle sessions of clients on 2025-11-25 and
	// older. Zero means DefaultSessionTimeout; a negative value, never.
	SessionTimeout time.Duration

	// Logger receives the go-sdk handler's errors and the serving
	// functions' records; and, on a server that transfer.Register set up
	// without a transfer.Options.Logger, the transfer layer's records
	// (transfer.UseLogger). Nil means slog.Default().
	Logger *slog.Logger

	// ReadHeaderTimeout, ReadTimeout and IdleTimeout are those of the
	// http.Server that ListenAndServe and Serve build. Zero means
	// DefaultReadHeaderTimeout, DefaultReadTimeout and DefaultIdleTimeout;
	// a negative value, no limit.
	ReadHeaderTimeout time.Duration
	// ReadTimeout: see ReadHeaderTimeout.
	ReadTimeout time.Duration
	// IdleTimeout: see ReadHeaderTimeout.
	IdleTimeout time.Duration

	// ShutdownTimeout is how long ListenAndServe and Serve, once their
	// context is done, wait for the requests in flight before they close
	// the connections. Zero means DefaultShutdownTimeout; a negative value,
	// wait for every request.
	ShutdownTimeout time.Duration

	// AnswerTTL, MaxAnswerFiles and MaxAnswerBytes bound the files of the
	// answers to runtime.Elicit's elicitation/create (protocols before
	// 2026-07-28) that the fast path of inline files decoded and holds
	// until Elicit takes them (see the package documentation): how long
	// an answer's files are held when Elicit does not take them (it takes
	// or gives them up as soon as it reads the answer), and how many
	// files and bytes are held at once. An answer that does not fit goes
	// to the SDK as it came: it is decoded there, more slowly, and
	// nobody is refused. Zero means DefaultAnswerTTL (a minute),
	// DefaultMaxAnswerFiles (256) and DefaultMaxAnswerBytes (256 MiB); a
	// negative value holds none, so every answer takes the SDK's path.
	// Elicit reads an answer as soon as the SDK hands it on, but an
	// answer whose files expired before it did is refused as a value that
	// is not a data: URI (and asked again while Elicit's MaxTries allow):
	// keep AnswerTTL in seconds, not milliseconds.
	//
	// The bounds are those of the one Handler or Stdio call given o: each
	// call counts what it holds on its own (a Handler across all its
	// sessions), so two servers in one process, or one server served
	// twice, each hold up to their own bounds. The process holds at most
	// the sum.
	AnswerTTL time.Duration
	// MaxAnswerFiles: see AnswerTTL.
	MaxAnswerFiles int
	// MaxAnswerBytes: see AnswerTTL.
	MaxAnswerBytes int64
}

// answerLimits returns the bounds of held answers o sets, with the
// defaults above for its zero fields.
func (o *Options) answerLimits() inline.AnswerLimits {
	return inline.AnswerLimits{
		TTL:   cmp.Or(o.AnswerTTL, DefaultAnswerTTL),
		Files: cmp.Or(o.MaxAnswerFiles, DefaultMaxAnswerFiles),
		Bytes: cmp.Or(o.MaxAnswerBytes, DefaultMaxAnswerBytes),
	}
}

// logger returns o.Logger or the default.
func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// RequestLimit returns the request limit [Handler] and [Stdio] give s:
// o.MaxRequestBytes, or what s's tools need (see Options.MaxRequestBytes).
// It panics, as runtime.AddTool does for a schema it cannot use, when a
// form of o.Forms is not a generated object schema.
func RequestLimit(s *mcp.Server, o Options) int64 {
	if o.MaxRequestBytes != 0 {
		return o.MaxRequestBytes
	}
	n, err := runtime.MaxRequestBytesFor(s, o.Forms...)
	if err != nil {
		panic("serve: " + err.Error())
	}
	return n
}

// Handler returns the HTTP handler of s: MCP at o.Path for clients of
// every protocol generation, and, when transfer.Register made s serve
// file transfers, its upload, download and upload-page endpoints under
// the path of its PublicURL; 404 Not Found for anything else. Mount it at
// the root of a server (or under a prefix with http.StripPrefix).
//
// Requests whose Mcp-Protocol-Version header names [StatelessSince] or a
// later version go to a stateless go-sdk handler, where each request is a
// session of its own; the rest, initialize included, to a stateful one
// whose sessions end after o.SessionTimeout idle. Request bodies are
// limited to [RequestLimit]. With transfers, the MCP endpoint keeps the
// files capability a client declares in initialize
// (transfer.KeepFilesCapability), so that file results reach the clients
// that can read them, and tells the transfer layer the address of each
// request (transfer.KeepCallerAddress), by which it bounds the upload
// pages and stored bytes of callers without auth and without a session.
//
// POST bodies of tools/call go through the fast path of inline files (see
// the package documentation): read whole, within the same limit, before
// the SDK's handler gets them; a body of a declared length into one
// buffer of that length, where its files are then decoded, one of unknown
// length a piece at a time, as Stdio reads a line.
//
// The limit is computed when Handler is called: add the tools first. It
// panics when a form of o.Forms cannot be used (see RequestLimit).
func Handler(s *mcp.Server, o Options) http.Handler {
	h, _ := newHandler(s, o, RequestLimit(s, o))
	return h
}

// newHandler is [Handler] with the limit given; it also returns the path
// of the transfer endpoints, "" when there are none.
func newHandler(s *mcp.Server, o Options, limit int64) (http.Handler, string) {
	useLogger(s, o)
	path := cmp.Or(o.Path, DefaultPath)
	timeout := o.SessionTimeout
	switch {
	case timeout == 0:
		timeout = DefaultSessionTimeout
	case timeout < 0:
		timeout = 0 // the go-sdk's "never"
	}
	server := func(*http.Request) *mcp.Server { return s }
	stateful := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: limit,
		SessionTimeout:      timeout,
		Logger:              o.logger(),
	})
	stateless := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: limit,
		Stateless:           true,
		Logger:              o.logger(),
	})
	var endpoint http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Protocol versions are dates, YYYY-MM-DD: they sort as strings.
		if r.Header.Get("Mcp-Protocol-Version") >= StatelessSince {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	filesPath, files, ok := transfer.Endpoints(s)
	if ok {
		endpoint = transfer.KeepFilesCapability(transfer.KeepCallerAddress(endpoint))
	}
	endpoint = inlineHTTP(s, limit, o.answerLimits(), endpoint)
	if !ok {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				http.NotFound(w, r)
				return
			}
			endpoint.ServeHTTP(w, r)
		}), ""
	}
	// Routed by hand, not by a ServeMux pattern: PublicURL's path may hold
	// what patterns read as syntax (spaces, braces).
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == path:
			endpoint.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, filesPath):
			files.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}), filesPath
}

// Stdio serves s to one client over standard input and output until the
// client closes its end or ctx is done. A message is one line, read up to
// [RequestLimit] bytes (at least the go-sdk's 16 MiB,
// mcp.DefaultMaxLineLength); a longer line ends the session. With
// transfers, the files capability of initialize is kept, as over HTTP
// (transfer.KeepFilesCapabilityTransport); the transfer endpoints
// themselves need HTTP. Each line goes through the fast path of inline
// files (see the package documentation); a longer line than the limit
// goes to the SDK as it came. A line is read a piece at a time, and the
// base64 of a long data: URI is decoded as it arrives, so that a call
// with a file holds the file's bytes, not its text (about twice the file
// at the peak, while its pieces are joined). On Linux, when standard
// input is a pipe, Stdio lets it hold 1 MiB rather than 64 KiB, so that
// a large message crosses it in fewer turns.
func Stdio(ctx context.Context, s *mcp.Server, o Options) error {
	// What mcp.StdioTransport reads and writes, and closes.
	widenPipe(os.Stdin)
	return serveIO(ctx, s, os.Stdin, nopCloser{os.Stdout}, o)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// serveIO is [Stdio] over r and w.
func serveIO(ctx context.Context, s *mcp.Server, r io.ReadCloser, w io.WriteCloser, o Options) error {
	useLogger(s, o)
	limit := lineLimit(RequestLimit(s, o))
	c := newInlineIO(s, limit, o.answerLimits())
	defer c.closeAll()
	t := &mcp.IOTransport{Reader: c.reader(r), Writer: c.writer(w), MaxLineLength: limit}
	return run(ctx, s, keepFiles(s, t))
}

// run runs s on t until ctx is done or the client goes. When ctx ends, so
// do the calls waiting for an upload page (transfer.Shutdown): the
// session's close waits for its calls, and those would wait until the
// page expired.
func run(ctx context.Context, s *mcp.Server, t mcp.Transport) error {
	stop := context.AfterFunc(ctx, func() { transfer.Shutdown(s) })
	defer stop()
	return s.Run(ctx, t)
}

// useLogger gives the transfer layer of s o.Logger, when o has one and
// transfer.Register was given none.
func useLogger(s *mcp.Server, o Options) {
	if o.Logger != nil {
		transfer.UseLogger(s, o.Logger)
	}
}

// lineLimit is the stdio line limit for a request limit.
func lineLimit(limit int64) int {
	return int(min(max(limit, mcp.DefaultMaxLineLength), math.MaxInt))
}

// keepFiles wraps t to keep the files capability when s serves transfers.
func keepFiles(s *mcp.Server, t mcp.Transport) mcp.Transport {
	if _, _, ok := transfer.Endpoints(s); ok {
		return transfer.KeepFilesCapabilityTransport(t)
	}
	return t
}

// ListenAndServe listens on the TCP address addr and serves [Handler] of s
// on it until ctx is done or the process receives SIGINT or SIGTERM; then
// it shuts down as [Serve] does and returns nil.
func ListenAndServe(ctx context.Context, addr string, s *mcp.Server, o Options) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return Serve(ctx, l, s, o)
}

// Serve serves [Handler] of s on l until ctx is done, with an http.Server
// whose timeouts are o's, and closes l. Then it shuts down: it ends the
// calls waiting for a person's upload through an upload page, which
// answer that the server is shutting down (transfer.Shutdown), stops
// accepting, waits up to o.ShutdownTimeout for the requests in flight, and
// closes the connections still open. It returns nil after a shutdown, and
// the error that stopped it otherwise.
func Serve(ctx context.Context, l net.Listener, s *mcp.Server, o Options) error {
	limit := RequestLimit(s, o)
	h, filesPath := newHandler(s, o, limit)
	attrs := []any{
		slog.String("url", "http://"+l.Addr().String()+cmp.Or(o.Path, DefaultPath)),
		slog.Int64("requestLimit", limit),
	}
	if filesPath != "" {
		attrs = append(attrs, slog.String("transferPath", filesPath))
	}
	o.logger().Info("serving MCP over streamable HTTP", attrs...)
	return serveHTTP(ctx, l, h, o, func() { transfer.Shutdown(s) })
}

// serveHTTP serves h on l until ctx is done, then calls stopping (when not
// nil) and shuts down.
func serveHTTP(ctx context.Context, l net.Listener, h http.Handler, o Options, stopping func()) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: timeout(o.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       timeout(o.ReadTimeout, DefaultReadTimeout),
		IdleTimeout:       timeout(o.IdleTimeout, DefaultIdleTimeout),
		ErrorLog:          slog.NewLogLogger(o.logger().Handler(), slog.LevelWarn),
		// No WriteTimeout: a long download, a client's stream of server
		// messages and a call waiting for an upload may all outlast any.
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if stopping != nil {
		stopping()
	}
	shutdown, cancel := context.Background(), context.CancelFunc(func() {})
	grace := timeout(o.ShutdownTimeout, DefaultShutdownTimeout)
	if grace > 0 {
		shutdown, cancel = context.WithTimeout(shutdown, grace)
	}
	defer cancel()
	if err := srv.Shutdown(shutdown); !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	o.logger().Info("closing the requests still open after the shutdown grace period", slog.Duration("grace", grace))
	return srv.Close()
}

// timeout is d, or def when d is zero, or 0 (none) when d is negative.
func timeout(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}
