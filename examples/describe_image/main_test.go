package main

import (
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
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
		cs, err = c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr}, nil)
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
