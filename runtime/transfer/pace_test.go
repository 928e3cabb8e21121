package transfer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/store"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/memstore"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// The end of every upload and the bounds of uploads in progress: a slow
// upload is cut and releases its reservation at once, an upload ends by
// its token's expiry and a grace period, and one owner, or all uploads
// together, cannot take more than their bounds.

// paced is fx's upload handler with o's bounds, served over real
// connections (whose read deadlines cut a stalled body).
func paced(t *testing.T, fx *fixture, o transfer.UploadOptions) *httptest.Server {
	t.Helper()
	o.Store, o.Keys = fx.store, fx.keys
	o.Now = func() time.Time { return now }
	o.ErrorLog = log.New(io.Discard, "", 0)
	srv := httptest.NewServer(transfer.UploadHandler(o))
	t.Cleanup(srv.Close)
	return srv
}

// A slowPut is a PUT whose body comes a byte at a time, every pause, up to
// drip bytes after a first line of text, then ends (short of the declared
// size: an upload that is not cut is refused as incomplete).
type slowPut struct {
	res  chan *http.Response
	stop chan struct{}
}

func startSlowPut(t *testing.T, url, tok string, drip int, pause time.Duration) *slowPut {
	t.Helper()
	pr, pw := io.Pipe()
	sp := &slowPut{res: make(chan *http.Response, 1), stop: make(chan struct{})}
	go func() {
		defer pw.Close()
		if _, err := pw.Write([]byte("hello, slow world\n")); err != nil {
			return
		}
		for range drip {
			select {
			case <-sp.stop:
				return
			case <-time.After(pause):
			}
			if _, err := pw.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	req, _ := http.NewRequest(http.MethodPut, url, pr)
	req.ContentLength = -1 // chunked: the length is not known
	req.Header.Set("Authorization", "Bearer "+tok)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("slow PUT: %v", err)
			close(sp.res)
			return
		}
		sp.res <- res
	}()
	t.Cleanup(func() { sp.end() })
	return sp
}

// end stops the drip.
func (sp *slowPut) end() {
	select {
	case <-sp.stop:
	default:
		close(sp.stop)
	}
}

