package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// onePixelPNG is a valid 1×1 PNG.
const onePixelPNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// exercise initializes c and checks the command's answers: a PNG is
// described, an https: URL refused with the runtime's text.
func exercise(t *testing.T, c *client.Client) {
	t.Helper()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "v1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatal(err)
	}
	callTool := func(image string) *mcp.CallToolResult {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = "describe_image"
		req.Params.Arguments = map[string]any{"image": image}
		res, err := c.CallTool(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := callTool(onePixelPNG)
	b, _ := json.Marshal(res.StructuredContent)
	var d struct {
		Format, MediaType string
		Width, Height     int
		Size              int64
	}
	if err := json.Unmarshal(b, &d); err != nil || res.IsError || d.Format != "png" || d.MediaType != "image/png" || d.Width != 1 || d.Height != 1 || d.Size != 70 {
		t.Errorf("describe_image of a 1×1 PNG: %s (isError %v), want a png of 1×1 pixels and 70 bytes", b, res.IsError)
	}
	res = callTool("https://example.com/cat.png")
	want := `Argument 'image' is not a data: URI: received scheme "https:", only data: URIs are accepted.`
	if text, _ := mcp.AsTextContent(res.Content[0]); !res.IsError || text == nil || text.Text != want {
		t.Errorf("describe_image of an https: URL: %+v, want isError %q", res.Content, want)
	}
}

// TestStdio: the command serves a client on its stdin and stdout, and
// exits 0 when stdin closes.
func TestStdio(t *testing.T) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), nil, toServer, fromServer, io.Discard)
		fromServer.Close()
	}()
	c := client.NewClient(transport.NewIO(toClient, fromClient, nil))
	exercise(t, c)
	fromClient.Close()
	if got := <-code; got != 0 {
		t.Errorf("run = %d after stdin closed, want 0", got)
	}
	c.Close()
}

// TestHTTP: with -http, the command serves mcp-go's streamable HTTP at
// /mcp on the address given, logs its URL, and exits 0 when stopped.
func TestHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, stderr := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"-http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, stderr)
		stderr.Close()
	}()
	lines := bufio.NewScanner(logs)
	url := ""
	for url == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "msg=serving "); ok {
			for f := range strings.FieldsSeq(after) {
				if u, ok := strings.CutPrefix(f, "url="); ok {
					url = u
				}
			}
		}
	}
	if url == "" {
		t.Fatal("the command logged no URL")
	}
	go io.Copy(io.Discard, logs)
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, c)
	c.Close()
	cancel()
	if got := <-code; got != 0 {
		t.Errorf("run = %d after it was stopped, want 0", got)
	}
}

// TestUsage: bad flags and arguments are usage errors, exit code 2, before
// anything is served.
func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"-fetch-host", ","}, "empty host name"},
		{[]string{"-public-url", "ftp://example.com/files/"}, `-public-url "ftp://example.com/files/": want an absolute http or https URL`},
	} {
		var stderr strings.Builder
		if code := run(t.Context(), tt.args, strings.NewReader(""), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
