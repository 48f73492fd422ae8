package switchmodel

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TrimConfig configures packet trimming (Handley et al., "Re-architecting datacenter networks
// and stacks for low latency and high performance" (NDP), SIGCOMM 2017; the Ultra Ethernet
// transport's packet trimming): a trimmable data packet that a lossy queue cannot take whole
// (the buffer or the queue's dynamic threshold is full, or the queue holds more than
// Threshold) is cut to its headers, which go on in the trim class, so the receiver learns of
// the loss at once instead of after a timeout.
type TrimConfig struct {
	Enabled bool
	// Threshold is the queue depth, in bytes, above which a trimmable data packet is trimmed;
	// 0 trims only what the queue would have dropped.
	Threshold int64
	// Priority is the class the trimmed headers travel in, to every later hop; NDP serves
	// its header queue ahead of data (strict priority), so the default is the highest, 7.
	Priority uint8
	// Reserve is the part of the shared buffer only trimmed headers may use, so that a
	// buffer full of data still takes the headers of what it trims (NDP and uet-htsim's
	// CompositeQueue keep headers in a queue of their own; here they share the buffer with
	// this much kept for them). Headers beyond it are dropped (buffer drops).
	Reserve int64
}

func (c *TrimConfig) validate(pfc *PFCConfig) error {
	switch {
	case !c.Enabled:
		return nil
	case c.Threshold < 0:
		return fmt.Errorf("trimming threshold %d bytes: must not be negative", c.Threshold)
	case c.Reserve < 0:
		return fmt.Errorf("trimmed headers' reserve %d bytes: must not be negative", c.Reserve)
	case int(c.Priority) >= NumPriorities:
		return fmt.Errorf("trim class %d: there are %d priorities", c.Priority, NumPriorities)
	case pfc.Lossless[c.Priority]:
		return fmt.Errorf("trim class %d is lossless: trimmed headers must not wait on a pause (choose a lossy class)", c.Priority)
	}
	return nil
}

// TrimThreshold is the depth in bytes of an egress queue of class prio above which the switch
// trims a trimmable data packet instead of queueing it whole, and whether the queue trims at
// all (trimming on, a lossy class); a queue that trims with a threshold of 0 trims only what
// the buffer would drop.
func (sw *Switch) TrimThreshold(prio int) (bytes int64, trims bool) {
	t := &sw.cfg.Trim
	if !t.Enabled || sw.lossless[prio] {
		return 0, false
	}
	return t.Threshold, true
}

// overTrimThreshold reports whether a frame of size bytes would take lossy queue q past the
// trimming threshold.
func (sw *Switch) overTrimThreshold(q *topology.Queue, size int64) bool {
	t := &sw.cfg.Trim
	return t.Enabled && t.Threshold > 0 && q.Bytes+size > t.Threshold
}

// trimmable reports whether p may be trimmed here instead of dropped: trimming is on, p is a
// data packet whose transport takes trim notices, and it is not already a header.
func (sw *Switch) trimmable(p *topology.Packet) bool {
	return sw.cfg.Trim.Enabled && p.Trimmable && !p.Trimmed && p.Kind == topology.KindData && p.Payload > 0
}

// trim cuts p to its headers and queues them on port pt in the trim class, where they are
// admitted as any lossy frame is (and dropped if even they do not fit).
func (sw *Switch) trim(now sim.Time, pt *Port, p *topology.Packet) {
	sw.Trimmed++
	prio := sw.cfg.Trim.Priority
	p.Payload, p.Trimmed = 0, true
	p.Priority = prio
	if p.EtherType == topology.EtherTypeIPv4 {
		p.DSCP = prio << 3 // the trim class's class selector (RFC 2474), as hosts mark classes
	}
	p.Seal()
	sw.enqueue(now, pt, p)
}