// wait returns the status, the JSON reason and the Retry-After of the
// response.
func (sp *slowPut) wait(t *testing.T) (status int, reason, retryAfter string) {
	t.Helper()
	res := <-sp.res
	if res == nil {
		t.FailNow()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var body struct{ Error, Reason string }
	if err := json.Unmarshal(b, &body); err != nil {
		t.Errorf("response %d %q: %v", res.StatusCode, b, err)
	}
	return res.StatusCode, body.Reason, res.Header.Get("Retry-After")
}

// bigClaims are the claims of a 1 MiB text upload of owner under id.
func bigClaims(owner, id string) token.Claims {
	c := claims(data)
	c.Size, c.SHA256, c.Owner, c.FileID = 1<<20, nil, owner, id
	return c
}

// held is what owner holds in fx's store.
func held(t *testing.T, fx *fixture, owner string) int64 {
	t.Helper()
	return heldB(t, fx, owner)
}

func heldB(t testing.TB, fx *fixture, owner string) int64 {
	t.Helper()
	n, err := fx.store.(store.Usager).Usage(context.Background(), owner, now)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitUsage waits until owner holds want bytes: the uploads under way
// have been admitted and reserved.
func waitUsage(t *testing.T, fx *fixture, owner string, want int64) {
	t.Helper()
	for range 1000 {
		if held(t, fx, owner) == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("owner %q holds %d bytes, want %d", owner, held(t, fx, owner), want)
}

// TestUploadSlowIsCut: an upload whose bytes come slower than MinRate over
// a RateWindow is refused with 408 tooSlow, its reservation is released at
// once (the quota is whole again as soon as the refusal arrives), and
// nothing is left in the store.
func TestUploadSlowIsCut(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		srv := paced(t, fx, transfer.UploadOptions{MinRate: 1 << 10, RateWindow: 300 * time.Millisecond})
		tok := sign(t, fx.keys, bigClaims("", fileID))
		sp := startSlowPut(t, srv.URL, tok, 100, 50*time.Millisecond)
		status, reason, _ := sp.wait(t)
		if status != http.StatusRequestTimeout || reason != transfer.ReasonTooSlow {
			t.Errorf("slow upload: %d %q, want 408 %q", status, reason, transfer.ReasonTooSlow)
		}
		if n := held(t, fx, ""); n != 0 {
			t.Errorf("the owner holds %d bytes after the cut, want 0: the reservation is released with the refusal", n)
		}
		sp.end()
		wantNothingLeft(t, fx)
	})
}

// TestUploadEndsByTokenExpiry: an upload that keeps its rate still ends
// once its token has expired and ExpiryGrace has passed.
func TestUploadEndsByTokenExpiry(t *testing.T) {
	fx := newFixture(t, "memstore")
	srv := paced(t, fx, transfer.UploadOptions{MinRate: 1, RateWindow: time.Minute, ExpiryGrace: time.Millisecond})
	c := bigClaims("", fileID)
	c.Expires = now.Add(time.Second) // on the handler's clock, which stands still
	sp := startSlowPut(t, srv.URL, sign(t, fx.keys, c), 200, 20*time.Millisecond)
	status, reason, _ := sp.wait(t)
	if status != http.StatusRequestTimeout || reason != transfer.ReasonTooSlow {
		t.Errorf("upload past its token's expiry: %d %q, want 408 %q", status, reason, transfer.ReasonTooSlow)
	}
	if n := held(t, fx, ""); n != 0 {
		t.Errorf("the owner holds %d bytes after the cut, want 0", n)
	}
	sp.end()
	wantNothingLeft(t, fx)
}

// TestUploadsPerOwner: an owner with MaxUploadsPerOwner uploads in
// progress is refused another with 429 tooManyUploads and a Retry-After,
// which leaves nothing in the store; another owner is not.
func TestUploadsPerOwner(t *testing.T) {
	stores(t, func(t *testing.T, fx *fixture) {
		srv := paced(t, fx, transfer.UploadOptions{MaxUploadsPerOwner: 2, RateWindow: time.Minute, MinRate: 1})
		var open []*slowPut
		for i := range 2 {
			open = append(open, startSlowPut(t, srv.URL, sign(t, fx.keys, bigClaims("a", fmt.Sprint("file_held", i))), 1000, 50*time.Millisecond))
		}
		waitUsage(t, fx, "a", 2<<20)
		w := put(sign(t, fx.keys, func() token.Claims { c := claims(data); c.Owner = "a"; return c }()), bytes.NewReader(data), false)
		res, err := http.DefaultClient.Do(toClient(t, srv.URL, w))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), `"reason":"`+transfer.ReasonTooManyUploads+`"`) || res.Header.Get("Retry-After") != "60" {
			t.Errorf("a third upload of one owner: %d %s, Retry-After %q; want 429 %s, Retry-After 60", res.StatusCode, b, res.Header.Get("Retry-After"), transfer.ReasonTooManyUploads)
		}
		if _, err := fx.store.Stat(context.Background(), fileID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Stat of the refused upload: %v, want ErrNotFound", err)
		}
		// Another owner uploads meanwhile.
		other := claims(data)
		other.Owner = "b"
		res, err = http.DefaultClient.Do(toClient(t, srv.URL, put(sign(t, fx.keys, other), bytes.NewReader(data), false)))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Errorf("another owner's upload: %d, want 201", res.StatusCode)
		}
		for _, sp := range open {
			sp.end()
			sp.wait(t)
		}
	})
}

