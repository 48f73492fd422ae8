package pfc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func TestPauseDuration(t *testing.T) {
	// One quantum is 512 bit times: 5.12 ns at 100 Gb/s, 12.8 ns at 40 Gb/s (physics
	// references 2.1); the largest pause at 100 Gb/s is 0xFFFF x 5.12 ns = 335.5392 us.
	require.Equal(t, sim.Time(5120), PauseDuration(1, 100*sim.Gbps))
	require.Equal(t, sim.Time(12800), PauseDuration(1, 40*sim.Gbps))
	require.Equal(t, sim.Time(65535*5120), PauseDuration(MaxQuanta, 100*sim.Gbps))
	require.Equal(t, 672, FrameWireBytes*8, "a PFC frame is 672 bit times on the wire")
}

func TestResponseTime(t *testing.T) {
	// 394 quanta at 100 Gb/s = 201,728 bit times = 2.01728 us (802.3 annex 31B).
	require.Equal(t, sim.Time(201728*10), ResponseTime(100*sim.Gbps))
	require.Equal(t, PauseDuration(118, 40*sim.Gbps), ResponseTime(40*sim.Gbps))
	require.Equal(t, PauseDuration(394, 50*sim.Gbps), ResponseTime(50*sim.Gbps), "between rows: the faster row")
	require.Equal(t, PauseDuration(905, 800*sim.Gbps), ResponseTime(800*sim.Gbps))
}

func TestHeadroomTermByTerm(t *testing.T) {
	// 100 Gb/s, 100 m of cable (500 ns each way), 802.1Q frames of IP MTU 1500 (1542 bytes on
	// the wire), one lossless class, an ideal sender (no response time): the frame crossing
	// XOFF + MTU_R + 84 + 2 x C x d + MTU_S.
	const mtu = 1500 + 14 + 4 + 4 + 8 + 12
	c := 100 * sim.Gbps
	d := 500 * sim.Nanosecond
	inFlight := int64(100e9 / 8 * 500e-9) // 6,250 bytes each way
	require.EqualValues(t, 6250, inFlight)
	h := Headroom(HeadroomLink{Rate: c, Delay: d, MaxFrameWire: mtu, Classes: 1})
	require.Equal(t, HeadroomTerms{Trigger: mtu, Reverse: mtu, Pause: 84, Cable: 2 * inFlight, Sender: mtu}, h)
	require.EqualValues(t, 15668+mtu, h.Total(), "the ideal-simulator row of the worked example, plus the crossing frame")
	// With a 60-quanta response (3,840 bytes at 100 Gb/s).
	require.EqualValues(t, 19508+mtu, Headroom(HeadroomLink{Rate: c, Delay: d, MaxFrameWire: mtu, Response: PauseDuration(60, c)}).Total())
	// With the IEEE 100G response, 394 quanta (25,216 bytes).
	require.EqualValues(t, 40884+mtu, Headroom(HeadroomLink{Rate: c, Delay: d, MaxFrameWire: mtu, Response: ResponseTime(c)}).Total())
	// Two lossless classes: one more PAUSE may be queued ahead. A 300 ns forwarding latency
	// holds 3,750 bytes; 6.72 ns of jitter, one minimum frame time, 84.
	h = Headroom(HeadroomLink{Rate: c, Delay: d, MaxFrameWire: mtu, Classes: 2, Latency: 300 * sim.Nanosecond, Jitter: 6720})
	require.EqualValues(t, 168, h.Pause)
	require.EqualValues(t, 3750, h.Latency)
	require.EqualValues(t, 84, h.Jitter)
	require.EqualValues(t, 15668+mtu+84+3750+84, h.Total())
	require.Contains(t, h.String(), "3750B forwarding latency")
	// Rounded up: 1 ps at 100 Gb/s is a fraction of a byte, and headroom must not fall short.
	require.EqualValues(t, 1, Headroom(HeadroomLink{Rate: c, Response: 1}).Response)
}

