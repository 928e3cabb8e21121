package main

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// buildMCPGoExample builds the describe_image server on mark3labs/mcp-go
// (runtime/mcpgo/examples/describe_image, a module of its own) and returns
// the binary's path.
func buildMCPGoExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "describe_image_mcpgo")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "./examples/describe_image")
	cmd.Dir = filepath.Join("..", "..", "runtime", "mcpgo")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the mcp-go example: %v\n%s", err, out)
	}
	return bin
}

// TestMCPGoExample: the describe_image server on mcp-go passes every check
// the go-sdk one passes, over stdio and over streamable HTTP, started as
// its README says, and SEP-2631's upload and download checks, which its
// describe_image_upload and sample_image tools give them to run.
func TestMCPGoExample(t *testing.T) {
	bin := buildMCPGoExample(t)
	t.Run("stdio", func(t *testing.T) {
		code, r, stderr := conformJSON(t, "--", bin)
		wantAllPass(t, "describe_image on mcp-go", code, r, stderr)
		wantTransfersPass(t, r)
	})
	t.Run("HTTP", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cmd := exec.CommandContext(ctx, bin, "-http", "127.0.0.1:0")
		cmd.WaitDelay = 5 * time.Second
		logs, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cancel()
			cmd.Wait()
		}()
		// The server logs the URL it serves once it listens.
		serving := regexp.MustCompile(`msg=serving .*url=(http://\S+)`)
		urls := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(logs)
			for sc.Scan() {
				if m := serving.FindStringSubmatch(sc.Text()); m != nil {
					urls <- m[1]
				}
			}
			close(urls)
		}()
		url, ok := <-urls
		if !ok {
			t.Fatal("the server ended without logging the URL it serves")
		}
		code, r, stderr := conformJSON(t, "-url", url)
		wantAllPass(t, "describe_image on mcp-go", code, r, stderr)
		wantTransfersPass(t, r)
	})
}

// wantTransfersPass: every upload and download check of r passed, but
// upload.uri.recheck, which needs two arguments that take uploads with
// different media types (the example's take the same images).
func wantTransfersPass(t *testing.T, r report) {
	t.Helper()
	n := 0
	for _, c := range r.Checks {
		if (strings.HasPrefix(c.ID, "upload.") || strings.HasPrefix(c.ID, "download.")) && c.ID != "upload.uri.recheck" {
			n++
			if c.Status != "pass" {
				t.Errorf("%s = %s (%s), want pass", c.ID, c.Status, c.Detail)
			}
		}
	}
	if n == 0 {
		t.Error("no upload or download check ran")
	}
}
