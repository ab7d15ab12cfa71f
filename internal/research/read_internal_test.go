package research

import (
	"net/netip"
	"testing"
)

// TestAllowed checks the addresses a read may connect to without
// --research-allow-private: public ones only, whatever form they take.
func TestAllowed(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34", true},
		{"2606:2800:220:1:248:1893:25c8:1946", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"::ffff:127.0.0.1", false},
		{"10.1.2.3", false},
		{"192.168.0.1", false},
		{"169.254.169.254", false},
		{"fe80::1", false},
		{"100.64.0.1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},
		{"64:ff9b::7f00:1", false},    // NAT64 for 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 for 169.254.169.254
		{"64:ff9b::5db8:d822", true},  // NAT64 for 93.184.216.34
		{"fc00::1", false},            // unique local
	} {
		if got := allowed(netip.MustParseAddr(tc.addr)); got != tc.ok {
			t.Errorf("allowed(%s) = %v, want %v", tc.addr, got, tc.ok)
		}
	}
}
