package topology

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func ip(s string) IPv4 { return IPv4From(netip.MustParseAddr(s)) }

func subnet(s string) Subnet { return SubnetFrom(netip.MustParsePrefix(s)) }

func TestIPv4RoundTrip(t *testing.T) {
	for _, s := range []string{"0.0.0.0", "10.0.1.2", "192.168.255.1", "255.255.255.255"} {
		a := ip(s)
		require.Equal(t, s, a.String())
		require.Equal(t, netip.MustParseAddr(s), a.Addr())
	}
	require.Equal(t, IPv4(10<<24|1<<8|2), ip("10.0.1.2"))
}

func TestSubnetFromMasks(t *testing.T) {
	s := subnet("10.1.2.3/24")
	require.Equal(t, ip("10.1.2.0"), s.Base)
	require.Equal(t, 24, s.Bits)
	require.Equal(t, "10.1.2.0/24", s.String())
}

func TestSubnetContains(t *testing.T) {
	tests := []struct {
		subnet string
		addr   string
		want   bool
	}{
		{"10.1.2.0/24", "10.1.2.0", true},
		{"10.1.2.0/24", "10.1.2.1", true},
		{"10.1.2.0/24", "10.1.2.255", true},
		{"10.1.2.0/24", "10.1.3.0", false},
		{"10.1.2.0/24", "10.1.1.255", false},
		{"10.1.2.0/24", "11.1.2.1", false},
		{"10.0.0.0/8", "10.255.255.255", true},
		{"10.0.0.0/8", "9.255.255.255", false},
		{"10.0.0.0/16", "10.0.200.7", true},
		{"10.0.0.0/16", "10.1.0.0", false},
		{"10.0.0.4/30", "10.0.0.7", true},
		{"10.0.0.4/30", "10.0.0.8", false},
		{"10.0.0.4/30", "10.0.0.3", false},
		{"10.9.8.7/32", "10.9.8.7", true},
		{"10.9.8.7/32", "10.9.8.6", false},
		{"0.0.0.0/0", "1.2.3.4", true},
		{"0.0.0.0/0", "255.255.255.255", true},
	}
	for _, tc := range tests {
		t.Run(tc.subnet+" "+tc.addr, func(t *testing.T) {
			s := subnet(tc.subnet)
			require.Equal(t, tc.want, s.Contains(ip(tc.addr)))
			// Cross-check with the standard library.
			require.Equal(t, netip.MustParsePrefix(tc.subnet).Contains(netip.MustParseAddr(tc.addr)), s.Contains(ip(tc.addr)))
		})
	}
}

func TestSubnetHost(t *testing.T) {
	tests := []struct {
		subnet  string
		i       int
		want    string
		wantErr bool
	}{
		{"10.0.1.0/24", 1, "10.0.1.1", false},
		{"10.0.1.0/24", 254, "10.0.1.254", false},
		{"10.0.1.0/24", 255, "", true}, // the broadcast address
		{"10.0.1.0/24", 1000, "", true},
		{"10.0.0.0/16", 256, "10.0.1.0", false},
		{"10.0.0.0/16", 65534, "10.0.255.254", false},
		{"10.0.0.0/16", 65535, "", true},
		{"10.0.0.4/30", 1, "10.0.0.5", false},
		{"10.0.0.4/30", 2, "10.0.0.6", false},
		{"10.0.0.4/30", 3, "", true},
		{"10.0.0.4/32", 1, "", true},
		{"10.0.1.0/24", -1, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.subnet, func(t *testing.T) {
			s := subnet(tc.subnet)
			a, err := s.Host(tc.i)
			if tc.wantErr {
				require.Error(t, err)
				require.Contains(t, err.Error(), s.String())
				return
			}
			require.NoError(t, err)
			require.Equal(t, ip(tc.want), a)
			require.True(t, s.Contains(a))
		})
	}
}
