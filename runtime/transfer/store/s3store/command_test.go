package s3store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer/client"
)

// The analyze_document example run as the README runs it, from the root
// of the repository, on S3:
//
//	go run ./examples/analyze_document -http 127.0.0.1:8080 -store s3://BUCKET -public-url URL
//
// configured by the AWS SDK's environment variables alone.

// buildAnalyzeDocument builds the command from the repository's root, as
// go run does there (the go.work beside go.mod finds the modules).
func buildAnalyzeDocument(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "analyze_document")
	cmd := exec.Command("go", "build", "-o", bin, "./examples/analyze_document")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/analyze_document in %s: %v\n%s", root, err, out)
	}
	return bin
}

// A replica is one analyze_document process.
type replica struct {
	addr string // host:port
	cmd  *exec.Cmd
	logs *mcptest.LockedBuffer
}

// startReplica runs bin with args and env (added to an environment with
// no AWS settings of the machine's), and waits until it answers on addr.
// It stops the process (SIGTERM) when the test ends.
func startReplica(t *testing.T, bin, addr string, env []string, args ...string) *replica {
	t.Helper()
	r := &replica{addr: addr, logs: new(mcptest.LockedBuffer)}
	r.cmd = exec.Command(bin, append([]string{"-http", addr}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "MCPFILE_") {
			r.cmd.Env = append(r.cmd.Env, kv)
		}
	}
	r.cmd.Env = append(r.cmd.Env, env...)
	r.cmd.Stdout, r.cmd.Stderr = r.logs, r.logs
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	t.Cleanup(func() {
		r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			r.cmd.Process.Kill()
			<-exited
			t.Errorf("replica %s did not stop a minute after SIGTERM\n%s", addr, r.logs)
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get("http://" + addr + "/files/")
		if err == nil {
			res.Body.Close()
			return r
		}
		select {
		case err := <-exited:
			t.Fatalf("replica %s exited: %v\n%s", addr, err, r.logs)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s did not answer within a minute: %v\n%s", addr, err, r.logs)
		}
	}
}

// s3Replicas starts two analyze_document processes on gw's bucket, under a
// prefix of their own, with one key, behind one public URL: a proxy that
// sends each request to the replica target names (0 or 1).
func s3Replicas(t *testing.T, gw *gateway) (replicas [2]*replica, target *atomic.Int32, publicURL string) {
	t.Helper()
	bin := buildAnalyzeDocument(t)
	target = new(atomic.Int32)
	var proxies [2]*httputil.ReverseProxy
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[target.Load()].ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	publicURL = lb.URL + "/files/"
	prefix := "replicas-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")) + fmt.Sprint(time.Now().UnixNano())
	env := []string{
		"AWS_ENDPOINT_URL=" + gw.endpoint,
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=" + accessKey,
		"AWS_SECRET_ACCESS_KEY=" + secretKey,
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"MCPFILE_TRANSFER_KEY=" + strings.Repeat("5a", 32),
	}
	for i := range replicas {
		addr, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = startReplica(t, bin, addr, env, "-store", "s3://"+bucket+"/"+prefix+"/", "-public-url", publicURL)
		u, _ := url.Parse("http://" + addr)
		proxies[i] = httputil.NewSingleHostReverseProxy(u)
	}
	return replicas, target, publicURL
}

// connectReplica connects a go-sdk client with opts to r's MCP endpoint.
func connectReplica(t *testing.T, r *replica, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, opts)
	if err := client.Enable(c); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + r.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestCommandOnS3Replicas: two analyze_document processes, started as the
// README says with -store s3://BUCKET and the AWS SDK's environment
// variables, sharing the bucket, the key and the public URL, serve one
// client as one server: a file uploaded through one (straight to the
// bucket) is read by a call on the other (on 2026-07-28), and a file a person uploads
// through an upload page that the other replica serves reaches the call
// waiting on the first.
func TestCommandOnS3Replicas(t *testing.T) {
	gw := server(t, "http")
	replicas, target, _ := s3Replicas(t, gw)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			a := connectReplica(t, replicas[0], nil, version)
			doc := bytes.Repeat([]byte("a line shared by two replicas\n"), 40000)
			fv, err := client.Upload(t.Context(), a, client.File{Name: "shared.txt", MediaType: "text/plain", Size: int64(len(doc)), Body: bytes.NewReader(doc)}, &client.Options{AllowHTTP: true})
			if err != nil {
				t.Fatalf("upload through replica 1: %v\n%s", err, replicas[0].logs)
			}
			sum := sha256.Sum256(doc)
			// Without auth, a file of a 2025-11-25 caller is its session's,
			// which lives on one replica; a 2026-07-28 caller's URI works
			// on every replica.
			b := a
			if version >= "2026-07-28" {
				b = connectReplica(t, replicas[1], nil, version)
			}
			res := mcptest.Call(t, b, "analyze_document", map[string]any{"document": fv.URI})
			if text := mcptest.Text(t, res); res.IsError || !strings.Contains(text, "sha256:"+hex.EncodeToString(sum[:])) {
				t.Errorf("analyze_document: isError=%v %q, want the file's digest", res.IsError, text)
			}

			// An upload page minted by replica 1, served by replica 2.
			archive := bytes.Repeat([]byte("an archive through the other replica\n"), 3000)
			uploaded := make(chan error, 1)
			target.Store(1)
			pager := connectReplica(t, replicas[0], pageClient(func(e *mcp.ElicitParams) {
				go func() {
					code, page, err := uploadPage(e.URL, "archive.txt", "text/plain", archive)
					if err == nil && code != http.StatusCreated {
						err = fmt.Errorf("the page's post answered %d\n%s", code, page)
					}
					uploaded <- err
				}()
			}), version)
			res = mcptest.Call(t, pager, "import_archive", map[string]any{})
			if err := <-uploaded; err != nil {
				t.Fatal(err)
			}
			asum := sha256.Sum256(archive)
			if text := mcptest.Text(t, res); res.IsError || !strings.Contains(text, "sha256:"+hex.EncodeToString(asum[:])) {
				t.Errorf("import_archive on replica 1, uploaded through replica 2: isError=%v %q, want the file's digest", res.IsError, text)
			}
		})
	}
}

