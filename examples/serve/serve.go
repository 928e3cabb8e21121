// Package serve runs an example server over stdio (the default) or over
// streamable HTTP (-http 127.0.0.1:PORT), with a request size limit large
// enough for the files its tools declare.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main parses args and serves the server newServer returns until stdin
// closes or, for HTTP, until SIGINT or SIGTERM. maxRequest gives the largest
// request body, from runtime.MaxRequestBytes. It returns the process exit code.
func Main(name string, args []string, stderr io.Writer, newServer func() *mcp.Server, maxRequest func() (int64, error)) int {
	return MainFlags(name, args, stderr, func(*flag.FlagSet) func() (*mcp.Server, error) {
		return func() (*mcp.Server, error) { return newServer(), nil }
	}, maxRequest)
}

// MainFlags is [Main] for a command with flags of its own: define adds them
// to the command's flag set and returns the function that, once the flags
// are parsed, builds the server from them. An error from that function is
// a usage error: it is printed, and MainFlags returns 2.
func MainFlags(name string, args []string, stderr io.Writer, define func(*flag.FlagSet) func() (*mcp.Server, error), maxRequest func() (int64, error)) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("http", "", "serve streamable HTTP on `host:port` (e.g. 127.0.0.1:8080) instead of stdio")
	newServer := define(flags)
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q\n", name, flags.Args())
		return 2
	}
	logger := log.New(stderr, name+": ", 0)
	s, err := newServer()
	if err != nil {
		logger.Print(err)
		return 2
	}
	limit, err := maxRequest()
	if err != nil {
		logger.Print(err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *addr == "" {
		err = s.Run(ctx, Stdio(limit))
	} else {
		logger.Printf("serving streamable HTTP on http://%s (request limit %d bytes)", *addr, limit)
		err = ServeHTTP(ctx, *addr, s, limit)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		logger.Print(err)
		return 1
	}
	return 0
}

// Stdio is the stdio transport for a server whose largest request is limit
// bytes. The SDK reads one JSON-RPC message per line and ends the session on
// a line longer than MaxLineLength (default 16 MiB, [mcp.DefaultMaxLineLength]),
// so the line limit is raised to limit when that is larger.
func Stdio(limit int64) *mcp.StdioTransport {
	return &mcp.StdioTransport{MaxLineLength: int(max(limit, mcp.DefaultMaxLineLength))}
}

// Handler is the streamable HTTP handler for s with request bodies of up to
// limit bytes; the SDK answers larger ones with 413 Request Entity Too Large.
//
// It serves both protocol generations. The go-sdk speaks 2026-07-28 over
// HTTP only statelessly, while older clients need a session for the
// requests a server sends them, such as elicitation/create. So requests
// whose Mcp-Protocol-Version header names 2026-07-28 or later go to a
// stateless handler, and the rest to a stateful one whose idle sessions
// end after SessionTimeout.
func Handler(s *mcp.Server, limit int64) http.Handler {
	server := func(*http.Request) *mcp.Server { return s }
	stateful := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: limit,
		SessionTimeout:      SessionTimeout,
	})
	stateless := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: limit,
		Stateless:           true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Protocol versions are dates, YYYY-MM-DD: they sort as strings.
		if r.Header.Get("Mcp-Protocol-Version") >= statelessSince {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// statelessSince is the first protocol version the go-sdk serves over HTTP
// only without sessions.
const statelessSince = "2026-07-28"

// SessionTimeout ends the session of a client that stopped calling without
// closing it (older protocol versions only; 2026-07-28 has no sessions).
const SessionTimeout = 10 * time.Minute

// ServeHTTP serves s on addr until ctx is done.
func ServeHTTP(ctx context.Context, addr string, s *mcp.Server, limit int64) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return Serve(ctx, l, Handler(s, limit))
}

// Serve serves h on l until ctx is done, then shuts down gracefully
// (waiting up to 5 seconds for requests in flight, then closing what is
// still open: a client's stream of server messages, or a tool call that
// waits for a person's upload, may never end by itself), with the
// timeouts of the example commands. It closes l.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// A stalled upload holds at most one request body (the handler's
		// limit) until then. A handler that takes longer bodies on purpose
		// extends its own read deadline (http.ResponseController).
		ReadTimeout: 5 * time.Minute,
		IdleTimeout: 2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return srv.Close()
	}
}
