package transports

// DCTCPGain is DCTCP's default alpha gain g (RFC 8257 section 4.2: 1/16).
const DCTCPGain = 1.0 / 16

// dctcp is DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010): NewReno's window growth and loss
// response, and an ECE reduction in proportion to the congestion: alpha is the EWMA, gain g,
// of the fraction of delivered segments that came back marked, one sample per window of data,
// and an ECE cuts cwnd by alpha/2.
type dctcp struct {
	newReno
	g, alpha float64
	// acks and marks count the delivered and the ECE-echoed segments of the window that
	// ends when una reaches winEnd.
	acks, marks int64
	winEnd      int64
}

// acked counts the delivered segments and the marked ones, and updates alpha at the end of
// each window of data (RFC 8257 section 3.3).
func (d *dctcp) acked(delivered int64, ece bool, una, nxt int64) {
	d.acks += delivered
	if ece {
		d.marks += delivered
	}
	if una >= d.winEnd {
		if d.acks > 0 {
			d.alpha = (1-d.g)*d.alpha + d.g*float64(d.marks)/float64(d.acks)
		}
		d.acks, d.marks, d.winEnd = 0, 0, nxt
	}
}

// congestionExperienced cuts cwnd by alpha/2, to at least 2 segments (RFC 8257 section 3.3).
func (d *dctcp) congestionExperienced() {
	d.w.cwnd = max(d.w.cwnd*(1-d.alpha/2), 2)
	d.w.ssthresh = d.w.cwnd
}
