package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
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

// A drip is an upload whose body comes one byte a second, over a
// connection of its own, until the server answers.
type drip struct {
	conn net.Conn
	res  chan drippedResponse
}

// A drippedResponse is the server's answer to a drip.
type drippedResponse struct {
	status             int
	reason, retryAfter string
}

// openDrip starts the upload d describes of a file of size bytes, and
// sends its first byte.
func openDrip(t *testing.T, d transfer.FileTransferDescriptor, size int64) *drip {
	t.Helper()
	u, err := url.Parse(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	mw.WriteField(transfer.FormFieldToken, d.Multipart.Fields[transfer.FormFieldToken])
	mw.CreateFormFile(transfer.FormFieldFile, "big.txt")
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		u.RequestURI(), u.Host, mw.FormDataContentType(), int64(head.Len())+size+int64(len(tail)))
	conn.Write(head.Bytes())
	dr := &drip{conn: conn, res: make(chan drippedResponse, 1)}
	go func() {
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			dr.res <- drippedResponse{}
			return
		}
		var body struct{ Reason string }
		json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		dr.res <- drippedResponse{res.StatusCode, body.Reason, res.Header.Get("Retry-After")}
	}()
	go func() {
		for {
			if _, err := conn.Write([]byte("a")); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	return dr
}

// connect opens an anonymous MCP session with the server at base, which
// speaks the SDK's latest protocol (stateless: no session tells two
// anonymous clients apart).
func connect(t *testing.T, base string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "main-test", Version: "v1"}, nil)
	if err := mcp.AddSendingCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](c, transfer.MethodAuthorizeUpload); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func authorizeUpload(t *testing.T, cs *mcp.ClientSession, p *transfer.AuthorizeUploadParams) *transfer.AuthorizeUploadResult {
	t.Helper()
	res, err := mcp.CallCustomMethod[*transfer.AuthorizeUploadParams, *transfer.AuthorizeUploadResult](t.Context(), cs, transfer.MethodAuthorizeUpload, p)
	if err != nil {
		t.Fatalf("files/authorizeUpload: %v", err)
	}
	return res
}

// TestRunSlowUploadsLockOutNoOne: while one anonymous client holds as many
// uploads as the server lets it, each sending one byte a second, another
// anonymous client authorizes, uploads and uses a small file. The first
// client's next upload is refused (429 or 503, with Retry-After); its
// uploads are cut (408 tooSlow), which gives their place and their
// reservations back; the second client retries after Retry-After, as a
// client should; and nothing of the cut uploads is left in the store.
// The window is 2 s here, so that the test takes seconds, not minutes.
func TestRunSlowUploadsLockOutNoOne(t *testing.T) {
	dir := t.TempDir()
	addr, log := start(t, env(keyEnv, testKey), func(string) []string {
		return []string{"-store", dir, "-upload-window", "2s"}
	})
	base := "http://" + addr

	// The first client opens slow uploads of 1 GiB until one is refused.
	attacker := connect(t, base)
	const big = 1 << 30
	var held []*drip
	var refused drippedResponse
	for range 50 {
		size := int64(big)
		d := openDrip(t, authorizeUpload(t, attacker, &transfer.AuthorizeUploadParams{Name: "big.txt", MimeType: "text/plain", Size: &size}).Upload, big)
		select {
		case r := <-d.res:
			if r.status == http.StatusRequestTimeout { // an earlier one of the same kind was cut meanwhile: not a refusal
				continue
			}
			refused = r
		case <-time.After(200 * time.Millisecond):
			held = append(held, d)
			continue
		}
		break
	}
	switch {
	case refused.status != http.StatusTooManyRequests && refused.status != http.StatusServiceUnavailable:
		t.Fatalf("slow uploads past the bound: %+v, want 429 or 503; log:\n%s", refused, log)
	case refused.reason != transfer.ReasonTooManyUploads && refused.reason != transfer.ReasonBusy:
		t.Errorf("refusal reason %q, want %q or %q", refused.reason, transfer.ReasonTooManyUploads, transfer.ReasonBusy)
	case refused.retryAfter == "":
		t.Errorf("refusal without Retry-After: %+v", refused)
	}

	// Meanwhile, the second client authorizes, uploads and uses its file.
	victim := connect(t, base)
	file := []byte("a small file, uploaded while another client drips\n")
	n := int64(len(file))
	sum := sha256.Sum256(file)
	digest := transfer.SHA256Digest(sum)
	res := authorizeUpload(t, victim, &transfer.AuthorizeUploadParams{Name: "notes.txt", MimeType: "text/plain", Size: &n, Digest: &digest})
	uploaded := false
	for try := 0; try < 20 && !uploaded; try++ {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField(transfer.FormFieldToken, res.Upload.Multipart.Fields[transfer.FormFieldToken])
		fw, _ := mw.CreateFormFile(transfer.FormFieldFile, "notes.txt")
		fw.Write(file)
		mw.Close()
		r, err := http.Post(res.Upload.URL, mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(r.Body)
		r.Body.Close()
		switch r.StatusCode {
		case http.StatusCreated:
			uploaded = true
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || secs <= 0 {
				t.Fatalf("upload refused with %d %s and Retry-After %q, want a number of seconds", r.StatusCode, reply, r.Header.Get("Retry-After"))
			}
			time.Sleep(time.Duration(secs) * time.Second)
		default:
			t.Fatalf("upload: %d %s", r.StatusCode, reply)
		}
	}
	if !uploaded {
		t.Fatal("the small upload was refused every time")
	}
	text := mcptest.Text(t, mcptest.Call(t, victim, "analyze_document", map[string]any{"document": res.File.URI}))
	if want := "notes.txt: text/plain, " + strconv.FormatInt(n, 10) + " bytes, sha256:" + hex.EncodeToString(sum[:]); !strings.HasPrefix(text, want) {
		t.Errorf("answer %q, want %q…", text, want)
	}

	// Every slow upload was cut, and left nothing behind.
	for i, d := range held {
		if r := <-d.res; r.status != http.StatusRequestTimeout || r.reason != transfer.ReasonTooSlow {
			t.Errorf("slow upload %d ended with %+v, want 408 %s", i, r, transfer.ReasonTooSlow)
		}
	}
	if objects, _ := os.ReadDir(filepath.Join(dir, "objects")); len(objects) != 1 {
		t.Errorf("the store holds %d objects, want the small file only", len(objects))
	}
	if tmp, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(tmp) != 0 {
		t.Errorf("the store holds %d temporary files after the slow uploads were cut, want none", len(tmp))
	}
}
