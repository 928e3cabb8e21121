// Command describe_image is the describe_image example server
// (examples/describe_image) on github.com/mark3labs/mcp-go instead of the
// official go-sdk: the same three tools, the same generated argument types
// and the same answers, registered with runtime/mcpgo, a fourth that
// takes its image as a SEP-2631 upload, and describe_image_page, which
// asks the person for it through an upload page (URL-mode elicitation, or
// a link for a client without it). describe_image takes a data: URI,
// describe_image_filedata an Odeus FileData object, describe_image_chatgpt
// a ChatGPT file object, whose download_url it fetches from the hosts
// -fetch-host allows, and describe_image_upload an image of up to 20 MiB
// that the client uploads out of band (files/authorizeUpload, then a
// multipart POST to the upload endpoint) and names by its file URI. From
// the repository root:
//
//	go run ./runtime/mcpgo/examples/describe_image                       # stdio; uploads at http://127.0.0.1:<a free port>/files/
//	go run ./runtime/mcpgo/examples/describe_image -http 127.0.0.1:8080  # streamable HTTP at http://127.0.0.1:8080/mcp, uploads under /files/
//	go run ./runtime/mcpgo/examples/describe_image -fetch-host files.example.com
//	MCPFILE_TRANSFER_KEY=$(openssl rand -hex 32) go run ./runtime/mcpgo/examples/describe_image -http 127.0.0.1:8080 -store ./uploads
//
// Uploads and their endpoint are served by mcpgo.ServeFiles, with the
// stores, tokens and checks of a go-sdk server's transfer.Register. With
// -http the endpoint is beside MCP on the same server; on stdio it is
// served over HTTP on -files-http (default 127.0.0.1:0, a free port on
// loopback, for a client on the same machine).
//
// -public-url is the URL at which clients reach the transfer endpoints'
// directory (uploads go to it + "upload", downloads are GETs of it +
// "download/<token>"), mounted here at the URL's path. It defaults to
// http://<the address served>/files/; behind a TLS proxy, set it to the
// proxy's https URL.
//
// -store is the directory uploaded files go to, swept of expired ones
// every 10 minutes; by default one under the system's temporary directory.
//
// MCPFILE_TRANSFER_KEY is the key that seals upload tokens and file URIs,
// 64 hex characters (32 bytes), or several separated by commas to rotate
// them (token.KeyringFromEnv has the format). Without it the command signs
// with a random key and logs a warning: its file URIs stop verifying when
// it restarts.
//
// Requests are held to the size the tools need (mcpgo.MaxRequestBytesFor):
// over HTTP a longer body is refused with 413, on stdio a longer line ends
// the session.
package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
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
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
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
	filesAddr := fs.String("files-http", "127.0.0.1:0", "on stdio, serve the upload endpoint over HTTP on `host:port`")
	publicURL := fs.String("public-url", "", "the `URL` clients upload under (default: http://<the address served>/files/)")
	storeDir := fs.String("store", "", "keep uploaded files in `dir` (default: a directory under the system's temporary directory)")
	var hosts hostList
	fs.Var(&hosts, "fetch-host", "let describe_image_chatgpt fetch files from `host` (repeat, or separate with commas; *.example.com for its subdomains; host:port for a port other than 443); without it nothing is fetched")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "describe_image: "+format+"\n", args...)
		return 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected arguments %q", fs.Args())
	}
	if *publicURL != "" {
		if u, err := url.Parse(*publicURL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return usage("-public-url %q: want an absolute http or https URL, such as https://files.example.com/files/", *publicURL)
		}
	}
	var f *fetch.Fetcher
	if len(hosts) > 0 {
		var err error
		if f, err = fetch.New(fetch.Options{AllowHosts: hosts}); err != nil {
			return usage("-fetch-host: %s", strings.TrimPrefix(err.Error(), "fetch.New: AllowHosts: "))
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With(slog.String("command", "describe_image"))
	keys, err := token.KeyringFromEnv(keyEnv, &token.EnvOptions{RandomIfUnset: true, Logger: log}) // an example: it runs without setup
	if err != nil {
		return usage("%v", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var st store.Store // nil: the transfer package's default
	if *storeDir != "" {
		ds, err := diskstore.New(*storeDir, nil)
		if err != nil {
			return usage("-store %q: %v", *storeDir, err)
		}
		go store.RunSweeper(ctx, ds, transfer.DefaultSweepInterval, func(_ int, err error) {
			if err != nil {
				log.Error("sweeping the store", slog.String("err", err.Error()))
			}
		})
		st = ds
	}

	// The listener first: the default public URL names its port.
	listen := *addr
	if listen == "" {
		listen = *filesAddr
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		log.Error("listening failed", slog.String("err", err.Error()))
		return 1
	}
	defer ln.Close()
	if *publicURL == "" {
		*publicURL = "http://" + ln.Addr().String() + "/files/"
	}
	s, files, err := newServer(f, log, transfer.Options{Keys: keys, PublicURL: *publicURL, Store: st, Logger: log})
	if err != nil {
		log.Error("serving files failed", slog.String("err", err.Error()))
		return 1
	}
	limit, err := mcpgo.MaxRequestBytesFor(s)
	if err != nil {
		log.Error("the request limit cannot be computed", slog.String("err", err.Error()))
		return 1
	}
	mux := http.NewServeMux()
	if u, _ := url.Parse(*publicURL); u.Path != "" {
		mux.Handle(strings.TrimSuffix(u.Path, "/")+"/", files.Handler())
	} else {
		mux.Handle("/", files.Handler())
	}
	if *addr == "" {
		// stdio, with the upload endpoint on its own HTTP server.
		go serveHTTP(ctx, ln, mux, log, "/files/")
		in, out := files.Stdio(ctx, mcpgo.LimitLines(stdin, limit), stdout)
		stdio := server.NewStdioServer(s)
		stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelError))
		err = stdio.Listen(ctx, in, out)
	} else {
		mux.Handle("/mcp", mcpgo.LimitBody(files.HTTP(server.NewStreamableHTTPServer(s)), limit))
		err = serveHTTP(ctx, ln, mux, log, "/mcp")
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("serving failed", slog.String("err", err.Error()))
		return 1
	}
	return 0
}

// keyEnv names the environment variable that holds the signing key.
const keyEnv = "MCPFILE_TRANSFER_KEY"

// newServer returns the server with its six tools and the files it
// serves with o; f fetches the files of describe_image_chatgpt (nil: none).
func newServer(f *fetch.Fetcher, log *slog.Logger, o transfer.Options) (*server.MCPServer, *mcpgo.Files, error) {
	s := server.NewMCPServer("describe_image", "v0.1.0", server.WithLogger(log))
	files, err := mcpgo.ServeFiles(s, mcpgo.FilesOptions{Options: o}) // before the tool that takes uploads only
	if err != nil {
		return nil, nil, err
	}
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
	mcpgo.AddTool(s, mcp.NewTool("describe_image_upload", mcp.WithDescription("Describe an image file (PNG, JPEG, GIF or WebP, up to 20 MiB) that you upload first: call files/authorizeUpload, upload it as the answer says, and pass the file URI you got as image."), out),
		func(_ context.Context, _ mcp.CallToolRequest, args UploadArgs) (*mcp.CallToolResult, error) {
			return describe(args.Image), nil
		})
	// describe_image_page asks the person for the image through an upload
	// page: shown by a client with URL-mode elicitation, or handed to the
	// model as a link, whose retry brings the page's file back as image.
	mcpgo.AddTool(s, mcp.NewTool("describe_image_page", mcp.WithDescription("Describe an image (PNG, JPEG, GIF or WebP, up to 20 MiB) that the person chooses in their browser, through an upload page this tool gives them. Call it without arguments; if the result is a link, give it to the person and call again as the result says."), out),
		func(ctx context.Context, req mcp.CallToolRequest, args PageArgs) (*mcp.CallToolResult, error) {
			if args.Image != nil { // the retry of a client that could not show the page
				return describe(*args.Image), nil
			}
			ans, pending, err := mcpgo.ElicitUpload[PageImage](ctx, req, "Please choose the image to describe.",
				&runtime.ElicitOptions[PageImage]{Arg: "image"})
			switch {
			case err != nil:
				return mcp.NewToolResultError(err.Error()), nil
			case pending != nil:
				return pending, nil
			case ans.Action != runtime.Accept:
				return mcp.NewToolResultError("No image was chosen: the person answered " + string(ans.Action) + "."), nil
			}
			return describe(ans.Value.Image), nil
		})
	// sample_image's output schema is the one mcpfilegen generated for
	// Sample, as runtime.AddTool publishes an Out type's on a go-sdk server.
	s.AddTool(mcp.NewTool("sample_image", mcp.WithDescription("Hand back a sample image (a 1×1 PNG) as a file to download."), mcp.WithRawOutputSchema(Sample{}.MCPSchema())), sample)
	return s, files, nil
}

// Sample is the output of sample_image: a sample image to download.
type Sample struct {
	// Image is the file: its URI, which files/authorizeDownload turns into
	// a download, its name, media type, size and SHA-256.
	Image transfer.FileValue `json:"image"`
}

// samplePNG is a 1×1 PNG.
var samplePNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// sample is sample_image: a file output, saved in the server's store for
// the caller, in the result as a file block (which a client without
// files.download gets as an embedded resource) and in the structured
// content.
func sample(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	v, err := transfer.Save(ctx, transfer.Output{Name: "sample.png", MediaType: "image/png", Data: samplePNG})
	if err != nil { // the store failed: the error is logged by the transfer layer's records, not the model's to read
		return mcp.NewToolResultError("the sample could not be saved; try again later"), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcpgo.NewFileContent(v)}, StructuredContent: Sample{Image: v}}, nil
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

// serveHTTP serves h on ln until ctx is done, then shuts down
// gracefully; it logs the URL of path on it.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger, path string) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // a large file over a slow link
		IdleTimeout:       2 * time.Minute,
	}
	log.Info("serving", slog.String("url", "http://"+ln.Addr().String()+path))
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
