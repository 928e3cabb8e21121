package fetch

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// hostList is a parsed allow-list.
type hostList []hostEntry

// hostEntry is one pattern of an allow-list: an exact host name or IP
// literal, or the suffix of a "*.example.com" pattern (kept as
// ".example.com"), with the port it names, if any.
type hostEntry struct {
	host   string
	suffix bool
	port   string // decimal without leading zeros; "" when the pattern names none
}

// parseHostList parses the patterns of Options.AllowHosts or
// Options.AllowPrivate; field names the option in errors.
func parseHostList(field string, patterns []string) (hostList, error) {
	var l hostList
	for _, p := range patterns {
		bad := func(why string) (hostList, error) {
			return nil, fmt.Errorf("fetch.New: %s: bad pattern %q (%s)", field, p, why)
		}
		const want = "want a host name, an IP address or *.domain, each with an optional :port"
		host, port, err := splitPattern(strings.ToLower(p))
		if err != nil {
			return bad(err.Error())
		}
		e := hostEntry{port: port}
		if rest, ok := strings.CutPrefix(host, "*."); ok {
			if !validDNSName(rest) {
				return bad(want)
			}
			if !strings.Contains(rest, ".") {
				return nil, fmt.Errorf("fetch.New: %s: pattern %q is too broad (want *.domain with at least two labels)", field, p)
			}
			e.host, e.suffix = "."+rest, true
		} else if a, err := netip.ParseAddr(host); err == nil {
			if a.Zone() != "" {
				return bad("an IP address with a zone")
			}
			e.host = a.String()
		} else if validDNSName(host) {
			e.host = host
		} else {
			return bad(want)
		}
		l = append(l, e)
	}
	return l, nil
}

// splitPattern splits an allow-list pattern into its host and its port
// (canonical, "" for none): "host", "host:port", "[v6]", "[v6]:port", or
// an IPv6 address without brackets (no port).
func splitPattern(p string) (host, port string, err error) {
	switch {
	case strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]"):
		return p[1 : len(p)-1], "", nil
	case strings.HasPrefix(p, "[") || strings.Count(p, ":") == 1:
		h, pt, err := net.SplitHostPort(p)
		if err != nil {
			return "", "", fmt.Errorf("want host:port or [IPv6]:port")
		}
		if pt, err = canonicalPort(pt); err != nil {
			return "", "", err
		}
		return h, pt, nil
	}
	return p, "", nil
}

// canonicalPort returns the port text pt as the decimal number it is,
// without leading zeros; 1 to 65535.
func canonicalPort(pt string) (string, error) {
	n, err := strconv.ParseUint(pt, 10, 16)
	if err != nil || n == 0 || pt[0] == '+' {
		return "", fmt.Errorf("port %q is not a number from 1 to 65535", pt)
	}
	return strconv.FormatUint(n, 10), nil
}

// defaultPort returns the port a URL of scheme reaches when it names none.
func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// match reports whether the canonical host h (see canonicalHost), reached
// at port (canonical), is on the list. An entry with a port matches that
// port only; one without matches the ports in bare, or every port when
// bare is nil. A port of "" asks whether h is listed at any port.
func (l hostList) match(h, port string, bare []string) bool {
	_, ipErr := netip.ParseAddr(h)
	for _, e := range l {
		if !e.allowsPort(port, bare) {
			continue
		}
		if e.suffix {
			if ipErr != nil && strings.HasSuffix(h, e.host) { // IP literals match exact entries only
				return true
			}
		} else if e.host == h {
			return true
		}
	}
	return false
}

// allowsPort reports whether e allows port, as match says.
func (e hostEntry) allowsPort(port string, bare []string) bool {
	switch {
	case port == "":
		return true
	case e.port != "":
		return e.port == port
	}
	return bare == nil || slices.Contains(bare, port)
}

// canonicalHost returns the host of a URL (u.Hostname(), no brackets or
// port) in the form the allow-list compares: lower case for a name, the
// canonical text for an IP address. It refuses non-ASCII names (IDNA is
// not decoded: write punycode), IPv6 zones, and anything that is not a
// plain DNS name or IP address.
func canonicalHost(host string) (string, error) {
	if host == "" {
		return "", fmt.Errorf("no host")
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "", fmt.Errorf("host %q is not ASCII (use its punycode form)", host)
		}
	}
	h := strings.ToLower(host)
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("host %q has an IPv6 zone", host)
		}
		return a.String(), nil
	}
	if !validDNSName(h) {
		return "", fmt.Errorf("host %q is not a valid host name", host)
	}
	return h, nil
}

// validDNSName reports whether s is a lower-case LDH host name: labels of
// 1 to 63 letters, digits and hyphens, not starting or ending with a
// hyphen, at most 253 bytes, no trailing dot.
func validDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Check reports whether rawURL passes the URL rules of the package
// documentation ("The URL") for f, without any network activity: an
// absolute https URL (http only with Options.AllowHTTP), no userinfo, and
// a host on Options.AllowHosts. The error wraps [ErrNotAllowed] and names
// the rule; it shows the URL as scheme and host only.
func (f *Fetcher) Check(rawURL string) error {
	u, err := url.Parse(rawURL) // as http.NewRequest does in Fetch
	if err != nil {
		// url.Parse's error quotes the whole URL, query included: drop it.
		return fmt.Errorf("%w: malformed URL", ErrNotAllowed)
	}
	return f.checkURL(u)
}

// checkURL applies the URL rules to u, the URL of a request or of a
// redirect's target.
func (f *Fetcher) checkURL(u *url.URL) error {
	switch {
	case !u.IsAbs() || u.Opaque != "":
		return fmt.Errorf("%w: not an absolute URL", ErrNotAllowed)
	case u.Scheme == "http" && !f.allowHTTP:
		return fmt.Errorf("%w: %s: scheme %q (want https)", ErrNotAllowed, redact(u), u.Scheme)
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("%w: scheme %q (want https)", ErrNotAllowed, u.Scheme)
	case u.User != nil:
		return fmt.Errorf("%w: %s: userinfo in URL", ErrNotAllowed, redact(u))
	}
	h, err := canonicalHost(u.Hostname())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAllowed, err)
	}
	def := defaultPort(u.Scheme)
	port := def
	if u.Port() != "" {
		if port, err = canonicalPort(u.Port()); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrNotAllowed, redact(u), err)
		}
	}
	switch {
	case f.allow.match(h, port, []string{def}):
		return nil
	case f.allow.match(h, "", nil): // listed, at other ports
		return fmt.Errorf("%w: %s: port %s of host %q is not on the allow-list (a host listed without a port allows port %s for %s only; list %q to allow this one)", ErrNotAllowed, redact(u), port, h, def, u.Scheme, net.JoinHostPort(h, port))
	}
	return fmt.Errorf("%w: %s: host %q is not on the allow-list", ErrNotAllowed, redact(u), h)
}

// redact shows u as scheme://host[:port], without path, query or
// fragment, which may carry signatures.
func redact(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}
