package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/cmd/mcpfile/internal/conform"
)

const usage = `usage: mcpfile conform [flags] (-url URL | -- COMMAND [ARGS...])
       mcpfile call [flags] (-url URL TOOL [ARG...] | TOOL [ARG...] -- COMMAND [ARGS...])

Commands:
  conform   check a server's handling of file arguments (SEP-2356's x-mcp-file, SEP-2631's uploads)
  call      call a tool with local files, and save the files it returns
`

// run runs the command and returns its exit code: 0 when no MUST check
// failed, 1 when one did, 2 for usage errors and servers that could not
// be checked.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "conform":
		return runConform(args[1:], stdout, stderr)
	case "call":
		return runCall(args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "mcpfile: unknown command %q (want conform or call)\n%s", args[0], usage)
	return 2
}

func runConform(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("mcpfile conform", flag.ContinueOnError)
	flags.SetOutput(stderr)
	url := flags.String("url", "", "check the server at this streamable HTTP `URL` (such as http://127.0.0.1:8080/mcp)")
	asJSON := flags.Bool("json", false, `print {"checks":[…]} as JSON instead of the table`)
	junit := flags.String("junit", "", "also write the report as JUnit XML to `file`")
	big := flags.Bool("big", false, "send files larger than 64 MiB where maxSize calls for them")
	versions := flags.String("protocol", strings.Join(conform.Versions, ","), "the protocol `versions` to check, comma-separated")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcpfile conform [flags] (-url URL | -- COMMAND [ARGS...])\n\nflags:\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	command := flags.Args()
	switch {
	case *url == "" && len(command) == 0:
		fmt.Fprintln(stderr, "mcpfile conform: name the server: -url URL, or -- COMMAND [ARGS...] to start it over stdio")
		return 2
	case *url != "" && len(command) > 0:
		fmt.Fprintf(stderr, "mcpfile conform: both -url and a command %q: name one server\n", command)
		return 2
	}
	o := conform.Options{Big: *big, Versions: strings.Split(*versions, ",")}
	var serverLog lockedBuffer // the stderr of every process started, written while they run
	o.Transport = transport(*url, command, &serverLog)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := conform.Run(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "mcpfile conform: %v\n", err)
		if log := serverLog.String(); log != "" {
			fmt.Fprintf(stderr, "the server's standard error:\n%s", tail(log))
		}
		return 2
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpfile conform: %v\n", err)
		return 2
	}
	if *junit != "" {
		if err := writeFile(*junit, rep.WriteJUnit); err != nil {
			fmt.Fprintf(stderr, "mcpfile conform: -junit: %v\n", err)
			return 2
		}
	}
	if rep.MustFailed() {
		return 1
	}
	return 0
}

// lockedBuffer is a buffer that the copiers of several processes' stderr
// may write while it is read.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// transport returns what makes a new transport to the server: at url over
// streamable HTTP, or else over stdio to a new process of command, whose
// standard error goes to serverLog.
func transport(url string, command []string, serverLog io.Writer) func() mcp.Transport {
	return func() mcp.Transport {
		if url != "" {
			return &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
		}
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Stderr = serverLog
		return &mcp.CommandTransport{Command: cmd}
	}
}

// tail is the last lines of a server's log.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// writeFile writes what write produces to path, through a temporary file
// in the same directory renamed into place.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".mcpfile-junit-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
