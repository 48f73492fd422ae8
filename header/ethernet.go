package header

import "encoding/binary"

// Ethernet framing (IEEE 802.3 clause 3) and the 802.1Q tag (IEEE 802.1Q section 9).
const (
	// EthernetSize is the untagged header: destination, source, EtherType.
	EthernetSize = 14
	// VLANTagSize is an 802.1Q tag: TPID and TCI.
	VLANTagSize = 4
	// EtherTypeVLAN is the 802.1Q tag protocol identifier.
	EtherTypeVLAN = 0x8100
	// pcpShift places the priority code point in the top 3 bits of the TCI.
	pcpShift = 13
)

// Ethernet is an Ethernet II header.
type Ethernet []byte

// Destination is the destination MAC address.
func (b Ethernet) Destination() [6]byte { return [6]byte(b[0:6]) }

// Source is the source MAC address.
func (b Ethernet) Source() [6]byte { return [6]byte(b[6:12]) }

// Type is the EtherType (or the TPID of an 802.1Q tag).
func (b Ethernet) Type() uint16 { return binary.BigEndian.Uint16(b[12:]) }

// Encode writes the addresses and the EtherType.
func (b Ethernet) Encode(dst, src [6]byte, etherType uint16) {
	copy(b[0:6], dst[:])
	copy(b[6:12], src[:])
	binary.BigEndian.PutUint16(b[12:], etherType)
}

// VLANTag is the 802.1Q tag that follows the source address: TPID, then the TCI (PCP, DEI,
// VLAN id); the EtherType of the payload follows it.
type VLANTag []byte

// Encode writes an 802.1Q tag with priority pcp on VLAN 0 (priority tagging) and the
// EtherType behind it; b must hold 6 bytes.
func (b VLANTag) Encode(pcp uint8, etherType uint16) {
	binary.BigEndian.PutUint16(b[0:], EtherTypeVLAN)
	binary.BigEndian.PutUint16(b[2:], uint16(pcp)<<pcpShift)
	binary.BigEndian.PutUint16(b[4:], etherType)
}

// PCP is the priority code point.
func (b VLANTag) PCP() uint8 { return uint8(binary.BigEndian.Uint16(b[2:]) >> pcpShift) }
