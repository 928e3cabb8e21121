package fetch_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpfile/mcpfile/runtime/fetch"
)

// fakeResolver maps host names to addresses, standing in for DNS.
type fakeResolver map[string][]string

func (r fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	addrs, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []net.IPAddr
	for _, a := range addrs {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

var resolver = fakeResolver{
	"files.test":  {"127.0.0.1"},
	"inner.test":  {"127.0.0.1"},
	"other.test":  {"127.0.0.1"},
	"meta.test":   {"169.254.169.254"},
	"v6.test":     {"::1"},
	"mapped.test": {"::ffff:127.0.0.1"},
	"mixed.test":  {"127.0.0.1", "169.254.169.254"},
}

// server starts a TLS test server running h and returns it with the
// options that reach it as files.test: on the allow-list, at its port, and
// on AllowPrivate, since it listens on 127.0.0.1.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, fetch.Options) {
	t.Helper()
	ts := httptest.NewTLSServer(h)
	t.Cleanup(ts.Close)
	roots := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return ts, fetch.Options{
		AllowHosts:   withPort(ts, "files.test", "inner.test", "meta.test", "v6.test", "mapped.test", "mixed.test"),
		AllowPrivate: []string{"files.test"},
		Resolver:     resolver,
		// The test certificate names example.com; every test host is that
		// server.
		TLSConfig: &tls.Config{RootCAs: roots, ServerName: "example.com"},
	}
}

// withPort returns each of hosts with the port of ts.
func withPort(ts *httptest.Server, hosts ...string) []string {
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	var out []string
	for _, h := range hosts {
		out = append(out, net.JoinHostPort(h, port))
	}
	return out
}

// at returns the URL of ts under the host name host.
func at(ts *httptest.Server, scheme, host, path string) string {
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	return scheme + "://" + host + ":" + port + path
}

func newFetcher(t *testing.T, o fetch.Options) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(f.CloseIdleConnections)
	return f
}

// wantErr checks that err wraps want and leaks neither the secret query
// nor body bytes.
func wantErr(t *testing.T, err, want error) {
	t.Helper()
	t.Logf("err = %v", err)
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	for _, leak := range []string{"SECRET", "BODY"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("err = %q, holds %q", err, leak)
		}
	}
}

func TestFetch(t *testing.T) {
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "test-agent" {
			http.Error(w, "bad agent", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "Text/Plain; charset=UTF-8")
		fmt.Fprint(w, "hello")
	})
	o.UserAgent = "test-agent"
	f := newFetcher(t, o)
	u := at(ts, "https", "FILES.test", "/f?sig=SECRET")
	r, err := f.Fetch(context.Background(), u, 5)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if string(r.Body) != "hello" || r.Size != 5 || r.MediaType != "text/plain" || r.Params["charset"] != "UTF-8" || r.FinalURL != u {
		t.Errorf("Fetch = %+v", r)
	}
}