// TestCommandOnS3ReplicasAgreeOnPages: two analyze_document processes on
// one bucket agree on import_archive's upload pages through the markers
// they keep in it: a page declined on one answers 410 on the other, and
// the replica running the call sees the progress of an upload that the
// other takes, and that it broke off.
func TestCommandOnS3ReplicasAgreeOnPages(t *testing.T) {
	gw := server(t, "http")
	replicas, target, _ := s3Replicas(t, gw)
	target.Store(1) // every page request goes to the replica that did not mint the page

	t.Run("declined", func(t *testing.T) {
		shown := make(chan string, 1)
		opts := pageClient(nil)
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			shown <- req.Params.URL
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		cs := connectReplica(t, replicas[0], opts, "2025-11-25")
		res := mcptest.Call(t, cs, "import_archive", map[string]any{})
		if text := mcptest.Text(t, res); !strings.Contains(text, "declined") {
			t.Fatalf("import_archive answered %q, want that the person declined", text)
		}
		pageURL := <-shown
		deadline := time.Now().Add(time.Minute)
		for {
			p, err := mcptest.OpenUploadPage(nil, pageURL)
			if err != nil {
				t.Fatal(err)
			}
			if p.Status == http.StatusGone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page on the other replica answers %d a minute after it was declined, want 410\n%s", p.Status, p.HTML)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	// callWaiting calls import_archive on replica 1 with a progress token;
	// it returns the page shown, the progress reported and the answer.
	callWaiting := func(t *testing.T) (string, <-chan float64, <-chan *mcp.CallToolResult) {
		shown := make(chan string, 1)
		progressed := make(chan float64, 256)
		opts := pageClient(func(e *mcp.ElicitParams) { shown <- e.URL })
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progressed <- r.Params.Progress
		}
		cs := connectReplica(t, replicas[0], opts, "2025-11-25")
		params := &mcp.CallToolParams{Name: "import_archive", Arguments: map[string]any{}}
		params.SetProgressToken("s3")
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(t.Context(), params)
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "call failed: " + err.Error()}}}
			}
			out <- res
		}()
		return <-shown, progressed, out
	}

	t.Run("progress", func(t *testing.T) {
		pageURL, progressed, out := callWaiting(t)
		archive := bytes.Repeat([]byte("bytes that land on the other replica\n"), 30000) // 1.1 MB
		mcptest.PostInHalves(t, pageURL, "far.txt", "text/plain", archive, progressed, out)
		sum := sha256.Sum256(archive)
		if res := <-out; res.IsError || !strings.Contains(mcptest.Text(t, res), "sha256:"+hex.EncodeToString(sum[:])) {
			t.Errorf("import_archive answered isError=%v %q, want the file's digest", res.IsError, mcptest.Text(t, res))
		}
	})

	t.Run("broke off", func(t *testing.T) {
		pageURL, _, out := callWaiting(t)
		post, finish := mcptest.StartPagePost(t, pageURL, "half.txt", "text/plain", bytes.Repeat([]byte("t"), 20000))
		finish(nil)
		<-post
		select {
		case res := <-out:
			if !res.IsError || !strings.Contains(mcptest.Text(t, res), "broke off") {
				t.Errorf("import_archive answered %q, want an error that the upload broke off", mcptest.Text(t, res))
			}
		case <-time.After(time.Minute):
			t.Fatal("the call did not end a minute after its upload broke off on the other replica")
		}
	})
}

// pageClient is the options of a client that declares URL-mode
// elicitation, calls onPage with each, and accepts it.
func pageClient(onPage func(*mcp.ElicitParams)) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if onPage != nil {
				onPage(req.Params)
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}
}

// uploadPage opens an upload page and posts b through its form, as a
// browser does.
func uploadPage(pageURL, name, mediaType string, b []byte) (int, string, error) {
	p, err := mcptest.OpenUploadPage(nil, pageURL)
	if err != nil {
		return 0, "", err
	}
	if p.Status != http.StatusOK || p.Action == "" {
		return p.Status, p.HTML, nil
	}
	return mcptest.PagePost{Action: p.Action, Origin: mcptest.OriginOf(pageURL), Token: p.Token, Name: name, MediaType: mediaType, Body: b}.Post(nil)
}