func TestIngressPausesAboveXoffResumesAtXon(t *testing.T) {
	in := Ingress{Thresholds: Thresholds{Xoff: 3000, Xon: 1000, Headroom: 2500}}
	act := func(ok bool, a Action) Action { require.True(t, ok); return a }
	require.Equal(t, None, act(in.Admit(1500, in.Xoff)))
	require.Equal(t, None, act(in.Admit(1500, in.Xoff)), "at XOFF, not above it")
	require.Equal(t, Pause, act(in.Admit(1000, in.Xoff)), "above XOFF")
	require.Equal(t, None, act(in.Admit(1000, in.Xoff)), "one PAUSE per crossing")
	ok, _ := in.Admit(1000, in.Xoff)
	require.False(t, ok, "5500 + 1000 exceeds XOFF + headroom")
	require.EqualValues(t, 5000, in.Bytes)
	require.EqualValues(t, 5000, in.Max)
	require.Equal(t, None, in.Release(2000, in.Xon))
	require.Equal(t, None, in.Release(1500, in.Xon), "1500 is still above XON")
	require.Equal(t, Resume, in.Release(500, in.Xon))
	require.False(t, in.Paused)
	require.Equal(t, None, in.Release(1000, in.Xon))
}

func TestEgressPauseResumeAndRefresh(t *testing.T) {
	var e Egress
	r := 100 * sim.Gbps
	q := uint16(1000)
	d := PauseDuration(q, r)
	until := e.Receive(100, 3, q, r, 0)
	require.Equal(t, 100+d, until)
	require.True(t, e.Paused(100, 3))
	require.False(t, e.Paused(100, 2), "only its class")
	require.False(t, e.Paused(100+d, 3), "a pause lasts exactly quanta x 512 bit times")
	// A refresh before expiry extends the interval; paused time counts it once.
	e.Receive(100+d/2, 3, q, r, 0)
	require.True(t, e.Paused(100+d, 3))
	require.Equal(t, 100, int(e.PausedSince(100+d, 3)))
	// A zero-quanta frame ends it at once.
	e.Receive(100+d, 3, 0, r, 0)
	require.False(t, e.Paused(100+d, 3))
	require.Equal(t, d, e.PausedTime(3, sim.Never))
	require.EqualValues(t, 2, e.Frames)
	require.EqualValues(t, 1, e.Resumes)
	// A later pause starts a new interval; with a response time it starts that much later.
	e.Receive(10*d, 3, q, r, 500)
	require.False(t, e.Paused(10*d+499, 3))
	require.True(t, e.Paused(10*d+500, 3))
	require.Equal(t, d+d/2, e.PausedTime(3, 10*d+500+d/2))
}

func TestFindCycle(t *testing.T) {
	require.Nil(t, FindCycle([][]int{{1}, {2}, {}}))
	require.Equal(t, []int{1, 2, 3}, FindCycle([][]int{{1}, {2}, {3}, {1}}))
	require.Equal(t, []int{0}, FindCycle([][]int{{0}}))
	require.Equal(t, []int{2, 4}, FindCycle([][]int{{}, {}, {4}, {}, {2}}))
	require.Nil(t, FindCycle(nil))
}

func TestRefreshArrivesBeforeThePauseRunsOut(t *testing.T) {
	// A refresh that waits the longest (RefreshLead: the largest frame, and a PFC frame per
	// other lossless class) after a PAUSE that went at once arrives within that PAUSE's
	// pause time, at every speed; at the shortest quanta allowed (MinQuanta) the refreshes
	// are still four PFC frames apart (within a picosecond of rounding per frame), and one
	// quantum fewer could not keep both.
	for _, frame := range []int64{1122, 1538, 4218, 9238} {
		for _, classes := range []int{1, 2, 3} {
			// 8 x (frame + 84 per other class + 4 x 84) bit times, in 512-bit quanta.
			least := int((8*(frame+int64(classes-1)*84+4*84) + 511) / 512)
			require.Equal(t, least, MinQuanta(frame, classes), "frame %d, %d classes", frame, classes)
			for _, r := range []sim.Rate{10 * sim.Gbps, 25 * sim.Gbps, 40 * sim.Gbps, 100 * sim.Gbps, 400 * sim.Gbps} {
				lead := RefreshLead(r, frame, classes)
				require.Equal(t, r.TxTime(frame)+sim.Time(classes-1)*r.TxTime(FrameWireBytes), lead)
				for _, q := range []int{least, least + 1, 3 * least, MaxQuanta} {
					d := PauseDuration(uint16(q), r)
					ri := RefreshInterval(uint16(q), r, lead)
					require.LessOrEqual(t, ri+lead, d, "refreshed in time: frame %d, %d classes, %v, %d quanta", frame, classes, r, q)
					require.LessOrEqual(t, ri, d/2, "no later than half the pause")
					require.GreaterOrEqual(t, ri, r.TxTime(MinRefreshBytes)-sim.Time(classes), "at most a quarter of the link")
				}
				short := PauseDuration(uint16(least-1), r) - lead
				require.Less(t, short, r.TxTime(MinRefreshBytes), "one quantum fewer leaves less than four PFC frames")
			}
		}
	}
	require.Equal(t, PauseDuration(MaxQuanta, 100*sim.Gbps)/2, RefreshInterval(MaxQuanta, 100*sim.Gbps, 0), "a storm: half the pause")
}

