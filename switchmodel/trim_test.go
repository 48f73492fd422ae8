package switchmodel

import (
	"testing"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/stretchr/testify/require"
)

func TestTrimmingCutsWhatTheQueueCannotTake(t *testing.T) {
	// h1 and h2 send 20 RoCE v2 packets of 1024 bytes at once to h3 through one switch whose
	// buffer holds 8 frames of data (with trimming, one frame more kept for headers): h3's port takes frames at the rate of one link while two arrive,
	// so some do not fit. Without trimming they are dropped (buffer); with it, a trimmable
	// one goes on as its headers (the frame less its 1024 payload bytes, 62 bytes, padded to
	// Ethernet's 64) in class 7, and a
	// packet that is not trimmable (a TCP segment's transport does not take trim notices) is
	// still dropped. Nothing else is lost: headers + whole packets = sent.
	frame := int64(rocev2Frame(1024))
	for _, tc := range []struct {
		name      string
		trim      bool
		trimmable bool
	}{{"off", false, true}, {"on", true, true}, {"on, not trimmable", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			nw, err := topology.Star(3, topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond})
			require.NoError(t, err)
			cfg := Config{BufferBytes: 8 * frame, Alpha: 1000, Trim: TrimConfig{Enabled: tc.trim, Priority: 7}}
			if tc.trim {
				cfg.BufferBytes += frame
				cfg.Trim.Reserve = frame // the headers' room: one frame's worth
			}
			f := build(t, nw, cfg)
			h1, h2, h3 := f.id(t, "h1"), f.id(t, "h2"), f.id(t, "h3")
			const each = 20
			for _, src := range []topology.NodeID{h1, h2} {
				now := sim.Time(0)
				for i := range each {
					p := f.data(src, h3, 3, uint32(i), 1024)
					p.Trimmable = tc.trimmable
					now = f.send(now, p)
				}
			}
			f.eng.Run(sim.Second)
			sw := f.sw[f.id(t, "sw")]
			var whole, headers int64
			for _, g := range f.hosts[h3].got {
				switch g.frame {
				case int32(frame):
					require.EqualValues(t, 3, g.priority)
					whole++
				case max(rocev2Frame(0), topology.MinFrame): // 62 bytes of headers, padded to 64
					require.EqualValues(t, 7, g.priority, "headers travel in the trim class")
					headers++
				default:
					t.Fatalf("a frame of %d bytes", g.frame)
				}
			}
			dropped := sw.Drops[DropBuffer]
			t.Logf("%s: %d whole, %d headers, %d dropped", tc.name, whole, headers, dropped)
			require.Equal(t, int64(2*each), whole+headers+dropped)
			require.Equal(t, headers, sw.Trimmed)
			if tc.trim && tc.trimmable {
				require.Positive(t, headers)
				require.Zero(t, dropped)
			} else {
				require.Zero(t, headers)
				require.Positive(t, dropped)
			}
			f.checkBooks(t)
		})
	}
}

// TestTrimThresholdCutsOnlyData: a trimming threshold is the queue depth above which data
// packets are cut; it is no admission limit for anything else. With a threshold of 100 bytes
// (less than one data frame, more than one 64-byte header) and a buffer that holds all 40
// frames, every trimmable data packet is cut (its frame alone passes the threshold) and all
// 40 headers arrive, though two arriving at once put the trim class's queue past 100 bytes;
// packets whose transport takes no trim notice arrive whole, all 40. Before, the threshold
// dropped both: headers behind a header, and every packet that was not trimmable.
func TestTrimThresholdCutsOnlyData(t *testing.T) {
	frame := int64(rocev2Frame(1024))
	for _, trimmable := range []bool{true, false} {
		nw, err := topology.Star(3, topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond})
		require.NoError(t, err)
		cfg := Config{BufferBytes: 100 * frame, Alpha: 1000, Trim: TrimConfig{Enabled: true, Priority: 7, Threshold: 100, Reserve: frame}}
		f := build(t, nw, cfg)
		h1, h2, h3 := f.id(t, "h1"), f.id(t, "h2"), f.id(t, "h3")
		const each = 20
		for _, src := range []topology.NodeID{h1, h2} {
			now := sim.Time(0)
			for i := range each {
				p := f.data(src, h3, 3, uint32(i), 1024)
				p.Trimmable = trimmable
				now = f.send(now, p)
			}
		}
		f.eng.Run(sim.Second)
		sw := f.sw[f.id(t, "sw")]
		var whole, headers int64
		for _, g := range f.hosts[h3].got {
			if g.frame == int32(frame) {
				whole++
			} else {
				headers++
			}
		}
		require.Zero(t, sw.Drops[DropBuffer], "trimmable %v", trimmable)
		if trimmable {
			require.EqualValues(t, 2*each, headers)
			require.EqualValues(t, 2*each, sw.Trimmed)
		} else {
			require.EqualValues(t, 2*each, whole)
			require.Zero(t, sw.Trimmed)
		}
		f.checkBooks(t)
	}
}

func TestTrimConfigIsChecked(t *testing.T) {
	nw := leafSpine(t, 2, 2, 1, topology.RoutingL3)
	routes, err := topology.ComputeRoutes(nw, nil)
	require.NoError(t, err)
	leaf, _ := nw.Lookup("leaf1")
	lossless := PFCConfig{}
	lossless.Lossless[7] = true
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{BufferBytes: 1, Alpha: 1, Trim: TrimConfig{Enabled: true, Priority: 8}}, "trim class 8"},
		{Config{BufferBytes: 1, Alpha: 1, Trim: TrimConfig{Enabled: true, Threshold: -1}}, "must not be negative"},
		{Config{BufferBytes: 1, Alpha: 1, PFC: lossless, Trim: TrimConfig{Enabled: true, Priority: 7}}, "trim class 7 is lossless"},
	} {
		_, err := New(sim.NewEngine(), &topology.Pool{}, nw, routes, leaf, c.cfg)
		require.ErrorContains(t, err, c.want)
	}
}

// TestThresholdsAreReadBack: what the sampler reads of a switch to draw its queues against,
// ECN's curve and the trimming threshold per class: none on a lossless class, none with
// trimming off.
func TestThresholdsAreReadBack(t *testing.T) {
	nw, err := topology.Star(2, topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond})
	require.NoError(t, err)
	cfg := Config{BufferBytes: 1 << 20, Alpha: 1, ECN: &ecn.Marker{Kmin: 5000, Kmax: 200000, Pmax: 0.01}, Rand: sim.Stream(1, "ecn"),
		Trim: TrimConfig{Enabled: true, Priority: 7, Threshold: 80000}}
	cfg.PFC.Lossless[3] = true
	cfg.PFC.Ports = []pfc.Thresholds{{Xoff: 100000, Xon: 50000}, {Xoff: 100000, Xon: 50000}}
	f := build(t, nw, cfg)
	sw := f.sw[f.id(t, "sw")]
	m, ok := sw.Marking()
	require.True(t, ok)
	require.Equal(t, *cfg.ECN, m)
	b, trims := sw.TrimThreshold(1)
	require.True(t, trims)
	require.EqualValues(t, 80000, b)
	b, trims = sw.TrimThreshold(3)
	require.False(t, trims, "a lossless class is paused, never trimmed")
	require.Zero(t, b)

	cfg.ECN, cfg.Trim = nil, TrimConfig{}
	f = build(t, nw, cfg)
	sw = f.sw[f.id(t, "sw")]
	_, ok = sw.Marking()
	require.False(t, ok)
	_, trims = sw.TrimThreshold(1)
	require.False(t, trims)
}