// TestURLRules covers the refusals made before any network activity: the
// resolver is empty and no server runs.
func TestURLRules(t *testing.T) {
	f := newFetcher(t, fetch.Options{
		AllowHosts: []string{"files.test", "*.cdn.test", "ports.test:8443", "*.p.test:9000", "10.0.0.1:8080", "[2001:db8::1]:8443", "2001:db8::2"},
		Resolver:   fakeResolver{},
	})
	for _, u := range []string{
		"https://evil.test/f?sig=SECRET",
		"https://files.test.evil.test/f",
		"https://cdn.test/f",             // *.cdn.test does not match cdn.test
		"http://files.test/f?sig=SECRET", // http without AllowHTTP
		"ftp://files.test/f",
		"https://user:SECRET@files.test/f",
		"https://user@files.test/f",
		"//files.test/f",
		"/f",
		"https://fïles.test/f",
		"https://xn--fles-1sa.test/f", // punycode of the above, not listed
		"https://[::1]/f",
		"https://127.0.0.1/f",
		"https://files.test./f",
		"https://files.test%2F@evil.test/f",
		"https://evil.test\\@files.test/f",
		"https://evil.test#@files.test/f",
		"https://evil.test?@files.test/f",
		"https://%66iles.test/f",
		"::not a url",
		// A host listed without a port allows the scheme's default port
		// only; one listed with a port, that port only.
		"https://files.test:8443/f",
		"https://files.test:80/f",
		"https://files.test:0/f",
		"https://files.test:99999/f",
		"https://a.cdn.test:8443/f",
		"https://ports.test/f",
		"https://ports.test:443/f",
		"https://ports.test:8444/f",
		"https://a.p.test/f",
		"https://10.0.0.1/f",
		"https://10.0.0.1:8081/f",
		"https://[2001:db8::1]/f",
		"https://[2001:db8::2]:8443/f",
	} {
		_, err := f.Fetch(context.Background(), u, 10)
		if !errors.Is(err, fetch.ErrNotAllowed) {
			t.Errorf("Fetch(%q) = %v, want ErrNotAllowed", u, err)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Fetch(%q) = %q, leaks the secret", u, err)
		}
	}
	for _, u := range []string{
		"https://files.test/f", "https://Files.Test:443/f?x=1", "https://a.cdn.test/f", "https://a.b.CDN.test/f",
		"https://ports.test:8443/f", "https://ports.test:08443/f", "https://a.P.test:9000/f", "https://10.0.0.1:8080/",
		"https://[2001:db8::1]:8443/", "https://[2001:db8::2]/",
	} {
		if err := f.Check(u); err != nil {
			t.Errorf("Check(%q) = %v, want nil", u, err)
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, o := range []fetch.Options{
		{},
		{AllowHosts: []string{}},
		{AllowHosts: []string{"*"}},
		{AllowHosts: []string{"*.com"}},
		{AllowHosts: []string{"files.*.test"}},
		{AllowHosts: []string{"https://files.test"}},
		{AllowHosts: []string{"files.test:"}},
		{AllowHosts: []string{"files.test:0"}},
		{AllowHosts: []string{"files.test:65536"}},
		{AllowHosts: []string{"files.test:https"}},
		{AllowHosts: []string{"files.test:+443"}},
		{AllowHosts: []string{"[::1"}},
		{AllowHosts: []string{"[::1]:x"}},
		{AllowHosts: []string{"*.cdn.test:"}},
		{AllowHosts: []string{"fïles.test"}},
		{AllowHosts: []string{""}},
		{AllowHosts: []string{"files.test."}},
		{AllowHosts: []string{"files.test"}, AllowPrivate: []string{"bad host"}},
	} {
		if _, err := fetch.New(o); err == nil {
			t.Errorf("New(%+v) = nil error, want one", o)
		}
	}
}

// TestPortNotListed: a host on the allow-list without a port is fetched
// at the scheme's default port only: another port of it, here a server on
// 127.0.0.1, is refused before anything is dialed, and allowed once that
// port is listed.
func TestPortNotListed(t *testing.T) {
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	o.AllowHosts, o.AllowPrivate = []string{"127.0.0.1"}, []string{"127.0.0.1"}
	_, err := newFetcher(t, o).Fetch(context.Background(), at(ts, "https", "127.0.0.1", "/?sig=SECRET"), 10)
	wantErr(t, err, fetch.ErrNotAllowed)
	if want := `list "127.0.0.1:` + port + `" to allow this one`; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %q, want it to say %s", err, want)
	}

	o.AllowHosts = []string{"127.0.0.1:" + port}
	r, err := newFetcher(t, o).Fetch(context.Background(), at(ts, "https", "127.0.0.1", "/"), 10)
	if err != nil || string(r.Body) != "ok" {
		t.Errorf("Fetch with the port listed = %v, %v; want ok", r, err)
	}
}

func TestHTTP(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain") }))
	t.Cleanup(ts.Close)
	o := fetch.Options{AllowHosts: withPort(ts, "files.test"), AllowPrivate: []string{"files.test"}, Resolver: resolver}
	u := at(ts, "http", "files.test", "/")

	_, err := newFetcher(t, o).Fetch(context.Background(), u, 10)
	wantErr(t, err, fetch.ErrNotAllowed)

	o.AllowHTTP = true
	r, err := newFetcher(t, o).Fetch(context.Background(), u, 10)
	if err != nil || string(r.Body) != "plain" {
		t.Errorf("Fetch with AllowHTTP = %v, %v; want plain", r, err)
	}
}

// TestPrivateAddress checks that names resolving to blocked addresses are
// refused at dial time, and allowed once on AllowPrivate.
func TestPrivateAddress(t *testing.T) {
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	o.AllowHosts = append(o.AllowHosts, withPort(ts, "127.0.0.1")...)
	f := newFetcher(t, o)
	for _, host := range []string{"inner.test", "meta.test", "v6.test", "mapped.test", "mixed.test", "127.0.0.1"} {
		_, err := f.Fetch(context.Background(), at(ts, "https", host, "/?sig=SECRET"), 10)
		if !errors.Is(err, fetch.ErrPrivateAddress) {
			t.Errorf("Fetch via %s = %v, want ErrPrivateAddress", host, err)
		}
	}

	o.AllowPrivate = []string{"inner.test"}
	f = newFetcher(t, o)
	r, err := f.Fetch(context.Background(), at(ts, "https", "inner.test", "/"), 10)
	if err != nil || string(r.Body) != "ok" {
		t.Errorf("Fetch with AllowPrivate = %v, %v; want ok", r, err)
	}
}

func TestRedirects(t *testing.T) {
	var ts *httptest.Server
	var referer string
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, at(ts, "https", "inner.test", "/ok"), http.StatusFound)
		case "/to-other":
			http.Redirect(w, r, at(ts, "https", "other.test", "/ok?sig=SECRET"), http.StatusFound)
		case "/to-meta":
			http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-userinfo":
			http.Redirect(w, r, "https://u:SECRET@files.test/ok", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop?sig=SECRET", http.StatusFound)
		case "/hop":
			http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
		case "/bad-location": // net/http cannot parse it, and quotes it in its error
			w.Header().Set("Location", "https://files.test/a%zz?sig=SECRET")
			w.WriteHeader(http.StatusFound)
		case "/ok":
			referer = r.Header.Get("Referer")
			fmt.Fprint(w, "ok")
		}
	})
	f := newFetcher(t, o)
	for path, want := range map[string]error{
		"/to-private":   fetch.ErrPrivateAddress,
		"/to-other":     fetch.ErrNotAllowed,
		"/to-meta":      fetch.ErrNotAllowed,
		"/to-userinfo":  fetch.ErrNotAllowed,
		"/loop":         fetch.ErrRedirect,
		"/bad-location": fetch.ErrRedirect,
	} {
		_, err := f.Fetch(context.Background(), at(ts, "https", "files.test", path+"?sig=SECRET"), 10)
		t.Run(path, func(t *testing.T) { wantErr(t, err, want) })
		if want == fetch.ErrNotAllowed && !errors.Is(err, fetch.ErrRedirect) {
			t.Errorf("%s: err = %v, want ErrRedirect too", path, err)
		}
	}

	r, err := f.Fetch(context.Background(), at(ts, "https", "files.test", "/hop?sig=SECRET"), 10)
	if err != nil || string(r.Body) != "ok" {
		t.Fatalf("Fetch /hop = %v, %v; want ok", r, err)
	}
	if referer != "" {
		t.Errorf("redirect sent Referer %q", referer)
	}

	o.MaxRedirects = -1
	_, err = newFetcher(t, o).Fetch(context.Background(), at(ts, "https", "files.test", "/hop"), 10)
	wantErr(t, err, fetch.ErrRedirect)
}