func TestLinkDownClearsPauseState(t *testing.T) {
	// On loss of link the pause timers are reset (IEEE 802.3 annex 31B): a pause in force
	// ends at that moment, one yet to begin never does; the paused time counts up to it.
	r := 100 * sim.Gbps
	var e Egress
	e.Receive(0, 3, MaxQuanta, r, 0)
	e.Receive(sim.Microsecond, 5, 100, r, 2*sim.Microsecond) // begins at 3 us
	e.Clear(2 * sim.Microsecond)
	require.False(t, e.Paused(2*sim.Microsecond, 3))
	require.False(t, e.Paused(4*sim.Microsecond, 5))
	require.Equal(t, 2*sim.Microsecond, e.PausedTime(3, sim.Never))
	require.Zero(t, e.PausedTime(5, sim.Never))
	require.EqualValues(t, 2, e.Frames, "Clear counts no frame")

	in := Ingress{Thresholds: Thresholds{Xoff: 100, Xon: 50, Headroom: 1000}}
	_, act := in.Admit(150, in.Xoff)
	require.Equal(t, Pause, act)
	in.LinkDown()
	require.Equal(t, None, in.Release(120, in.Xon), "no resume owed to a sender whose link went down")
	_, act = in.Admit(90, in.Xoff) // 120 > XOFF again: a frame still in the switch's pipeline
	require.Equal(t, Pause, act, "a PAUSE into the dead link, lost")
	require.True(t, in.LinkUp(in.Xoff), "above XOFF when the link is back: pause again")
	require.Equal(t, Resume, in.Release(70, in.Xon))
	in.LinkDown()
	require.False(t, in.LinkUp(in.Xoff), "at or below XOFF: no pause")
}

func TestDynamicThresholds(t *testing.T) {
	// alpha x the free shared buffer, never below zero; XON the offset below it, never below
	// zero (SAI: usage <= max(XON_TH, limit - XON_OFFSET_TH), XON_TH 0).
	require.EqualValues(t, 100_000, DynamicXoff(1, 100_000))
	require.EqualValues(t, 12_500, DynamicXoff(0.125, 100_000))
	require.Zero(t, DynamicXoff(2, -5))
	require.EqualValues(t, 97_788, DynamicXon(100_000, 2212))
	require.Zero(t, DynamicXon(1000, 2212))

	// A threshold that fell below what the port-class already holds: the next frame pauses
	// the sender and goes into the headroom, which starts at the count, not at the
	// threshold (those bytes were admitted while it was higher).
	in := Ingress{Thresholds: Thresholds{Headroom: 3000}}
	ok, act := in.Admit(1000, 10_000)
	require.True(t, ok)
	require.Equal(t, None, act)
	ok, act = in.Admit(1000, 500) // the buffer filled meanwhile
	require.True(t, ok)
	require.Equal(t, Pause, act)
	require.EqualValues(t, 1000, in.Limit)
	ok, _ = in.Admit(2000, 0)
	require.True(t, ok, "4000 = 1000 + headroom 3000")
	ok, _ = in.Admit(1, 0)
	require.False(t, ok, "the headroom is full")
	require.Equal(t, None, in.Release(3000, DynamicXon(DynamicXoff(1, 1000), 500)), "1000 > 1000 - 500")
	require.Equal(t, Resume, in.Release(500, DynamicXon(DynamicXoff(1, 1000), 500)), "500 <= 1000 - 500")
}
