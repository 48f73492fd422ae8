package header

import "encoding/binary"

// The Ultra Ethernet transport's packet delivery sublayer (PDS) and semantic sublayer (SES)
// headers, as the UE Specification 1.0.1 lays them out and Wireshark's UET dissector
// (epan/dissectors/packet-uet.c: dissect_pds, dissect_pds_rud_rod_req, dissect_pds_ack,
// dissect_pds_ack_ext_hdr, dissect_pds_nack, dissect_ses_std_req) reads them. Every PDS
// header starts with a 2-byte prologue: type (5 bits), next header or control type (4 bits),
// flags (7 bits).
const (
	// PDSRUDSize is a RUD request's PDS header; SESStandardSize the SES standard request
	// header behind it; PDSAckCCSize a PDS ACK with its CC extension; PDSNackSize a PDS NACK.
	PDSRUDSize      = 12
	SESStandardSize = 44
	PDSAckCCSize    = 32
	PDSNackSize     = 16
	// PDSRUDCCSize is a RUD_CC_REQ's PDS header (a RUD request's and the request CC state:
	// CCC id, credit target); PDSControlSize a PDS control packet's.
	PDSRUDCCSize   = 16
	PDSControlSize = 16

	// PDS types (UET_PDS_TYPE_*).
	PDSTypeRUDRequest = 2
	PDSTypeAckCC      = 8
	PDSTypeNack       = 10
	PDSTypeControl    = 11
	PDSTypeRUDCC      = 13
	// Control packet types, in a control packet's next-header bits (PDS_CTL_TYPE_*).
	PDSControlAckRequest    = 1
	PDSControlCredit        = 7
	PDSControlCreditRequest = 8
	// Next header codes: the SES standard request header follows; none.
	PDSNextSESStandard = 3
	PDSNextNone        = 0
	// Flags: a request's RETX and AR (ACK request); an ACK's or NACK's M (ECN marked) and
	// RETX echo.
	PDSFlagRetx = 0x10
	PDSFlagAR   = 0x08
	PDSFlagM    = 0x20
	// NACK code of a trimmed packet (UET_PDS_NACK_CODE_TRIMMED).
	PDSNackTrimmed = 0x01
	// SES opcode of a write (UET_SES_OPCODE_WRITE) and its SOM/EOM flags.
	SESOpWrite = 0x01
	SESFlagSOM = 0x01
	SESFlagEOM = 0x02
)

func pdsPrologue(b []byte, typ, next, flags uint8) {
	binary.BigEndian.PutUint16(b, uint16(typ)<<11|uint16(next&0xF)<<7|uint16(flags&0x7F))
}

// PDSRUDFields are the fields of a RUD request fabricsim fills in; the PDC identifiers are
// the flow's.
type PDSRUDFields struct {
	PSN        uint32
	PDC        uint16
	Retx, AR   bool
	SOM, EOM   bool
	Length     uint32 // the message's length (SES request length)
	Offset     uint64 // the packet's payload offset in the message (SES buffer offset)
	PayloadLen uint32
	// CreditTarget, with CC, makes the header a RUD_CC_REQ carrying RCCC's credit target
	// (24 bits, in 256-byte units).
	CC           bool
	CreditTarget uint32
}

