package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// env is a getenv of a fixed environment.
func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

const testKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

// TestRunUsage: flags and keys that cannot work are refused with status 2
// and a message that says what to do, before anything listens.
func TestRunUsage(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		key  string
		want string
	}{
		{"stdio", nil, "", "-http is required: uploads travel over HTTP"},
		{"extra arguments", []string{"-http", "127.0.0.1:0", "x"}, "", `unexpected arguments ["x"]`},
		{"bad address", []string{"-http", "8080"}, "", `-http "8080": address 8080: missing port in address`},
		{"every interface without a public URL", []string{"-http", ":0"}, "", "set -public-url"},
		{"public URL not http", []string{"-http", "127.0.0.1:0", "-public-url", "ftp://example.com/files/"}, "", "want an absolute http or https URL"},
		{"public URL with a query", []string{"-http", "127.0.0.1:0", "-public-url", "https://example.com/files/?a=b"}, "", "want no query or fragment"},
		{"key not hex", []string{"-http", "127.0.0.1:0"}, "not hex at all", "token: MCPFILE_TRANSFER_KEY: the key is not hex (14 characters) (want one or more keys separated by commas, the first signing, each [<id>:]<at least 64 hex characters>; make a key with openssl rand -hex 32)"},
		{"key too short", []string{"-http", "127.0.0.1:0"}, "00ff", "token: MCPFILE_TRANSFER_KEY: the key has 2 bytes, want at least 32 (64 hex characters)"},
		{"s3 with a port", []string{"-http", "127.0.0.1:0", "-store", "s3://uploads:9000"}, testKey, "want s3://BUCKET or s3://BUCKET/PREFIX/"},
		{"another URL scheme", []string{"-http", "127.0.0.1:0", "-store", "gs://uploads"}, testKey, "want a directory"},
		{"unknown flag", []string{"-stdio"}, "", "flag provided but not defined: -stdio"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(t.Context(), tt.args, env(keyEnv, tt.key), &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
			}
			if strings.Contains(stderr.String(), "serving") {
				t.Errorf("it served: %q", stderr.String())
			}
		})
	}
}

// start runs the command with -http on a free loopback port and the
// arguments args gives for that address, until the test ends, and returns
// the address and the command's log.
func start(t *testing.T, getenv func(string) string, args func(addr string) []string) (string, *mcptest.LockedBuffer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := new(mcptest.LockedBuffer)
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"-http", addr}, args(addr)...), getenv, stderr) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("run = %d after the context ended; log:\n%s", code, stderr)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, stderr
		}
		select {
		case code := <-done:
			done <- code // for the cleanup
			t.Fatalf("run exited with %d:\n%s", code, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not listening after 10s:\n%s", stderr)
		}
	}
}

// roundTrip authorizes, uploads and analyzes b over the MCP endpoint at
// base, and returns the upload descriptor's URL.
func roundTrip(t *testing.T, base string, b []byte) string {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "main-test", Version: "v1"}, nil)
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	n := int64(len(b))
	sum := sha256.Sum256(b)
	d := transfer.SHA256Digest(sum)
	res, err := mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](t.Context(), cs, transfer.MethodAuthorizeUpload,
		&transfer.AuthorizeUploadParams{Name: "notes.txt", MimeType: "text/plain", Size: &n, Digest: &d})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField(transfer.FormFieldToken, res.Upload.Multipart.Fields[transfer.FormFieldToken])
	fw, _ := mw.CreateFormFile(transfer.FormFieldFile, "notes.txt")
	fw.Write(b)
	mw.Close()
	r, err := http.Post(res.Upload.URL, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.StatusCode, reply)
	}
	text := mcptest.Text(t, mcptest.Call(t, cs, "analyze_document", map[string]any{"document": res.File.URI}))
	if want := "notes.txt: text/plain, " + strconv.FormatInt(n, 10) + " bytes, sha256:" + hex.EncodeToString(sum[:]); !strings.HasPrefix(text, want) {
		t.Errorf("answer %q, want %q…", text, want)
	}
	return res.Upload.URL
}

// TestRunServes runs the command with a key and a store directory: the
// upload lands in the directory, and the tool reads it back.
func TestRunServes(t *testing.T) {
	dir := t.TempDir()
	addr, log := start(t, env(keyEnv, testKey), func(string) []string { return []string{"-store", dir} })
	url := roundTrip(t, "http://"+addr, bytes.Repeat([]byte("a line of text\n"), 100_000))
	if want := "http://" + addr + "/files/upload"; url != want {
		t.Errorf("upload URL %q, want %q", url, want)
	}
	objects, _ := os.ReadDir(filepath.Join(dir, "objects"))
	if len(objects) != 1 {
		t.Errorf("the store directory holds %d objects, want 1", len(objects))
	}
	if s := log.String(); !strings.Contains(s, "url=http://"+addr+"/mcp") || strings.Contains(s, "random key") {
		t.Errorf("log %q", s)
	}
}

// TestRunRandomKey: without MCPFILE_TRANSFER_KEY the command still serves
// uploads, and says what a random key costs.
func TestRunRandomKey(t *testing.T) {
	dir := t.TempDir()
	addr, log := start(t, env(), func(string) []string { return []string{"-store", dir} })
	roundTrip(t, "http://"+addr, []byte("hello\n"))
	if s := log.String(); !strings.Contains(s, "MCPFILE_TRANSFER_KEY is not set: signing with a random key, for development only: tokens and file URIs will not survive a restart of this process, and replicas will not accept each other's") {
		t.Errorf("log %q: want the random key explained", s)
	}
}

// TestRunPublicURL: -public-url sets the upload URL and where the upload
// endpoint is mounted.
func TestRunPublicURL(t *testing.T) {
	dir := t.TempDir()
	addr, _ := start(t, env(keyEnv, testKey), func(addr string) []string {
		return []string{"-public-url", "http://" + addr + "/uploads/v1/", "-store", dir}
	})
	if url := roundTrip(t, "http://"+addr, []byte("hello\n")); url != "http://"+addr+"/uploads/v1/upload" {
		t.Errorf("upload URL %q, want it under -public-url", url)
	}
}
