package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// FileDrops is the CSV of where the packets were lost, one row per variant, seed and place
// (written when any variant lost a packet).
const FileDrops = "drops.csv"

// DropPlace is where packets were lost, and why: at switch or NIC Node's port Port (from 1),
// the one that faces Peer. A switch counts a buffer or watchdog drop at the egress port the
// frame was bound for, a headroom, unroutable or TTL drop at the ingress port it came in on;
// a NIC's unroutable drops (frames for another host) are at its one port; a link's
// random_loss and link_down drops are at the sending end of the direction that lost them.
// The Packets of a variant's places, summed by Reason, are its drops.by_reason.
type DropPlace struct {
	Node    string
	Port    int
	Peer    string
	Reason  string // a drops.by_reason key: buffer, headroom, random_loss, link_down, unroutable, ttl, watchdog
	Packets int64
}

// DropPlacesByReason sums places by reason, as drops.by_reason counts them.
func DropPlacesByReason(places []DropPlace) ByReason {
	var b ByReason
	for _, p := range places {
		switch p.Reason {
		case "buffer":
			b.Buffer += p.Packets
		case "headroom":
			b.Headroom += p.Packets
		case "random_loss":
			b.RandomLoss += p.Packets
		case "link_down":
			b.LinkDown += p.Packets
		case "unroutable":
			b.Unroutable += p.Packets
		case "ttl":
			b.TTL += p.Packets
		case "watchdog":
			b.Watchdog += p.Packets
		}
	}
	return b
}

// hasDropPlaces reports whether a variant of d lost a packet at a known place.
func hasDropPlaces(d *Document) bool {
	for i := range d.Variants {
		if len(d.Variants[i].DropPlaces) > 0 {
			return true
		}
	}
	return false
}

// writeDropsCSV writes drops.csv: variant, seed, node, port, peer, reason, packets, a row
// per place that lost a packet, in the variants' order and each variant's.
func writeDropsCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variant", "seed", "node", "port", "peer", "reason", "packets"}); err != nil {
		return err
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		for _, p := range v.DropPlaces {
			if err := cw.Write([]string{v.Name, strconv.FormatUint(v.Seed, 10), p.Node, strconv.Itoa(p.Port), p.Peer,
				p.Reason, strconv.FormatInt(p.Packets, 10)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Storm is a PFC pause storm a fault set off: host Node's NIC sending PAUSE on class
// Priority from FromUS until UntilUS (the end of the run when it lasts to it).
type Storm struct {
	Node            string
	Priority        int
	FromUS, UntilUS float64
}