// TestUploadsPerAnonymousAddress: callers without auth or a session share
// the owner "", so the bound of uploads per owner counts them by address:
// one address at the bound is refused another, and another address is
// not.
func TestUploadsPerAnonymousAddress(t *testing.T) {
	fx := newFixture(t, "memstore")
	srv := paced(t, fx, transfer.UploadOptions{MaxUploadsPerOwner: 2, RateWindow: time.Minute, MinRate: 1})
	for i := range 2 { // from 127.0.0.1
		startSlowPut(t, srv.URL, sign(t, fx.keys, bigClaims("", fmt.Sprint("file_held", i))), 1000, 50*time.Millisecond)
	}
	waitUsage(t, fx, "", 2<<20)
	anonymous := func(id string) token.Claims { c := claims(data); c.Owner, c.FileID = "", id; return c }
	res, err := http.DefaultClient.Do(toClient(t, srv.URL, put(sign(t, fx.keys, anonymous("file_same")), bytes.NewReader(data), false)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "from this address") {
		t.Errorf("a third anonymous upload from one address: %d %s; want 429 saying it counts the address", res.StatusCode, b)
	}
	other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	res, err = other.Do(toClient(t, srv.URL, put(sign(t, fx.keys, anonymous("file_other")), bytes.NewReader(data), false)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("an anonymous upload from another address meanwhile: %d %s, want 201", res.StatusCode, b)
	}
}

// TestUploadsServerBounds: past MaxUploads uploads in progress, or past
// MaxUploadMemory of their buffers, an upload is refused with 503 busy and
// a Retry-After.
func TestUploadsServerBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    transfer.UploadOptions
		want string
	}{
		{"uploads", transfer.UploadOptions{MaxUploads: 1}, "uploads in progress"},
		{"memory", transfer.UploadOptions{BufferSize: 64 << 10, MaxUploadMemory: 100 << 10}, "bytes of buffers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, "memstore")
			tc.o.RateWindow, tc.o.MinRate = time.Minute, 1
			srv := paced(t, fx, tc.o)
			sp := startSlowPut(t, srv.URL, sign(t, fx.keys, bigClaims("a", "file_held")), 1000, 50*time.Millisecond)
			waitUsage(t, fx, "a", 1<<20)
			res, err := http.DefaultClient.Do(toClient(t, srv.URL, put(sign(t, fx.keys, bigClaims("b", fileID)), bytes.NewReader(bytes.Repeat([]byte("x"), 1<<20)), false)))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"reason":"`+transfer.ReasonBusy+`"`) || !strings.Contains(string(b), tc.want) || res.Header.Get("Retry-After") == "" {
				t.Errorf("an upload past the server's bound: %d %s, Retry-After %q; want 503 %s saying %q, with Retry-After", res.StatusCode, b, res.Header.Get("Retry-After"), transfer.ReasonBusy, tc.want)
			}
			sp.end()
			sp.wait(t)
			if n := held(t, fx, "a") + held(t, fx, "b"); n != 0 {
				t.Errorf("the owners hold %d bytes after their uploads ended, want 0", n)
			}
		})
	}
}

// toClient makes r, built for a handler, a request to the server at url.
func toClient(t *testing.T, url string, r *http.Request) *http.Request {
	t.Helper()
	c, err := http.NewRequest(r.Method, url, r.Body)
	if err != nil {
		t.Fatal(err)
	}
	c.Header = r.Header
	c.ContentLength = r.ContentLength
	return c
}

// TestUploadPageSlowIsCut: an upload through a page whose bytes stop
// coming is cut within a window, before the head is complete and after:
// the browser gets 408, the waiting tool call an error that says so, and
// the store nothing.
func TestUploadPageSlowIsCut(t *testing.T) {
	for _, sent := range []int{100, 20000} {
		t.Run(fmt.Sprint(sent), func(t *testing.T) {
			st := memstore.New(nil)
			pageURL, out := pendingPage(t, transfer.Options{Store: st, Upload: transfer.UploadOptions{MinRate: 1 << 20, RateWindow: 300 * time.Millisecond}})
			_, f := openPage(t, pageURL)
			u, _ := url.Parse(f.action)
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			mw.WriteField("token", f.token)
			fw, _ := mw.CreateFormFile("file", "slow.txt")
			fw.Write(bytes.Repeat([]byte("t"), sent))
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", u.Path, u.Host, mw.FormDataContentType(), body.Len()+60000)
			conn.Write(body.Bytes()) // and then nothing, the connection open
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusRequestTimeout {
				t.Errorf("slow upload through the page: %d, want 408", res.StatusCode)
			}
			select {
			case r := <-out:
				if !r.IsError || !strings.Contains(mcptest.Text(t, r), "was cut") {
					t.Errorf("result %s, want an error that says the upload was cut", mcptest.Text(t, r))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not end when the upload was cut")
			}
			if n, _ := st.Usage(context.Background(), "", time.Now()); n != 0 {
				t.Errorf("the caller holds %d bytes after the cut, want 0", n)
			}
		})
	}
}