// EncodeRUD writes a RUD request's PDS header and its SES standard request header (a write)
// into b, which holds at least PDSRUDSize + SESStandardSize bytes.
func EncodeRUD(b []byte, f *PDSRUDFields) {
	var flags uint8
	if f.Retx {
		flags |= PDSFlagRetx
	}
	if f.AR {
		flags |= PDSFlagAR
	}
	typ, size := uint8(PDSTypeRUDRequest), PDSRUDSize
	if f.CC {
		typ, size = PDSTypeRUDCC, PDSRUDCCSize
	}
	pdsPrologue(b, typ, PDSNextSESStandard, flags)
	binary.BigEndian.PutUint16(b[2:], 0) // clear PSN offset: nothing cleared beyond the PSN
	binary.BigEndian.PutUint32(b[4:], f.PSN)
	binary.BigEndian.PutUint16(b[8:], f.PDC)  // SPDCID
	binary.BigEndian.PutUint16(b[10:], f.PDC) // DPDCID
	if f.CC {
		binary.BigEndian.PutUint32(b[12:], f.CreditTarget&0xFFFFFF) // CCC id 0, then the target
	}
	s := b[size:]
	s[0] = SESOpWrite
	var sf uint8
	if f.SOM {
		sf |= SESFlagSOM
	}
	if f.EOM {
		sf |= SESFlagEOM
	}
	s[1] = sf
	binary.BigEndian.PutUint64(s[12:], f.Offset) // buffer offset
	binary.BigEndian.PutUint32(s[32:], f.PayloadLen)
	binary.BigEndian.PutUint32(s[40:], f.Length) // request length
}

// PDSAckFields are a PDS ACK_CC's fields.
type PDSAckFields struct {
	AckPSN, CumPSN, SACKBase uint32
	PDC                      uint16
	Marked, Retx             bool
	SACKBitmap               uint64
	RecvdBytes               uint32
	OOO                      uint16
}

// EncodeAckCC writes a PDS ACK_CC (NSCC CC state) into b, which holds PDSAckCCSize bytes.
func EncodeAckCC(b []byte, f *PDSAckFields) {
	var flags uint8
	if f.Marked {
		flags |= PDSFlagM
	}
	if f.Retx {
		flags |= PDSFlagRetx
	}
	pdsPrologue(b, PDSTypeAckCC, PDSNextNone, flags)
	binary.BigEndian.PutUint16(b[2:], uint16(int16(f.AckPSN-f.CumPSN)))
	binary.BigEndian.PutUint32(b[4:], f.CumPSN)
	binary.BigEndian.PutUint16(b[8:], f.PDC)
	binary.BigEndian.PutUint16(b[10:], f.PDC)
	e := b[12:]
	e[0] = 0 // CC type NSCC
	binary.BigEndian.PutUint16(e[2:], uint16(int16(f.SACKBase-f.CumPSN)))
	binary.BigEndian.PutUint64(e[4:], f.SACKBitmap)
	cc := e[12:]
	binary.BigEndian.PutUint32(cc[2:], f.RecvdBytes&0xFFFFFF) // 24-bit received bytes at 3
	binary.BigEndian.PutUint16(cc[6:], f.OOO)
}

// EncodeControl writes a PDS control packet of type ctl (PDSControlCredit,
// PDSControlCreditRequest) with its PSN and 4-byte payload (a credit, a credit target) into b,
// which holds PDSControlSize bytes.
func EncodeControl(b []byte, ctl uint8, psn uint32, pdc uint16, payload uint32) {
	pdsPrologue(b, PDSTypeControl, ctl, 0)
	binary.BigEndian.PutUint16(b[2:], 0) // probe opaque
	binary.BigEndian.PutUint32(b[4:], psn)
	binary.BigEndian.PutUint16(b[8:], pdc)
	binary.BigEndian.PutUint16(b[10:], pdc)
	binary.BigEndian.PutUint32(b[12:], payload)
}

// EncodeNack writes a PDS NACK into b, which holds PDSNackSize bytes.
func EncodeNack(b []byte, psn uint32, pdc uint16, code uint8, marked bool) {
	var flags uint8
	if marked {
		flags |= PDSFlagM
	}
	pdsPrologue(b, PDSTypeNack, PDSNextNone, flags)
	b[2] = code
	binary.BigEndian.PutUint32(b[4:], psn)
	binary.BigEndian.PutUint16(b[8:], pdc)
	binary.BigEndian.PutUint16(b[10:], pdc)
	binary.BigEndian.PutUint32(b[12:], psn)
}
