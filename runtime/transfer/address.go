package transfer

// Callers without auth and without a session (protocol 2026-07-28 over
// HTTP, where every request is a session of its own) are all the one
// owner "": nothing in a request tells two of them apart but the address
// it comes from. The bounds that would otherwise hold them all together,
// or none of them, count them by that address: uploads in progress
// (admission.go), upload pages waiting (pages.go) and stored bytes
// (the quota, ingest.go). Anonymous sessions (2025-11-25 over HTTP), each
// an owner of its own that costs nothing to open, count against their
// address too. The upload endpoint reads the address from its
// own request; a tools/call or files/authorizeUpload learns it from the
// context that KeepCallerAddress puts it in, since the go-sdk hands a
// method handler the request's header but not its address.
//
// An IPv6 caller counts by its /64, which one client commonly holds
// whole, and also by its /48, which one party can hold as easily (a
// site's usual assignment, free from some tunnel services): upload pages
// are bounded per /64 and, more widely, per /48; the quota, which the
// store counts by one key per file, and so the uploads in progress of a
// file's owner, per /48.

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// KeepCallerAddress wraps the handler of an MCP endpoint so that the
// transfer layer learns the address each request comes from, which the
// go-sdk does not pass on: callers without auth, without a session
// (protocol 2026-07-28 over HTTP) or with one (2025-11-25), are then
// bounded by address in the upload pages they may have waiting
// ([Options].MaxPagesPerAddress, and MaxPagesPerNetwork for an IPv6 /48)
// and the bytes they may store (Options.Quota per address). Package
// runtime/serve wraps its MCP endpoint with it; a server that mounts its
// own go-sdk handler should too, or its anonymous stateless callers all
// count as one address. The address is r.RemoteAddr: behind a reverse
// proxy every caller has the proxy's, so there authenticate callers.
func KeepCallerAddress(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerAddressKey{}, r.RemoteAddr)))
	})
}

type callerAddressKey struct{}

// callerAddress returns the address KeepCallerAddress put in ctx.
func callerAddress(ctx context.Context) (string, bool) {
	a, ok := ctx.Value(callerAddressKey{}).(string)
	return a, ok
}

// addressKey is the key that callers from the remote address remote
// (host:port, or a host) count against: the host, or, for IPv6, its /64
// network, which a single client commonly holds whole and can draw new
// addresses from at will. It starts with addressKeyPrefix.
func addressKey(remote string) string {
	a, host := parseRemote(remote)
	switch {
	case !a.IsValid():
		return addressKeyPrefix + host
	case a.Is6():
		p, _ := a.Prefix(64)
		return addressKeyPrefix + p.String()
	}
	return addressKeyPrefix + a.String()
}

// networkKey is the key of the IPv6 network, the /48, whose bounds
// callers from remote count against besides their address's: one party
// that holds a /48 holds 65,536 /64s. It starts with networkKeyPrefix;
// it is "" for any other address (an IPv4 address is its own network).
func networkKey(remote string) string {
	a, _ := parseRemote(remote)
	if !a.Is6() {
		return ""
	}
	p, _ := a.Prefix(networkBits)
	return networkKeyPrefix + p.String()
}

// networkBits is the length of the IPv6 prefix that networkKey keeps.
const networkBits = 48

// parseRemote returns the address of remote (host:port, or a host),
// unmapped and without its zone, and its host; the address is the zero
// Addr when the host is none.
func parseRemote(remote string) (netip.Addr, string) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, host
	}
	return a.Unmap().WithZone(""), host
}

// addressKeyPrefix starts the key of an address, and of an IPv6 network;
// the NUL keeps it from any principal an auth layer names, and from a
// session's owner.
const addressKeyPrefix = "\x00address "

// networkKeyPrefix starts the key of an IPv6 network (networkKey). The
// key of the quota a network holds (quotaOwner) starts with it too, so
// that a refusal can name the network, not the address.
const networkKeyPrefix = addressKeyPrefix + "network "

// unknownAddress is the key of callers without auth and without a session
// whose address the transfer layer was not told (an MCP endpoint over
// HTTP not wrapped with KeepCallerAddress): they count as one address.
const unknownAddress = addressKeyPrefix + "unknown"

// quotaOwner is whom the files of owner, authorized in a request whose
// context is ctx, count against in the quota, and so the owner the store
// records: owner; or, for callers without auth (the one owner "" of
// callers without a session, or an anonymous session's owner), their
// address when KeepCallerAddress kept it, an IPv6 address by its /48
// (networkKey): so that an anonymous client does not get a Quota more
// for each session it opens, nor for each /64 of a /48 it holds. The key
// is an address key whose address is a keyed pseudonym
// (token.Keyring.Pseudonym): the store holds no caller's address. File
// URIs stay sealed for owner (one of "" for any such caller that holds
// it, one of a session for that session only; see storedFor), but each
// address holds at most a Quota of files, within the AnonymousQuota of
// all callers without auth. Where the address is not known (stdio's one
// client, an endpoint not wrapped) owner is kept: callers without a
// session are the one owner "", and each session holds a Quota.
func (c *config) quotaOwner(ctx context.Context, owner string) string {
	if owner != "" && !strings.HasPrefix(owner, sessionOwnerPrefix) {
		return owner
	}
	a, ok := callerAddress(ctx)
	if !ok {
		return owner
	}
	if k := networkKey(a); k != "" {
		return networkKeyPrefix + c.Keys.Pseudonym(k)
	}
	return addressKeyPrefix + c.Keys.Pseudonym(addressKey(a))
}

// storedFor reports whether a file the store records as stored's may be
// used under a file URI sealed for owner: stored is owner, or, for a URI
// of callers without auth ("", or an anonymous session's owner), the
// address that authorized it (quotaOwner). That the URI's caller is owner
// is checked with the URI's seal.
func storedFor(stored, owner string) bool {
	return stored == owner || ((owner == "" || strings.HasPrefix(owner, sessionOwnerPrefix)) && isAddressKey(stored))
}

// isAddressKey reports whether key is an address's or an IPv6 network's
// (see addressKey, networkKey, quotaOwner).
func isAddressKey(key string) bool { return strings.HasPrefix(key, addressKeyPrefix) }

// isNetworkKey reports whether key is an IPv6 network's (see networkKey,
// quotaOwner).
func isNetworkKey(key string) bool { return strings.HasPrefix(key, networkKeyPrefix) }
