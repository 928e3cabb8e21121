// Command analyze_document is an MCP server whose files travel out of band,
// as SEP-2631 uploads and downloads: its analyze_document tool takes a PDF
// or text file of up to 1 GiB that the client uploads
// (files/authorizeUpload, then a multipart POST beside the MCP connection),
// read_text a text file of up to 5 MiB, inline or uploaded,
// export_report returns a text file of up to 256 MiB that the client
// downloads (files/authorizeDownload, then a GET), and import_archive asks
// the person using the client for a file of up to 2 GiB through an upload
// page in their browser (a URL-mode elicitation, or a link the model passes
// on, for a client without one). It serves streamable
// HTTP only: MCP at /mcp, uploads, downloads and upload pages under
// -public-url.
//
//	go run ./examples/analyze_document -http 127.0.0.1:8080
//	MCPFILE_TRANSFER_KEY=$(openssl rand -hex 32) go run ./examples/analyze_document -http 127.0.0.1:8080 -store ./uploads
//
// -http host:port is the address to listen on (required: uploads need HTTP).
//
// -public-url is the URL at which clients reach the transfer endpoints'
// directory; uploads go to it + "upload", downloads are GETs of it +
// "download/<token>", upload pages are at it + "page/<token>" (opened in
// the person's browser, which must reach it too), and it is mounted on
// this server at the URL's path.
// It defaults to http://<the -http address>/files/, which suits a client on
// the same machine; behind a TLS proxy, set it to the proxy's https URL
// (the proxy must forward paths unchanged).
//
// -store is where uploaded files and exported reports go: a directory, or
// s3://BUCKET (or s3://BUCKET/PREFIX/), a bucket of AWS S3 or of an
// S3-compatible server (MinIO, R2, Ceph, versitygw), configured by the AWS
// SDK's environment variables: AWS_ENDPOINT_URL for a server other than
// AWS (whose bucket is then addressed path-style), AWS_REGION, and
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or a profile, SSO, an
// instance role…). Either is swept of expired files every 10 minutes.
// Clients upload straight to the bucket (presigned PUTs). By default a
// directory under the system's temporary directory. Replicas that share
// the store, the key and -public-url serve the same clients.
//
//	MCPFILE_TRANSFER_KEY=… AWS_ENDPOINT_URL=http://127.0.0.1:7070 AWS_REGION=us-east-1 \
//	AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… \
//	go run ./examples/analyze_document -http 127.0.0.1:8080 -store s3://uploads -public-url https://files.example.com/files/
//
// -upload-min-rate and -upload-window hold every upload to a minimum rate,
// in bytes a second, over each window: one that comes slower is cut, and
// its reservation of the caller's quota released (defaults 16384 and 30s,
// transfer.DefaultMinRate and transfer.DefaultRateWindow).
//
// MCPFILE_TRANSFER_KEY is the key that seals upload tokens and file URIs,
// 64 hex characters (32 bytes), or several separated by commas to rotate
// them: the first signs, all verify (token.KeyringFromEnv has the format).
// Every replica serving the same clients needs the same keys. Without it
// the command signs with a random key and logs a warning: its uploads work
// with this one process only and their file URIs stop verifying when it
// restarts.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpfile/mcpfile/examples/analyzedoc"
	"github.com/mcpfile/mcpfile/runtime/serve"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/diskstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}

// keyEnv names the environment variable that holds the signing key.
const keyEnv = "MCPFILE_TRANSFER_KEY"

const name = "analyze_document"