func TestRedirectDowngrade(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain") }))
	t.Cleanup(plain.Close)
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, at(plain, "http", "files.test", "/"), http.StatusFound)
	})
	o.AllowHosts = append(o.AllowHosts, withPort(plain, "files.test")...)
	_, err := newFetcher(t, o).Fetch(context.Background(), at(ts, "https", "files.test", "/"), 10)
	wantErr(t, err, fetch.ErrRedirect)
	wantErr(t, err, fetch.ErrNotAllowed)

	o.AllowHTTP = true
	r, err := newFetcher(t, o).Fetch(context.Background(), at(ts, "https", "files.test", "/"), 10)
	if err != nil || string(r.Body) != "plain" {
		t.Errorf("Fetch with AllowHTTP = %v, %v; want plain", r, err)
	}
}

func TestSize(t *testing.T) {
	const limit = 100
	sent := make(chan int, 1)
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared":
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte(strings.Repeat("BODY", 250)))
		case "/exact":
			w.Write([]byte(strings.Repeat("x", limit)))
		case "/chunked":
			// No Content-Length: 16 MiB, far more than the limit and
			// than the socket buffers hold, a piece at a time.
			n := 0
			piece := []byte(strings.Repeat("BODY", 256))
			for i := 0; i < 16<<10; i++ {
				m, err := w.Write(piece)
				n += m
				if err != nil {
					break
				}
				w.(http.Flusher).Flush()
			}
			sent <- n
		}
	})
	f := newFetcher(t, o)

	_, err := f.Fetch(context.Background(), at(ts, "https", "files.test", "/declared"), limit)
	wantErr(t, err, fetch.ErrTooLarge)
	if !strings.Contains(err.Error(), "limit is 100") {
		t.Errorf("err = %q, want the limit named", err)
	}

	r, err := f.Fetch(context.Background(), at(ts, "https", "files.test", "/exact"), limit)
	if err != nil || r.Size != limit {
		t.Errorf("Fetch /exact = %v, %v; want %d bytes", r, err, limit)
	}

	_, err = f.Fetch(context.Background(), at(ts, "https", "files.test", "/chunked"), limit)
	wantErr(t, err, fetch.ErrTooLarge)
	f.CloseIdleConnections()
	if n := <-sent; n >= 16<<20 {
		t.Errorf("server wrote all %d bytes: the client read on past the limit", n)
	}
}

