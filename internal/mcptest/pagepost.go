package mcptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StartPagePost opens the upload page at pageURL and starts posting its
// form, as a browser does, with a file of the given name and media type
// whose first bytes are first: the upload is under way when it returns.
// finish(rest) sends the rest and ends the body, or, with rest nil, breaks
// the body off as a closed browser does. post receives the response's
// status (0 when the connection broke).
func StartPagePost(t testing.TB, pageURL, name, mediaType string, first []byte) (post <-chan int, finish func(rest []byte)) {
	t.Helper()
	p, err := OpenUploadPage(nil, pageURL)
	if err != nil || p.Status != http.StatusOK {
		t.Fatalf("GET the page: %d %v\n%s", p.Status, err, p.HTML)
	}
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	mw.WriteField("token", p.Token)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", mediaType)
	mw.CreatePart(h)
	pr, pw := io.Pipe()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		pw.Write(head.Bytes())
		pw.Write(first)
	}()
	req, _ := http.NewRequest(http.MethodPost, p.Action, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", OriginOf(pageURL))
	codes := make(chan int, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			codes <- 0
			return
		}
		res.Body.Close()
		codes <- res.StatusCode
	}()
	return codes, func(rest []byte) {
		<-sent // taken by the transport
		if rest == nil {
			pw.CloseWithError(errors.New("the browser was closed"))
			return
		}
		pw.Write(rest)
		pw.Write([]byte("\r\n--" + mw.Boundary() + "--\r\n"))
		pw.Close()
	}
}

// PostInHalves posts body through the upload page at pageURL in two
// halves, as a slow browser does, while a call waits for the page: the
// second half is sent only once progressed has told of bytes that arrived
// (more than none, less than all), and the post must end 201. out is
// where the waiting call's result comes; a result before the upload is
// done fails the test. It is how a test sees that an upload through one
// replica reaches a call waiting on another.
func PostInHalves(t testing.TB, pageURL, name, mediaType string, body []byte, progressed <-chan float64, out <-chan *mcp.CallToolResult) {
	t.Helper()
	half := len(body) / 2
	post, finish := StartPagePost(t, pageURL, name, mediaType, body[:half])
	select {
	case got := <-progressed:
		if got <= 0 || got >= float64(len(body)) {
			t.Errorf("progress %v while %d of %d bytes were sent", got, half, len(body))
		}
	case res := <-out:
		t.Fatalf("the call ended before the upload did: %s", Text(t, res))
	case <-time.After(time.Minute):
		t.Fatal("no progress reached the call a minute after half the file was sent")
	}
	finish(body[half:])
	if code := <-post; code != http.StatusCreated {
		t.Fatalf("the post answered %d", code)
	}
}
