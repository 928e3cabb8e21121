package transfer_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpfile/mcpfile/internal/mcptest"
	"github.com/mcpfile/mcpfile/runtime/transfer"
)

// serveMCP serves s over streamable HTTP, statelessly (each request a
// session of its own, as protocol 2026-07-28 is served) or with sessions,
// wrapped with transfer.KeepCallerAddress when keep, and returns its URL.
func serveMCP(t *testing.T, s *mcp.Server, stateless, keep bool) string {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	if keep {
		h = testRemoteAddr(transfer.KeepCallerAddress(h))
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// fromAddress is an HTTP client whose requests come from ip (127.0.0.1
// when ""): an IPv4 loopback address, from which it connects; or an IPv6
// address, which the test cannot connect from, named in the header
// remoteAddrHeader that testRemoteAddr takes as the request's address.
func fromAddress(ip string) *http.Client {
	if ip == "" {
		return http.DefaultClient
	}
	if strings.Contains(ip, ":") {
		return &http.Client{Transport: setHeader{remoteAddrHeader, ip}}
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// remoteAddrHeader names the IPv6 address a test request stands for.
const remoteAddrHeader = "X-Test-Remote-Addr"

// testRemoteAddr serves h with the address that a request's
// remoteAddrHeader names as its r.RemoteAddr, as a request from there
// would have it: the test's stand-in for callers on IPv6 networks.
func testRemoteAddr(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ip := r.Header.Get(remoteAddrHeader); ip != "" {
			r = r.Clone(r.Context())
			r.RemoteAddr = net.JoinHostPort(ip, "40000")
		}
		h.ServeHTTP(w, r)
	})
}

// setHeader is a transport that sets one header on each request.
type setHeader struct{ name, value string }

func (s setHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(s.name, s.value)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects a client without elicitation (so an upload page
// comes back as a link) to url on version, from hc.
func connectHTTP(t *testing.T, url string, hc *http.Client, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestUploadPagesPerAnonymousAddress: callers without auth from one
// address hold at most MaxPagesPerAddress upload pages waiting, whether
// every request is a caller of its own (2026-07-28, stateless) or each
// opens a session (2025-11-25); the refusal says so and what to do, and a
// caller from another address still gets a page. Where the MCP handler
// does not tell the transfer layer the address, stateless anonymous
// callers count as one address, and the refusal names the wrapper.
func TestUploadPagesPerAnonymousAddress(t *testing.T) {
	const max = 3
	for _, tc := range []struct {
		name      string
		version   string
		stateless bool
		keep      bool
		want      string // in the refusal
		otherOK   bool   // another address still gets a page
	}{
		{"stateless", "2026-07-28", true, true, "from this address", true},
		{"sessions", "2025-11-25", false, true, "from this address", true},
		{"stateless, address not kept", "2026-07-28", true, false, "transfer.KeepCallerAddress", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pageServer(t, transfer.Options{MaxPagesPerAddress: max}, nil)
			url := serveMCP(t, s, tc.stateless, tc.keep)
			for range max {
				linkOf(t, callLink(t, connectHTTP(t, url, nil, tc.version), map[string]any{}))
			}
			res := callLink(t, connectHTTP(t, url, nil, tc.version), map[string]any{})
			text := mcptest.Text(t, res)
			for _, w := range []string{tc.want, "3 upload pages waiting", "limit per address", "authenticate"} {
				if !res.IsError || !strings.Contains(text, w) {
					t.Errorf("page %d from one address: isError=%v %q, want a refusal saying %q", max+1, res.IsError, text, w)
				}
			}
			res = callLink(t, connectHTTP(t, url, fromAddress("127.0.0.2"), tc.version), map[string]any{})
			if tc.otherOK {
				linkOf(t, res)
			} else if !res.IsError {
				t.Errorf("a page from another address, whose address was not kept: %q, want the same refusal", mcptest.Text(t, res))
			}
		})
	}
}

// TestUploadPageLinkFromAddress: the file of a page an anonymous
// stateless caller asked for, counted against that caller's address,
// still reaches the retry with the page's file URI, from any address.
func TestUploadPageLinkFromAddress(t *testing.T) {
	s := pageServer(t, transfer.Options{}, nil)
	url := serveMCP(t, s, true, true)
	page, uri := linkOf(t, callLink(t, connectHTTP(t, url, nil, "2026-07-28"), map[string]any{}))
	if code, body := uploadThroughPage(t, page, "notes.txt", "text/plain", pageText); code != http.StatusCreated {
		t.Fatalf("upload through the page: %d\n%s", code, body)
	}
	res := callLink(t, connectHTTP(t, url, fromAddress("127.0.0.2"), "2026-07-28"), map[string]any{"file": uri})
	if a := answerOf(t, res); a.SHA256 != digest(pageText) {
		t.Errorf("the retry with the page's file URI: %+v, want the uploaded file", a)
	}
}

// TestUploadPagesPerAnonymousNetwork: an IPv6 caller that holds a /48
// holds 65,536 /64s, each an address of its own: callers without auth
// from one /48 hold at most MaxPagesPerNetwork upload pages waiting,
// whatever /64 they come from, and the refusal says so and what to do;
// a caller from another /48, or from an IPv4 address, still gets a page.
// The zero Options bound a /48 by DefaultMaxPagesPerNetwork, more than
// one /64 may hold and far fewer than MaxPages.
func TestUploadPagesPerAnonymousNetwork(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := pageServer(t, transfer.Options{MaxPagesPerAddress: 2, MaxPagesPerNetwork: 3}, nil)
			url := serveMCP(t, s, version == "2026-07-28", true)
			for i := range 3 {
				linkOf(t, callLink(t, connectHTTP(t, url, fromAddress(fmt.Sprintf("2001:db8:1:%x::1", i)), version), map[string]any{}))
			}
			res := callLink(t, connectHTTP(t, url, fromAddress("2001:db8:1:ffff::1"), version), map[string]any{})
			if !res.IsError {
				t.Fatalf("a fourth page from a new /64 of one /48: %d content blocks, want a refusal", len(res.Content))
			}
			text := mcptest.Text(t, res)
			for _, w := range []string{"from this IPv6 network (a /48", "3 upload pages waiting", "limit per network", "authenticate"} {
				if !res.IsError || !strings.Contains(text, w) {
					t.Errorf("a fourth page from a new /64 of one /48: isError=%v %q, want a refusal saying %q", res.IsError, text, w)
				}
			}
			linkOf(t, callLink(t, connectHTTP(t, url, fromAddress("2001:db8:2::1"), version), map[string]any{}))
			linkOf(t, callLink(t, connectHTTP(t, url, fromAddress("127.0.0.2"), version), map[string]any{}))
		})
	}
	if transfer.DefaultMaxPagesPerNetwork <= transfer.DefaultMaxPagesPerAddress || transfer.DefaultMaxPagesPerNetwork > transfer.DefaultMaxPages/4 {
		t.Errorf("DefaultMaxPagesPerNetwork %d: want more than a /64's %d and at most a quarter of MaxPages %d", transfer.DefaultMaxPagesPerNetwork, transfer.DefaultMaxPagesPerAddress, transfer.DefaultMaxPages)
	}
}
