package topology

import (
	"fmt"
	"net/netip"
)

// IPv4 is an IPv4 address as a 32-bit number, the form the datapath compares.
type IPv4 uint32

// IPv4From converts a netip address (which must be IPv4).
func IPv4From(a netip.Addr) IPv4 {
	b := a.As4()
	return IPv4(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
}

// Addr converts back to a netip address.
func (a IPv4) Addr() netip.Addr {
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
}

func (a IPv4) String() string { return a.Addr().String() }

// Subnet is an IPv4 prefix.
type Subnet struct {
	Base IPv4
	Bits int
}

// SubnetFrom converts a netip prefix (which must be IPv4).
func SubnetFrom(p netip.Prefix) Subnet {
	p = p.Masked()
	return Subnet{Base: IPv4From(p.Addr()), Bits: p.Bits()}
}

func (s Subnet) mask() IPv4 {
	if s.Bits == 0 {
		return 0
	}
	return IPv4(^uint32(0) << (32 - s.Bits))
}

// Contains reports whether a lies in s.
func (s Subnet) Contains(a IPv4) bool { return a&s.mask() == s.Base }

// Host returns the i-th address of s (i from 1).
func (s Subnet) Host(i int) (IPv4, error) {
	size := uint64(1) << (32 - s.Bits)
	if uint64(i) >= size-1 {
		return 0, fmt.Errorf("subnet %v has no room for host %d", s, i)
	}
	return s.Base + IPv4(i), nil
}

func (s Subnet) String() string { return fmt.Sprintf("%v/%d", s.Base, s.Bits) }
