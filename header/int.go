package header

import "encoding/binary"

// INT is HPCC's in-band telemetry header as fabricsim writes it behind the IB transport
// headers of an HPCC flow's packets (the capture shows it as the first bytes of the IB
// payload): a 2-byte hop count, then INTMaxHops records of 8 bytes, unused ones zero. Each
// record packs, as the HPCC authors' IntHop does (simulation/src/network/utils/int-header.h),
// from the most significant bit: a 3-bit line-rate code (INTRate25G..INTRate400G), the
// timestamp in ns modulo 2^24, the port's transmitted bytes in 128-byte units modulo 2^20, and
// the queue length in 80-byte units (17 bits, saturating). The order of the count and the
// records is fabricsim's own: the authors' header puts the count last.
type INT []byte

// INT header sizes.
const (
	INTMaxHops  = 5
	INTHopSize  = 8
	INTSize     = 2 + INTMaxHops*INTHopSize // 42
	intTimeBits = 24
	intByteBits = 20
	intQlenBits = 17
	intByteUnit = 128
	intQlenUnit = 80
)

// Line-rate codes of an INT record; INTRateOther marks a rate without one.
const (
	INTRate25G = iota
	INTRate50G
	INTRate100G
	INTRate200G
	INTRate400G
	INTRateOther = 7
)

// INTRateCode is the record's code of a line rate in bits/s.
func INTRateCode(bps int64) uint8 {
	switch bps {
	case 25e9:
		return INTRate25G
	case 50e9:
		return INTRate50G
	case 100e9:
		return INTRate100G
	case 200e9:
		return INTRate200G
	case 400e9:
		return INTRate400G
	}
	return INTRateOther
}

// SetHops writes the hop count.
func (b INT) SetHops(n int) { binary.BigEndian.PutUint16(b, uint16(n)) }

// Hops is the hop count.
func (b INT) Hops() int { return int(binary.BigEndian.Uint16(b)) }

// PutHop writes record i: a rate code, the time in ns, the transmitted bytes and the queue
// length in bytes, each reduced to its field as the type's comment says.
func (b INT) PutHop(i int, rate uint8, ns, txBytes, qlen uint64) {
	v := uint64(rate&7)<<(intTimeBits+intByteBits+intQlenBits) |
		(ns&(1<<intTimeBits-1))<<(intByteBits+intQlenBits) |
		(txBytes/intByteUnit&(1<<intByteBits-1))<<intQlenBits |
		min(qlen/intQlenUnit, 1<<intQlenBits-1)
	binary.BigEndian.PutUint64(b[2+i*INTHopSize:], v)
}

// Hop reads record i back: the rate code, the time in ns modulo 2^24, the transmitted bytes
// (a multiple of 128, modulo 2^27) and the queue length (a multiple of 80).
func (b INT) Hop(i int) (rate uint8, ns, txBytes, qlen uint64) {
	v := binary.BigEndian.Uint64(b[2+i*INTHopSize:])
	return uint8(v >> (intTimeBits + intByteBits + intQlenBits)),
		v >> (intByteBits + intQlenBits) & (1<<intTimeBits - 1),
		(v >> intQlenBits & (1<<intByteBits - 1)) * intByteUnit,
		(v & (1<<intQlenBits - 1)) * intQlenUnit
}
