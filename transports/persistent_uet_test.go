package transports_test

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
	"github.com/stretchr/testify/require"
)

const uetMTU = 4096

// uetWire is the wire bytes of a UET data packet carrying payload bytes: Ethernet, IPv4,
// UDP, the PDS RUD request and SES headers (frames.UETHeaderBytes), the payload, FCS,
// preamble and gap.
func uetWire(payload int64) int64 {
	return max(topology.EthernetHeader+topology.IPv4Header+topology.UDPHeader+frames.UETHeaderBytes+payload+topology.FCS,
		topology.MinFrame) + topology.PreambleSFD + topology.InterFrameGap
}

// persistentUET opens a persistent UET flow from h1 to h2 at time 0, NSCC's window sized for
// an unloaded round trip of the harness's link (well above what the tests keep in flight).
func persistentUET(h *harness, cfg transports.UETConfig) (i int32, done, acked *[]completion) {
	done, acked = &[]completion{}, &[]completion{}
	h.reg.OnMessage = func(i int32, msg int64, now sim.Time) { *done = append(*done, completion{i, msg, now}) }
	h.reg.OnAcked = func(i int32, msg int64, now sim.Time) { *acked = append(*acked, completion{i, msg, now}) }
	f := &transports.Flow{ID: 1, Src: h.h1, Dst: h.h2, Persistent: true, Transport: "uet"}
	i = h.reg.Add(f)
	cfg.RTO = 20 * sim.Microsecond
	require.NoError(h.t, h.reg.StartUET(i, h.nic1, h.nic2, false, cfg))
	h.reg.SetPath(i, uetPathOfRTT(&cfg, 2*linkDly+tx(uetWire(uetMTU), lineRate)))
	return i, done, acked
}

// uetPathOfRTT is a path of one hop each way at the harness's line rate whose unloaded round
// trip for cfg's flows (UETConfig.RTT) is rtt.
func uetPathOfRTT(cfg *transports.UETConfig, rtt sim.Time) transports.Path {
	p := transports.Path{Fwd: []transports.PathHop{{Rate: lineRate}}, Back: []transports.PathHop{{Rate: lineRate}}}
	p.Back[0].Delay = rtt - cfg.RTT(p)
	return p
}

func uetConfig() transports.UETConfig {
	return transports.UETConfig{MTU: uetMTU, AckBytes: 16384, Paths: 64, QAGate: 3}
}

