package main

import (
	"flag"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/examples/internal/cli"
	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/serve"
)

// The test binary doubles as the server: run as a subprocess with this
// variable set, it is the describe_image command.
const serveEnv = "MCPFILE_TEST_SERVE_DESCRIBE_IMAGE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stderr = os.Stderr
	return cmd
}

func callDescribe(t *testing.T, cs *mcp.ClientSession, data []byte) {
	t.Helper()
	res := mcptest.Call(t, cs, "describe_image", map[string]any{"image": mcptest.DataURI("image/png", data)})
	if res.IsError {
		t.Fatal(mcptest.Text(t, res))
	}
	if m := res.StructuredContent.(map[string]any); m["format"] != "png" || m["size"] != float64(len(data)) {
		t.Errorf("structuredContent = %v", m)
	}
}

// TestStdio runs the command over stdio and sends it a 4.8 MB PNG: one
// JSON-RPC line of 6.4 MB.
func TestStdio(t *testing.T) {
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: command()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callDescribe(t, cs, mcptest.PNG(t, 1100, 1100, true))
}

// TestHTTPFlag runs the command with -http and sends it the same PNG.
func TestHTTPFlag(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := command("-http", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("server exit: %v", err)
		}
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	var cs *mcp.ClientSession
	for deadline := time.Now().Add(10 * time.Second); ; {
		cs, err = c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + serve.DefaultPath}, nil)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callDescribe(t, cs, mcptest.PNG(t, 1100, 1100, true))
}

// TestFetchHostFlag: -fetch-host builds a fetcher that allows the hosts
// named, and only them; a bad host is a usage error.
func TestFetchHostFlag(t *testing.T) {
	chatgpt := func(cs *mcp.ClientSession, url string) string {
		t.Helper()
		res := mcptest.Call(t, cs, "describe_image_chatgpt", map[string]any{"image": map[string]any{"download_url": url, "file_id": "file_1"}})
		if !res.IsError {
			t.Fatalf("%s: not refused", url)
		}
		return mcptest.Text(t, res)
	}
	for _, tt := range []struct {
		args      []string
		hosts     string
		url, want string
	}{
		{nil, "", "https://files.example.com/cat.png", "this server does not fetch files from URLs"},
		{[]string{"-fetch-host", "files.example.com, *.cdn.example.com", "-fetch-host", "other.example.com"}, "files.example.com,*.cdn.example.com,other.example.com",
			"https://evil.example.org/cat.png", "this server does not fetch from that download_url's scheme, host or port"},
		{[]string{"-fetch-host", "files.example.com"}, "files.example.com",
			"http://files.example.com/cat.png", "this server does not fetch from that download_url's scheme, host or port"},
	} {
		fs := flag.NewFlagSet("describe_image", flag.ContinueOnError)
		build := flags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if got := fs.Lookup("fetch-host").Value.String(); got != tt.hosts {
			t.Errorf("%q: -fetch-host = %q, want %q", tt.args, got, tt.hosts)
		}
		s, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if got := chatgpt(mcptest.Connect(t, s, nil, ""), tt.url); !strings.Contains(got, tt.want) {
			t.Errorf("%q: %s: %q, want %q", tt.args, tt.url, got, tt.want)
		}
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-fetch-host", "a.example.com,,b.example.com"}, "invalid value"},
		{[]string{"-fetch-host", "*.com"}, `-fetch-host: pattern "*.com" is too broad`},
	} {
		var stderr strings.Builder
		if code := cli.MainFlags("describe_image", tt.args, &stderr, flags, serve.Options{}); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestLogsRefusals: the command logs each refusal of a file argument, to
// stderr, with the tool, argument and rule, and not the file.
func TestLogsRefusals(t *testing.T) {
	var stderr mcptest.LockedBuffer
	cmd := command()
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := mcptest.Call(t, cs, "describe_image", map[string]any{"image": mcptest.DataURI("image/png", []byte("SECRET text, not a picture"))})
	if !res.IsError {
		t.Fatal("text declared image/png: not refused")
	}
	cs.Close()
	got := stderr.String()
	for _, want := range []string{"level=WARN", "msg=refused", "command=describe_image", "op=tools/call", "reason=content", "tool=describe_image", "arg=image", "detected=text/plain"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr %q: want %q", got, want)
		}
	}
	if strings.Contains(got, "SECRET") {
		t.Errorf("stderr %q holds the file", got)
	}
}
