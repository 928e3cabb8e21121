package transfer

// Callers without auth and without a session (protocol 2026-07-28 over
// HTTP, where every request is a session of its own) are all the one
// owner "": nothing in a request tells two of them apart but the address
// it comes from. The bounds that would otherwise hold them all together,
// or none of them, count them by that address: uploads in progress
// (admission.go), upload pages waiting (pages.go) and stored bytes
// (the quota, ingest.go). The upload endpoint reads the address from its
// own request; a tools/call or files/authorizeUpload learns it from the
// context that KeepCallerAddress puts it in, since the go-sdk hands a
// method handler the request's header but not its address.

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// KeepCallerAddress wraps the handler of an MCP endpoint so that the
// transfer layer learns the address each request comes from, which the
// go-sdk does not pass on: callers without auth and without a session
// (protocol 2026-07-28 over HTTP) are then bounded by address in the
// upload pages they may have waiting ([Options].MaxPagesPerAddress) and
// the bytes they may store (Options.Quota per address). Package
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
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return addressKeyPrefix + host
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return addressKeyPrefix + p.String()
	}
	return addressKeyPrefix + a.String()
}

// addressKeyPrefix starts the key of an address; the NUL keeps it from
// any principal an auth layer names, and from a session's owner.
const addressKeyPrefix = "\x00address "

// unknownAddress is the key of callers without auth and without a session
// whose address the transfer layer was not told (an MCP endpoint over
// HTTP not wrapped with KeepCallerAddress): they count as one address.
const unknownAddress = addressKeyPrefix + "unknown"

// quotaOwner is whom the files of owner, authorized in a request whose
// context is ctx, count against in the quota, and so the owner the store
// records: owner; or, for callers without auth and without a session (the
// one owner ""), their address when KeepCallerAddress kept it, as an
// address key whose address is a keyed pseudonym (token.Keyring.Pseudonym):
// the store holds no caller's address. Their file URIs stay sealed for ""
// (any such caller that holds one may use the file, see storedFor), but
// each address holds at most a Quota of files, within the AnonymousQuota
// of all callers without auth. Where the address is not known (stdio's
// one client, an endpoint not wrapped) they stay the one owner "".
func (c *config) quotaOwner(ctx context.Context, owner string) string {
	if owner != "" {
		return owner
	}
	if a, ok := callerAddress(ctx); ok {
		return addressKeyPrefix + c.Keys.Pseudonym(addressKey(a))
	}
	return ""
}

// storedFor reports whether a file the store records as stored's may be
// used under a file URI sealed for owner: stored is owner, or, for a URI
// of callers without auth and without a session (""), the address that
// authorized it (quotaOwner).
func storedFor(stored, owner string) bool {
	return stored == owner || (owner == "" && isAddressKey(stored))
}

// isAddressKey reports whether key is an address's (see addressKey).
func isAddressKey(key string) bool { return strings.HasPrefix(key, addressKeyPrefix) }
