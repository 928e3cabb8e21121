package fetch

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// hostList is a parsed allow-list: exact host names and IP literals, and
// the suffixes of "*.example.com" patterns (kept as ".example.com").
type hostList struct {
	exact    map[string]bool
	suffixes []string
}

// parseHostList parses the patterns of Options.AllowHosts or
// Options.AllowPrivate; field names the option in errors.
func parseHostList(field string, patterns []string) (hostList, error) {
	l := hostList{exact: make(map[string]bool)}
	for _, p := range patterns {
		lp := strings.ToLower(p)
		if rest, ok := strings.CutPrefix(lp, "*."); ok {
			if !validDNSName(rest) {
				return hostList{}, fmt.Errorf("fetch.New: %s: bad pattern %q (want a host name, an IP address or *.domain)", field, p)
			}
			if !strings.Contains(rest, ".") {
				return hostList{}, fmt.Errorf("fetch.New: %s: pattern %q is too broad (want *.domain with at least two labels)", field, p)
			}
			l.suffixes = append(l.suffixes, "."+rest)
			continue
		}
		if a, err := netip.ParseAddr(lp); err == nil {
			if a.Zone() != "" {
				return hostList{}, fmt.Errorf("fetch.New: %s: bad pattern %q (an IP address with a zone)", field, p)
			}
			l.exact[a.String()] = true
			continue
		}
		if !validDNSName(lp) {
			return hostList{}, fmt.Errorf("fetch.New: %s: bad pattern %q (want a host name, an IP address or *.domain)", field, p)
		}
		l.exact[lp] = true
	}
	return l, nil
}

// match reports whether the canonical host h (see canonicalHost) is on
// the list.
func (l hostList) match(h string) bool {
	if l.exact[h] {
		return true
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return false // IP literals match exact entries only
	}
	for _, s := range l.suffixes {
		if strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
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
	if !f.allow.match(h) {
		return fmt.Errorf("%w: %s: host %q is not on the allow-list", ErrNotAllowed, redact(u), h)
	}
	return nil
}

// redact shows u as scheme://host[:port], without path, query or
// fragment, which may carry signatures.
func redact(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}