// TestPersistentUETMessages: three messages on one UET flow, the second posted while the
// first is in flight, the third after idle. PSNs run on; each packet carries its own
// message's length and offset and its start/end of message; each message completes as its
// last packet arrives and is acknowledged when the ACK its last packet asks for returns;
// NSCC's window is the one the flow had (not set back to its start); each packet's entropy
// varies while the flow's own port stays.
func TestPersistentUETMessages(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := uetConfig()
	require.Equal(t, uetWire(100), cfg.WireBytes(100), "the header arithmetic")
	i, done, acked := persistentUET(h, cfg)
	sizes := []int64{3*uetMTU + 100, 5000, 2000}
	_, err := h.reg.Post(i, sizes[0])
	require.NoError(t, err)
	tr := trainOf(uetMTU, sizes...)
	var txs []sim.Time
	for _, p := range tr.payload {
		txs = append(txs, tx(uetWire(p), lineRate))
	}
	t2 := txs[0] + txs[1]/2
	h.post(i, t2, sizes[1])
	var cwndAcked, cwndPost sim.Time
	h.eng.At(50*sim.Microsecond, callAt(func(sim.Time) {
		st, _ := h.reg.UETOf(i)
		cwndAcked = sim.Time(st.Cwnd)
	}), 0, nil)
	const t3 = 100 * sim.Microsecond
	h.eng.At(t3, callAt(func(sim.Time) {
		st, _ := h.reg.UETOf(i)
		cwndPost = sim.Time(st.Cwnd)
		_, err := h.reg.Post(i, sizes[2])
		require.NoError(t, err)
	}), 0, nil)
	h.run()

	dep := append(backToBack(0, txs[:len(txs)-1]), t3)
	data := h.at2.of(topology.KindData, i)
	require.Len(t, data, len(txs))
	var want []completion
	ports := map[uint16]bool{}
	off := int64(0)
	for k, a := range data {
		require.Equal(t, uint32(k), a.psn, "PSNs run on across messages")
		require.Equal(t, uint32(sizes[tr.msg[k]]), a.dmaLen, "each packet names its own message's length")
		if tr.first[k] {
			off = 0
		}
		require.Equal(t, tr.payload[k], int64(a.payload))
		require.Equal(t, dep[k]+txs[k]+linkDly, a.at, "packet %d", k)
		require.Equal(t, tr.last[k], a.ackReq, "AR on each message's last packet")
		ports[a.srcPort] = true
		off += tr.payload[k]
		if tr.last[k] {
			require.Equal(t, sizes[tr.msg[k]], off)
			want = append(want, completion{i, int64(tr.msg[k]), a.at})
		}
	}
	require.Greater(t, len(ports), 1, "per-packet entropy")
	require.Equal(t, want, *done)
	ackWire := frames.UETAckWireBytes()
	for k := range want {
		want[k].at += tx(ackWire, lineRate) + linkDly
	}
	require.Equal(t, want, *acked)
	require.Equal(t, cwndAcked, cwndPost, "NSCC's window kept through the idle time")
	f := h.reg.Flows[i]
	require.Equal(t, f.Size, f.Delivered)
	require.Equal(t, int64(3), f.Messages)
}

// TestPersistentUETLossInOrder: the second message's first packet is lost; the third
// message's packets all arrive, but it completes only after the second: both when the resend,
// sent at the retransmit timeout (20 us) after the lost packet left, arrives, with nothing
// delivered twice.
func TestPersistentUETLossInOrder(t *testing.T) {
	h := newHarness(t, defaultLink())
	sizes := []int64{2 * uetMTU, 3 * uetMTU, uetMTU}
	lost := uint32(2)
	h.at2.drop = func(a arrival, seen int) bool { return a.kind == topology.KindData && a.psn == lost && seen == 0 }
	i, done, _ := persistentUET(h, uetConfig())
	for _, s := range sizes {
		_, err := h.reg.Post(i, s)
		require.NoError(t, err)
	}
	h.run()

	txs := make([]sim.Time, 6)
	for k := range txs {
		txs[k] = tx(uetWire(uetMTU), lineRate)
	}
	dep := backToBack(0, txs)
	data := h.at2.of(topology.KindData, i)
	var resent arrival
	for _, a := range data {
		if a.psn == lost && !a.dropped {
			resent = a
		}
	}
	require.Equal(t, dep[lost]+20*sim.Microsecond, resent.sentAt, "the resend leaves at the retransmit timeout")
	require.Equal(t, resent.sentAt+txs[0]+linkDly, resent.at)
	want := []completion{{i, 0, dep[1] + txs[1] + linkDly}, {i, 1, resent.at}, {i, 2, resent.at}}
	require.Equal(t, want, *done, "in order: the third waits for the second")
	f := h.reg.Flows[i]
	// The packet after the lost one is resent too, at its own timeout: no ACK covered it
	// (the ACKs that the later packets' AR drew SACK from their own PSN on, uet-htsim's
	// sackBitmapBase, and the cumulative PSN stood at the hole), though it had arrived.
	require.Len(t, data, 8)
	require.Equal(t, lost+1, data[7].psn)
	require.Equal(t, dep[lost+1]+20*sim.Microsecond, data[7].sentAt)
	require.Equal(t, int64(2), f.Retransmitted)
	require.Equal(t, f.Size, f.Delivered)
}
