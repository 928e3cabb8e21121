package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/cmd/mcpfile/internal/call"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

const callUsage = `usage: mcpfile call [flags] (-url URL TOOL [ARG...] | TOOL [ARG...] -- COMMAND [ARGS...])

ARG, and the value of -answer (a field of a form the tool asks for), is one of
  name=@path            a local file for a file argument (repeat it for an array);
                        a FileData object where the argument takes one
  name=@path;type=M     the same, declared as media type M
  name=value            a string, or a number or boolean where the schema says so
  name:=json            a JSON value, as is
`

// runCall runs mcpfile call: 0 when the tool answered, 1 when it answered
// an error or a file could not be sent or saved, 2 for usage errors and
// servers that could not be reached.
func runCall(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("mcpfile call", flag.ContinueOnError)
	flags.SetOutput(stderr)
	serverURL := flags.String("url", "", "call the server at this streamable HTTP `URL` (such as http://127.0.0.1:8080/mcp)")
	outDir := flags.String("o", "", "save the files the tool returns in `dir`, made if missing (downloaded and verified)")
	mode := flags.String("mode", string(client.ModeAuto), "how files travel: auto (inline up to -inline-max, uploaded above, as each argument allows), inline or upload")
	inlineMax := flags.Int64("inline-max", client.DefaultInlineMax, "in auto mode, the largest file in `bytes` sent inline where an upload is allowed too")
	allowHTTP := flags.Bool("allow-http", false, "let uploads and downloads use plain http:// URLs (the default when -url is http:// on a loopback address)")
	maxDownload := flags.Int64("max-download", 1<<30, "the largest file in `bytes` saved when the server does not declare its size")
	asJSON := flags.Bool("json", false, "print the result as JSON instead of its text")
	version := flags.String("protocol", "", "the protocol `version` to ask for (default: the newest the client speaks)")
	var answers []call.Arg
	flags.Func("answer", "answer a form the tool asks for with `name=@path`, name=value or name:=json (repeat for each field)", func(s string) error {
		a, err := call.ParseArg(s)
		if err != nil {
			return err
		}
		answers = append(answers, a)
		return nil
	})
	flags.Usage = func() {
		fmt.Fprintf(stderr, "%s\nflags:\n", callUsage)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	rest := flags.Args()
	var command []string
	if i := slices.Index(rest, "--"); i >= 0 {
		rest, command = rest[:i], rest[i+1:]
	}
	fail := func(format string, args ...any) int { // its text may hold the server's names
		fmt.Fprintf(stderr, "mcpfile call: %s\n", call.Printable(fmt.Sprintf(format, args...)))
		return 2
	}
	switch {
	case *serverURL == "" && len(command) == 0:
		return fail("name the server: -url URL, or -- COMMAND [ARGS...] after the tool's arguments to start it over stdio")
	case *serverURL != "" && len(command) > 0:
		return fail("both -url and a command %q: name one server", command)
	case len(rest) == 0:
		return fail("name the tool to call: mcpfile call [flags] -url URL TOOL [ARG...]")
	case *outDir != "":
		// A missing directory is made (its parent must exist, so that a
		// mistyped path makes no tree of directories).
		fi, err := os.Stat(*outDir)
		if errors.Is(err, fs.ErrNotExist) {
			if err = os.Mkdir(*outDir, 0o755); err == nil {
				fi, err = os.Stat(*outDir)
			}
		}
		switch {
		case err != nil:
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is named already
			}
			return fail("-o %q: %v", *outDir, err)
		case !fi.IsDir():
			return fail("-o %q: not a directory", *outDir)
		}
	}
	toolName := rest[0]
	var cargs []call.Arg
	for _, s := range rest[1:] {
		a, err := call.ParseArg(s)
		if err != nil {
			return fail("%v", err)
		}
		cargs = append(cargs, a)
	}
	if *serverURL != "" && !*allowHTTP {
		if u, err := url.Parse(*serverURL); err == nil && u.Scheme == "http" && loopback(u.Hostname()) {
			*allowHTTP = true
		}
	}
	o := &call.Options{Log: stderr}
	o.Call.Mode, o.Call.InlineMax = client.Mode(*mode), *inlineMax
	o.Call.Upload.AllowHTTP = *allowHTTP
	o.Download.AllowHTTP = *allowHTTP
	o.Download.MaxSize = *maxDownload

	forms := &call.Forms{Answers: answers, Options: o, Input: stdin}
	c, err := call.NewClient(&mcp.Implementation{Name: "mcpfile-call", Version: "v0.1.0"}, forms)
	if err != nil {
		return fail("%v", err)
	}
	var serverLog lockedBuffer
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var opts *mcp.ClientSessionOptions
	if *version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: *version}
	}
	cs, err := c.Connect(ctx, client.WrapTransport(transport(*serverURL, command, &serverLog)(), nil), opts)
	if err != nil {
		fmt.Fprintf(stderr, "mcpfile call: connecting: %s\n", call.Printable(err.Error()))
		if log := serverLog.String(); log != "" {
			fmt.Fprintf(stderr, "the server's standard error:\n%s", tail(log))
		}
		return 2
	}
	defer cs.Close()

	tool, err := client.FindTool(ctx, cs, toolName)
	if err != nil {
		return fail("%s", strings.TrimPrefix(err.Error(), "transfer/client: "))
	}
	arguments, err := call.Arguments(ctx, cs, tool, cargs, o)
	if msg, ok := call.Usage(err); ok {
		return fail("%s", msg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpfile call: %s\n", call.Printable(err.Error()))
		return 1
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName, Arguments: arguments})
	// A server that requires pages to be opened first (-32042) is called
	// again once it says they are done, a few times at most.
	for tries := 0; err != nil && tries < maxPageRounds; tries++ {
		again, ferr := forms.Required(ctx, err)
		if ferr != nil {
			fmt.Fprintf(stderr, "mcpfile call: tools/call: %s\n", call.Printable(ferr.Error()))
			return 1
		}
		if !again {
			break
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName, Arguments: arguments})
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpfile call: tools/call: %s\n", call.Printable(err.Error()))
		return 1
	}
	if err := printResult(stdout, res, *asJSON); err != nil {
		fmt.Fprintf(stderr, "mcpfile call: %v\n", err)
		return 1
	}
	code := 0
	if res.IsError {
		code = 1
	}
	for _, out := range client.Outputs(res) {
		if *outDir == "" {
			fmt.Fprintf(stderr, "file: %s at %s (save it with -o DIR)\n", out, call.Printable(out.File.URI))
			continue
		}
		path, err := client.Save(ctx, cs, out, *outDir, &o.Download)
		if err != nil {
			fmt.Fprintf(stderr, "mcpfile call: saving %s: %s\n", out, call.Printable(err.Error()))
			code = 1
			continue
		}
		fmt.Fprintf(stderr, "saved %s: %s (its size and digest, where declared, verified)\n", path, out)
	}
	return code
}

// maxPageRounds bounds how often a call is made again after the server
// required pages to be opened (-32042).
const maxPageRounds = 3

// printResult prints res: as JSON, or its text blocks (the tool's output,
// as it wrote it), a line for each other block (whose names, URIs and
// media types, which the server chose, are made printable: call.Printable),
// and its structuredContent.
func printResult(w io.Writer, res *mcp.CallToolResult, asJSON bool) error {
	if asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	if res.IsError {
		fmt.Fprintln(w, "the tool answered an error (isError):")
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", call.Printable(c.MIMEType), len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", call.Printable(c.MIMEType), len(c.Data))
		case *mcp.ResourceLink:
			if _, ok := client.FileOf(c); ok {
				fmt.Fprintf(w, "[file %s %s]\n", call.Printable(c.Name), call.Printable(c.URI))
			} else {
				fmt.Fprintf(w, "[resource link %s]\n", call.Printable(c.URI))
			}
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				fmt.Fprintf(w, "[embedded resource %s]\n", call.Printable(c.Resource.URI))
			}
		}
	}
	if res.StructuredContent != nil {
		b, err := json.MarshalIndent(res.StructuredContent, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "structuredContent: %s\n", b)
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
