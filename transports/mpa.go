package transports

import (
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// fillFPDU sets the TCP and MPA fields of data segment k (addressing and ACK aside): the
// layout's (frames.Layout.FillFPDU) and the sequence number.
func (c *tcpConn) fillFPDU(p *topology.Packet, k int64) {
	c.lay.FillFPDU(p, k)
	p.TCP().Seq = c.isn + uint32(c.base+c.lay.Start(k))
}

// Frames describes the frames of an iWARP flow of size bytes over a connection configured
// by c (frames.IWARPFrames).
func (c IWARPConfig) Frames(size int64) frames.IWARPFrames {
	return frames.NewIWARPFrames(frames.IWARP{MTU: c.MTU, Markers: c.Markers, Timestamps: c.Timestamps, SACK: c.SACK}, size)
}
