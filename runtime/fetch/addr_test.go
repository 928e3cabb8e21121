package fetch

import (
	"errors"
	"net/netip"
	"testing"
)

func TestBlockedReason(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":              "loopback",
		"10.1.2.3":               "private",
		"172.31.255.255":         "private",
		"192.168.0.1":            "private",
		"169.254.169.254":        "link-local",
		"100.100.100.200":        "shared (CGNAT)",
		"168.63.129.16":          "cloud metadata",
		"0.0.0.0":                "this-network",
		"0.1.2.3":                "this-network",
		"224.0.0.1":              "multicast",
		"255.255.255.255":        "reserved",
		"::":                     "unspecified",
		"::1":                    "loopback",
		"::ffff:127.0.0.1":       "loopback",
		"::ffff:169.254.169.254": "link-local",
		"::127.0.0.1":            "IPv4-compatible form of loopback",
		"64:ff9b::a9fe:a9fe":     "NAT64 form of link-local",
		"2002:a9fe:a9fe::1":      "6to4 form of link-local",
		"fd00:ec2::254":          "private",
		"fe80::1%eth0":           "link-local",
		"ff02::1":                "multicast",
		"2001:0:4136:e378::1":    "Teredo",
		"93.184.216.34":          "",
		"8.8.8.8":                "",
		"::ffff:8.8.8.8":         "",
		"2606:4700:4700::1111":   "",
		"64:ff9b::808:808":       "",
		"2002:808:808::1":        "",
		"172.32.0.1":             "",
		"100.128.0.1":            "",
	} {
		if got := blockedReason(netip.MustParseAddr(in)); got != want {
			t.Errorf("blockedReason(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestControl checks the connect-time check on its own: it refuses a
// blocked address whatever the resolver said.
func TestControl(t *testing.T) {
	check := controlFunc(false)
	for _, addr := range []string{"127.0.0.1:443", "[::1]:443", "[::ffff:169.254.169.254]:80", "[fe80::1%eth0]:80", "bad"} {
		if err := check("tcp", addr, nil); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("control(%q) = %v, want ErrPrivateAddress", addr, err)
		}
	}
	if err := check("tcp", "93.184.216.34:443", nil); err != nil {
		t.Errorf("control(public) = %v, want nil", err)
	}
	if err := controlFunc(true)("tcp", "127.0.0.1:443", nil); err != nil {
		t.Errorf("control with AllowPrivate = %v, want nil", err)
	}
}
