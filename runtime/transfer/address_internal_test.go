package transfer

import "testing"

// TestAddressKey: callers count by host, an IPv4 address however written,
// and an IPv6 address by its /64, whatever its zone: a client that holds
// a /64 cannot step around a bound by drawing new addresses from it.
func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"192.0.2.7:1234", "192.0.2.7:80"},
		{"192.0.2.7:1234", "[::ffff:192.0.2.7]:5"},
		{"[2001:db8:1:2::1]:443", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:1"},
		{"[fe80::1%eth0]:1", "[fe80::2%eth1]:2"},
		{"pipe", "pipe"},
	} {
		if ka, kb := addressKey(tc.a), addressKey(tc.b); ka != kb || !isAddressKey(ka) {
			t.Errorf("addressKey(%q) = %q, addressKey(%q) = %q: want one address key", tc.a, ka, tc.b, kb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"192.0.2.7:1", "192.0.2.8:1"},
		{"[2001:db8:1:2::1]:1", "[2001:db8:1:3::1]:1"},
		{"192.0.2.7:1", "[2001:db8::]:1"},
	} {
		if ka, kb := addressKey(tc.a), addressKey(tc.b); ka == kb {
			t.Errorf("addressKey(%q) = addressKey(%q) = %q: want two", tc.a, tc.b, ka)
		}
	}
	if k := addressKey("192.0.2.7:1"); k == unknownAddress || isAddressKey("") || isAddressKey("\x00session x") {
		t.Errorf("address keys overlap the unknown address, an anonymous owner or a session's")
	}
}

// TestNetworkKey: an IPv6 address counts in its /48 besides its /64, all
// the /64s of a /48 together; an IPv4 address, mapped or not, and a host
// that is no address have no network beyond the address.
func TestNetworkKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"[2001:db8:1::1]:443", "[2001:db8:1:ffff:1:2:3:4]:1"},
		{"[2001:db8:1:2::1]:1", "[2001:db8:1:3::1%eth0]:1"},
	} {
		if ka, kb := networkKey(tc.a), networkKey(tc.b); ka != kb || !isNetworkKey(ka) || !isAddressKey(ka) {
			t.Errorf("networkKey(%q) = %q, networkKey(%q) = %q: want one network key", tc.a, ka, tc.b, kb)
		}
	}
	if ka, kb := networkKey("[2001:db8:1::1]:1"), networkKey("[2001:db8:2::1]:1"); ka == kb {
		t.Errorf("networkKey of two /48s = %q: want two", ka)
	}
	for _, a := range []string{"192.0.2.7:1", "[::ffff:192.0.2.7]:5", "pipe"} {
		if k := networkKey(a); k != "" {
			t.Errorf("networkKey(%q) = %q, want none", a, k)
		}
	}
	if isNetworkKey(addressKey("[2001:db8:1::1]:1")) || isNetworkKey(addressKey("192.0.2.7:1")) {
		t.Errorf("an address key reads as a network's")
	}
}

// TestStoredFor: a file stored for an address (or IPv6 network) is found
// under a file URI of callers without auth, with or without a session;
// never under a principal's, nor one session's file under another's.
func TestStoredFor(t *testing.T) {
	addr, net := addressKeyPrefix+"0123456789ab", networkKeyPrefix+"0123456789ab"
	s1, s2 := sessionOwner("one"), sessionOwner("two")
	for _, tc := range []struct {
		stored, owner string
		want          bool
	}{
		{addr, "", true}, {net, "", true}, {addr, s1, true}, {net, s1, true},
		{s1, s1, true}, {s1, s2, false}, {s1, "", false},
		{"alice", "alice", true}, {addr, "alice", false}, {net, "alice", false}, {"alice", "", false},
	} {
		if got := storedFor(tc.stored, tc.owner); got != tc.want {
			t.Errorf("storedFor(%q, %q) = %v, want %v", tc.stored, tc.owner, got, tc.want)
		}
	}
}

// TestQuotaUseWhose: an upload page refused for the quota tells a person
// not signed in that the files counted are their address's or network's,
// shared, and that signing in gives them a limit of their own.
func TestQuotaUseWhose(t *testing.T) {
	for _, tc := range []struct {
		u            quotaUse
		whose, after string
	}{
		{quotaUse{}, "your files", ""},
		{quotaUse{address: true}, "files from your address, which people who are not signed in share", ", or sign in for a limit of your own"},
		{quotaUse{address: true, network: true}, "files from your network, which people who are not signed in share", ", or sign in for a limit of your own"},
	} {
		if got, after := tc.u.whose(), tc.u.signIn(); got != tc.whose || after != tc.after {
			t.Errorf("%+v: %q, %q; want %q, %q", tc.u, got, after, tc.whose, tc.after)
		}
	}
}
