// Command describe_image is the describe_image example server
// (examples/describe_image) on github.com/mark3labs/mcp-go instead of the
// official go-sdk: the same three tools, the same generated argument types
// and the same answers, registered with runtime/mcpgo. describe_image
// takes a data: URI, describe_image_filedata an Odeus FileData object, and
// describe_image_chatgpt a ChatGPT file object, whose download_url it
// fetches from the hosts -fetch-host allows. From the repository root:
//
//	go -C runtime/mcpgo run ./examples/describe_image                       # stdio
//	go -C runtime/mcpgo run ./examples/describe_image -http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp
//	go -C runtime/mcpgo run ./examples/describe_image -fetch-host files.example.com
//
// Requests are held to the size the tools need (mcpgo.MaxRequestBytesFor):
// over HTTP a longer body is refused with 413, on stdio a longer line ends
// the session.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfile/mcpfile/examples/describe_image/describeimage"
	"github.com/mcpfile/mcpfile/runtime"
	"github.com/mcpfile/mcpfile/runtime/fetch"
	"github.com/mcpfile/mcpfile/runtime/mcpgo"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run parses args and serves until stdin closes or, for HTTP, until SIGINT
// or SIGTERM. It returns 0 when the client or a signal ended it, 1 when
// serving failed, and 2 for a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("describe_image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "serve streamable HTTP on `host:port` (e.g. 127.0.0.1:8080), MCP at /mcp, instead of stdio")
	var hosts hostList
	fs.Var(&hosts, "fetch-host", "let describe_image_chatgpt fetch files from `host` (repeat, or separate with commas; *.example.com for its subdomains; host:port for a port other than 443); without it nothing is fetched")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "describe_image: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var f *fetch.Fetcher
	if len(hosts) > 0 {
		var err error
		if f, err = fetch.New(fetch.Options{AllowHosts: hosts}); err != nil {
			fmt.Fprintf(stderr, "describe_image: -fetch-host: %s\n", strings.TrimPrefix(err.Error(), "fetch.New: AllowHosts: "))
			return 2
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With(slog.String("command", "describe_image"))
	s := newServer(f, log)
	limit, err := mcpgo.MaxRequestBytesFor(s)
	if err != nil {
		log.Error("the request limit cannot be computed", slog.String("err", err.Error()))
		return 1
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		stdio := server.NewStdioServer(s)
		stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelError))
		err = stdio.Listen(ctx, mcpgo.LimitLines(stdin, limit), stdout)
	} else {
		err = serveHTTP(ctx, *addr, handler(s, limit), log)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("serving failed", slog.String("err", err.Error()))
		return 1
	}
	return 0
}

// newServer returns the server with its three tools; f fetches the files
// of describe_image_chatgpt (nil: none).
func newServer(f *fetch.Fetcher, log *slog.Logger) *server.MCPServer {
	s := server.NewMCPServer("describe_image", "v0.1.0", server.WithLogger(log))
	if f != nil {
		mcpgo.UseFetcher(s, f)
	}
	out := mcp.WithOutputSchema[describeimage.Description]()
	mcpgo.AddTool(s, mcp.NewTool(describeimage.Tool.Name, mcp.WithDescription(describeimage.Tool.Description), out),
		func(_ context.Context, _ mcp.CallToolRequest, args describeimage.Args) (*mcp.CallToolResult, error) {
			return describe(args.Image), nil
		})
	mcpgo.AddTool(s, mcp.NewTool(describeimage.FileDataTool.Name, mcp.WithDescription(describeimage.FileDataTool.Description), out),
		func(_ context.Context, _ mcp.CallToolRequest, args describeimage.FileDataArgs) (*mcp.CallToolResult, error) {
			return describe(args.Image), nil
		})
	mcpgo.AddTool(s, mcp.NewTool(describeimage.ChatGPTTool.Name, mcp.WithDescription(describeimage.ChatGPTTool.Description), out),
		func(_ context.Context, _ mcp.CallToolRequest, args describeimage.ChatGPTArgs) (*mcp.CallToolResult, error) {
			return describe(args.Image), nil
		})
	return s
}

// describe is the answer for img, a checked image: its description as
// structured content and JSON text, or, when the header cannot be read, an
// isError result that says so, as the go-sdk server answers.
func describe(img runtime.File) *mcp.CallToolResult {
	d, err := describeimage.DescribeFile(img)
	if err != nil {
		return mcp.NewToolResultError(err.Error())
	}
	return mcp.NewToolResultStructuredOnly(d)
}

// handler is the HTTP handler the command serves: mcp-go's streamable
// HTTP server at /mcp, with request bodies held to limit.
func handler(s *server.MCPServer, limit int64) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpgo.LimitBody(server.NewStreamableHTTPServer(s), limit))
	return mux
}

// serveHTTP serves h on addr until ctx is done, then shuts down
// gracefully.
func serveHTTP(ctx context.Context, addr string, h http.Handler, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // a large file over a slow link
		IdleTimeout:       2 * time.Minute,
	}
	log.Info("serving", slog.String("url", "http://"+ln.Addr().String()+"/mcp"))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	<-done
	return nil
}

// hostList is the value of -fetch-host: every host of every use of the
// flag, in order.
type hostList []string

func (l *hostList) String() string { return strings.Join(*l, ",") }

func (l *hostList) Set(v string) error {
	for h := range strings.SplitSeq(v, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return errors.New("empty host name")
		}
		*l = append(*l, h)
	}
	return nil
}
