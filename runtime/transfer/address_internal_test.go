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
