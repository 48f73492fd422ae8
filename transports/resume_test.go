package transports_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// linkFlip takes the harness's link down (op 0) or up (op 1) in both directions; up resumes
// the sending NIC, as experiment's link faults do.
type linkFlip struct{ h *harness }

func (l linkFlip) Handle(now sim.Time, op int, _ any) {
	l.h.w12.SetUp(op == 1)
	l.h.w21.SetUp(op == 1)
	if op == 1 {
		l.h.nic1.Resume(now)
	}
}

// TestNICResumesAfterLinkDown: the link goes down in the middle of the third packet of a
// RoCE v2 message. The three packets on the wire are lost, and the NIC holds the rest while
// the link is down: it sends nothing more. When the link comes back at tUp, NIC.Resume
// restarts it where it stopped, with PSN 3, back to back from tUp; the responder NAKs the gap
// (expecting PSN 0) as soon as PSN 3 arrives, the requester goes back to PSN 0 when the NAK
// arrives, and the whole message follows back to back. No retransmit timeout is involved.
func TestNICResumesAfterLinkDown(t *testing.T) {
	h := newHarness(t, defaultLink())
	const n = 10
	const size = n*mtu - 100
	const start = sim.Microsecond
	const tUp = 10 * sim.Microsecond
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Start: start}
	i := h.add(f, defaultConfig())

	m := segment(size, mtu)
	txs := m.txs(lineRate)
	first := backToBack(start, txs)
	tDown := first[2] + txs[2]/2
	h.eng.At(tDown, linkFlip{h}, 0, nil)
	h.eng.At(tUp, linkFlip{h}, 1, nil)
	h.run()

	// PSNs 3..n-1 leave back to back from tUp; PSN 3's arrival draws the NAK; from its
	// arrival, PSNs 0..n-1 leave back to back.
	resumed := backToBack(tUp, txs[3:])
	nakAt := ackArrival(resumed[0] + txs[3] + linkDly)
	again := backToBack(nakAt, txs)
	var wantPSN []uint32
	var wantAt []sim.Time
	for k := 3; k < n; k++ {
		wantPSN = append(wantPSN, uint32(k))
		wantAt = append(wantAt, resumed[k-3]+txs[k]+linkDly)
	}
	for k := 0; k < n; k++ {
		wantPSN = append(wantPSN, uint32(k))
		wantAt = append(wantAt, again[k]+txs[k]+linkDly)
	}
	data := h.at2.of(topology.KindData, i)
	require.Equal(t, wantPSN, psns(data))
	require.Equal(t, wantAt, times(data))
	naks := h.at1.of(topology.KindNak, i)
	require.Len(t, naks, 1)
	require.Equal(t, nakAt, naks[0].at)
	require.Zero(t, naks[0].psn, "the responder expects PSN 0")

	require.EqualValues(t, 3+(n-3)+n, h.w12.Packets(), "3 before the link went down, none while it was down")
	require.Equal(t, transports.Completed, f.Status)
	require.Equal(t, again[n-1]+txs[n-1]+linkDly, f.Finish)
	require.EqualValues(t, size, f.Delivered)
	require.Zero(t, f.Timeouts)
	require.EqualValues(t, n, f.Retransmitted, "every PSN was sent again")
	require.EqualValues(t, 1, f.NAKs)
}
