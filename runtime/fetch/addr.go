package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// blockedRange is a range of addresses a fetch may not dial. When v4At is
// not negative the range embeds an IPv4 address at that byte offset (NAT64,
// 6to4, IPv4-compatible) and is blocked only if that address is.
type blockedRange struct {
	prefix netip.Prefix
	reason string
	v4At   int
}

var blockedRanges = []blockedRange{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network", -1},
	{netip.MustParsePrefix("10.0.0.0/8"), "private", -1},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)", -1},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback", -1},
	{netip.MustParsePrefix("168.63.129.16/32"), "cloud metadata", -1},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local", -1},
	{netip.MustParsePrefix("172.16.0.0/12"), "private", -1},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment", -1},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation", -1},
	{netip.MustParsePrefix("192.168.0.0/16"), "private", -1},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking", -1},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation", -1},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation", -1},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast", -1},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved", -1},

	{netip.MustParsePrefix("::/128"), "unspecified", -1},
	{netip.MustParsePrefix("::1/128"), "loopback", -1},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible", 12},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64", 12},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64", -1},
	{netip.MustParsePrefix("100::/64"), "discard", -1},
	{netip.MustParsePrefix("2001::/32"), "Teredo", -1},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation", -1},
	{netip.MustParsePrefix("2002::/16"), "6to4", 2},
	{netip.MustParsePrefix("fc00::/7"), "private", -1},
	{netip.MustParsePrefix("fe80::/10"), "link-local", -1},
	{netip.MustParsePrefix("fec0::/10"), "site-local", -1},
	{netip.MustParsePrefix("ff00::/8"), "multicast", -1},
}

// blockedReason returns why a may not be dialed ("loopback", "private",
// …), or "" if it may. IPv4-mapped IPv6 addresses are judged as the IPv4
// address they map, and zones are ignored.
func blockedReason(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid"
	}
	a = a.Unmap().WithZone("")
	for _, r := range blockedRanges {
		if !r.prefix.Contains(a) {
			continue
		}
		if r.v4At < 0 {
			return r.reason
		}
		b := a.As16()
		v4 := netip.AddrFrom4([4]byte(b[r.v4At : r.v4At+4]))
		if why := blockedReason(v4); why != "" {
			return r.reason + " form of " + why
		}
	}
	return ""
}

// dial is the Transport's DialContext. addr is the host:port of the URL
// being fetched (the Transport uses no proxy). It resolves the host with
// f.resolver, refuses the connection if any address it resolves to is
// blocked and the host is not on AllowPrivate, and dials the checked
// addresses, in order, until one answers. The dialer's Control function
// checks the address once more at connect time, so the rule holds for the
// address actually dialed whatever the path to it.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portText)
	}
	pt := strconv.FormatUint(port, 10)
	bare := []string{"443"}
	if f.allowHTTP {
		bare = append(bare, "80")
	}
	h, err := canonicalHost(host)
	if err != nil || !f.allow.match(h, pt, bare) {
		// Unreachable through Fetch, which checks every URL first.
		return nil, fmt.Errorf("%w: host %q is not on the allow-list at port %s", ErrNotAllowed, strings.ToLower(host), pt)
	}
	privateOK := f.private.match(h, pt, nil)

	var addrs []netip.Addr
	if a, err := netip.ParseAddr(h); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ips, err := f.resolver.LookupIPAddr(ctx, h)
		if err != nil {
			return nil, err
		}
		for _, ip := range ips {
			a, ok := netip.AddrFromSlice(ip.IP)
			if !ok {
				continue
			}
			addrs = append(addrs, a.Unmap().WithZone(ip.Zone))
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("host %q has no addresses", h)
		}
	}
	if !privateOK {
		for _, a := range addrs {
			if why := blockedReason(a); why != "" {
				return nil, fmt.Errorf("%w: host %q resolves to %s (%s)", ErrPrivateAddress, h, a, why)
			}
		}
	}

	d := net.Dialer{Control: controlFunc(privateOK)}
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// controlFunc returns a net.Dialer Control function that refuses blocked
// addresses unless privateOK.
func controlFunc(privateOK bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if privateOK {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse the dialed address %q", ErrPrivateAddress, address)
		}
		if why := blockedReason(ap.Addr()); why != "" {
			return fmt.Errorf("%w: dialing %s (%s)", ErrPrivateAddress, ap.Addr(), why)
		}
		return nil
	}
}
