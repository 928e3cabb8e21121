// Package cli parses the flags the example servers share and serves
// them with package runtime/serve: over stdio by default, or over
// streamable HTTP with -http host:port (MCP at /mcp).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/runtime/serve"
)

// Main parses args and serves the server newServer returns with o until
// stdin closes or, for HTTP, until SIGINT or SIGTERM. It returns the
// process exit code.
func Main(name string, args []string, stderr io.Writer, newServer func() *mcp.Server, o serve.Options) int {
	return MainFlags(name, args, stderr, func(*flag.FlagSet) func() (*mcp.Server, error) {
		return func() (*mcp.Server, error) { return newServer(), nil }
	}, o)
}

// MainFlags is [Main] for a command with flags of its own: define adds them
// to the command's flag set and returns the function that, once the flags
// are parsed, builds the server from them. An error from that function is
// a usage error: it is printed, and MainFlags returns 2. It returns 1 when
// serving fails, and 0 when the client or a signal ended it.
func MainFlags(name string, args []string, stderr io.Writer, define func(*flag.FlagSet) func() (*mcp.Server, error), o serve.Options) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("http", "", "serve streamable HTTP on `host:port` (e.g. 127.0.0.1:8080), MCP at "+serve.DefaultPath+", instead of stdio")
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
	s, err := newServer()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(stderr, nil)).With(slog.String("command", name))
	}
	// The records of uploads, downloads, fetches and refusals go to the
	// default logger of a server that sets none of its own: this one.
	slog.SetDefault(o.Logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		err = serve.Stdio(ctx, s, o)
	} else {
		err = serve.ListenAndServe(ctx, *addr, s, o)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		o.Logger.Error("serving failed", slog.String("err", err.Error()))
		return 1
	}
	return 0
}