func TestTimeout(t *testing.T) {
	done := make(chan struct{})
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "10")
			w.Write([]byte("BODY"))
			w.(http.Flusher).Flush()
		}
		select { // hang until the client gives up
		case <-r.Context().Done():
		case <-done:
		}
	})
	t.Cleanup(func() { close(done) }) // runs before ts.Close
	o.Timeout = 50 * time.Millisecond
	f := newFetcher(t, o)
	for _, path := range []string{"/headers", "/body"} {
		_, err := f.Fetch(context.Background(), at(ts, "https", "files.test", path+"?sig=SECRET"), 100)
		wantErr(t, err, fetch.ErrTimeout)
		if text := err.Error(); !strings.HasSuffix(text, ": timed out after 50ms") || strings.Count(text, "after") != 1 {
			t.Errorf("%s: err = %q, want it to end \": timed out after 50ms\", the time said once", path, text)
		}
	}

	// A caller's own cancellation is not reported as the fetch's timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Fetch(ctx, at(ts, "https", "files.test", "/headers"), 100)
	if err == nil || errors.Is(err, fetch.ErrTimeout) || !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a canceled context = %v, want context.Canceled", err)
	}
}

func TestStatus(t *testing.T) {
	ts, o := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "BODY of the error page", http.StatusForbidden)
	})
	_, err := newFetcher(t, o).Fetch(context.Background(), at(ts, "https", "files.test", "/f?sig=SECRET"), 100)
	wantErr(t, err, fetch.ErrStatus)
	if !strings.Contains(err.Error(), "403") {
		t.Errorf("err = %q, want the status", err)
	}
}

func TestBadMaxSize(t *testing.T) {
	f := newFetcher(t, fetch.Options{AllowHosts: []string{"files.test"}, Resolver: fakeResolver{}})
	if _, err := f.Fetch(context.Background(), "https://files.test/", 0); err == nil {
		t.Error("Fetch with maxSize 0 = nil error, want one")
	}
}

// TestUnknownHost checks a resolver failure is an error, not a panic or a
// fetch, and names the host without the query.
func TestUnknownHost(t *testing.T) {
	f := newFetcher(t, fetch.Options{AllowHosts: []string{"nowhere.test"}, Resolver: fakeResolver{}})
	_, err := f.Fetch(context.Background(), "https://nowhere.test/?sig=SECRET", 10)
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Fetch = %v, want a DNS error without the query", err)
	}
}

// FuzzCheckURL checks the URL rules never panic and never pass a URL that
// is not https, holds userinfo, or whose host is not on the allow-list.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://files.test/f", "https://a.cdn.test:8443/f?x=1", "http://files.test/",
		"https://u@files.test/", "https://[::1]/", "https://10.0.0.1/", "https://FILES.TEST/",
		"https://files.test%2F@evil/", "https://evil\\@files.test/", "https:files.test", "https:///files.test",
		"https://cdn.test/", "https://xn--n3h.cdn.test/", "https://10.0.0.1:99999/",
	} {
		f.Add(s)
	}
	fetcher, err := fetch.New(fetch.Options{AllowHosts: []string{"files.test", "*.cdn.test", "10.0.0.1"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := fetcher.Check(raw)
		if err != nil {
			if !errors.Is(err, fetch.ErrNotAllowed) {
				t.Fatalf("Check(%q) = %v, want ErrNotAllowed", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("Check(%q) = nil, but url.Parse fails: %v", raw, perr)
		}
		h := strings.ToLower(u.Hostname())
		allowed := h == "files.test" || h == "10.0.0.1" || strings.HasSuffix(h, ".cdn.test")
		if u.Scheme != "https" || u.User != nil || !allowed {
			t.Fatalf("Check(%q) = nil for scheme %q, user %v, host %q", raw, u.Scheme, u.User, h)
		}
		// Every entry is listed without a port: https's default only.
		if p := u.Port(); p != "" {
			if n, err := strconv.ParseUint(p, 10, 16); err != nil || n != 443 {
				t.Fatalf("Check(%q) = nil for port %q", raw, p)
			}
		}
		// What the Transport will dial: the same host.
		if host, _, err := net.SplitHostPort(u.Host); err == nil && strings.ToLower(host) != h {
			t.Fatalf("Check(%q): Host %q dials %q, checked %q", raw, u.Host, host, h)
		}
	})
}