// run serves until ctx is done and returns the exit code: 0 when it was
// stopped, 1 when serving failed, 2 for bad flags or a bad key.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("http", "", "serve streamable HTTP on `host:port`, such as 127.0.0.1:8080 (required)")
	storeFlag := flags.String("store", "", "keep uploaded files in `dir` or s3://BUCKET[/PREFIX/] (default: a directory under the system's temporary directory)")
	publicURL := flags.String("public-url", "", "the `URL` clients upload under (default: http://<-http address>/files/)")
	minRate := flags.Int64("upload-min-rate", transfer.DefaultMinRate, "cut an upload slower than `bytes` a second over a window")
	window := flags.Duration("upload-window", transfer.DefaultRateWindow, "the `duration` over which an upload is held to the minimum rate")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	logger := log.New(stderr, name+": ", 0)
	usage := func(format string, args ...any) int {
		logger.Printf(format, args...)
		return 2
	}
	switch {
	case flags.NArg() > 0:
		return usage("unexpected arguments %q", flags.Args())
	case *minRate <= 0:
		return usage("-upload-min-rate %d: want a positive number of bytes a second", *minRate)
	case *window <= 0:
		return usage("-upload-window %v: want a positive duration, such as 30s", *window)
	case *addr == "":
		return usage("-http is required: uploads travel over HTTP beside the MCP connection, which stdio has no room for; run with -http 127.0.0.1:8080")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usage("-http %q: %v (want host:port, such as 127.0.0.1:8080)", *addr, err)
	}
	if *publicURL == "" {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			return usage("-http %q listens on every interface, so no default upload URL fits every client: set -public-url to the URL clients reach this server's /files/ at", *addr)
		}
	} else if err := checkPublicURL(*publicURL); err != nil {
		return usage("-public-url %q: %v", *publicURL, err)
	}

	st, err := openStore(ctx, *storeFlag, logger)
	if err != nil {
		return usage("%v", err)
	}
	keys, err := token.KeyringFromEnv(keyEnv, &token.EnvOptions{
		RandomIfUnset: true, // an example: it runs without setup
		Logger:        slog.New(slog.NewTextHandler(stderr, nil)),
		Getenv:        getenv,
	})
	if err != nil {
		return usage("%v", err)
	}

	l, err := net.Listen("tcp", *addr)
	if err != nil {
		logger.Print(err)
		return 1
	}
	if *publicURL == "" {
		*publicURL = "http://" + l.Addr().String() + "/files/"
	}
	s, _, err := analyzedoc.NewServer(analyzedoc.Options{
		PublicURL: *publicURL, Keys: keys, Store: st, // records go to serve.Options.Logger, below
		Upload: transfer.UploadOptions{MinRate: *minRate, RateWindow: *window},
	})
	if err != nil {
		l.Close()
		logger.Print(err)
		return 1
	}
	logger.Printf("uploads at %s/%s", strings.TrimSuffix(*publicURL, "/"), transfer.UploadPath)
	if u, _ := url.Parse(*publicURL); u.Scheme == "http" && !isLoopback(u.Hostname()) {
		logger.Printf("warning: uploads go over plain http to %s: upload tokens and file bytes travel in the clear; serve them behind TLS and set -public-url https://…", u.Host)
	}
	o := serve.Options{Path: analyzedoc.MCPPath, Logger: slog.New(slog.NewTextHandler(stderr, nil)).With(slog.String("command", name))}
	if err := serve.Serve(ctx, l, s, o); err != nil && !errors.Is(err, context.Canceled) {
		logger.Print(err)
		return 1
	}
	return 0
}

// openStore returns the store -store names: nil (the transfer package's
// default) for "", else a diskstore in the directory, swept until ctx is
// done.
func openStore(ctx context.Context, flagValue string, logger *log.Logger) (store.Store, error) {
	switch {
	case flagValue == "":
		return nil, nil
	case strings.HasPrefix(flagValue, "s3://"):
		st, err := openS3(ctx, flagValue)
		if err != nil {
			return nil, err
		}
		sweep(ctx, st, flagValue, logger)
		return st, nil
	case strings.Contains(flagValue, "://"):
		return nil, fmt.Errorf("-store %q: want a directory or s3://BUCKET[/PREFIX/]", flagValue)
	}
	ds, err := diskstore.New(flagValue, nil)
	if err != nil {
		return nil, fmt.Errorf("-store %q: %v", flagValue, err)
	}
	sweep(ctx, ds, flagValue, logger)
	return ds, nil
}

// sweep deletes st's expired files every transfer.DefaultSweepInterval
// until ctx is done.
func sweep(ctx context.Context, st store.Store, name string, logger *log.Logger) {
	go store.RunSweeper(ctx, st, transfer.DefaultSweepInterval, func(_ int, err error) {
		if err != nil {
			logger.Printf("sweeping %s: %v", name, err)
		}
	})
}

// checkPublicURL reports what keeps u from being an upload URL.
func checkPublicURL(u string) error {
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return err
	case p.Scheme != "http" && p.Scheme != "https" || p.Host == "":
		return errors.New("want an absolute http or https URL, such as https://files.example.com/files/")
	case p.RawQuery != "" || p.Fragment != "":
		return errors.New("want no query or fragment")
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
