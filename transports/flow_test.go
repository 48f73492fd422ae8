package transports_test

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

func TestStatusString(t *testing.T) {
	tests := []struct {
		s    transports.Status
		want string
	}{
		{transports.Pending, "incomplete"},
		{transports.Completed, "completed"},
		{transports.Failed, "failed"},
		{transports.Unroutable, "unroutable"},
		{transports.Status(200), "incomplete"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, tc.s.String())
	}
}

// TestRegistryDone: Done is called once, when the last flow ends, whichever way each ends.
func TestRegistryDone(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := defaultConfig()
	cfg.RetransmitTimeout = 20 * sim.Microsecond
	h.w21.SetDropEvery(1) // every data frame from h2 is lost; ACKs are not data
	ok := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 6 * mtu}
	const failStart = 3 * sim.Microsecond
	doomed := &transports.Flow{Src: h.h2, Dst: h.h1, Size: 2 * mtu, Start: failStart}
	lost := &transports.Flow{Src: h.h1, Dst: h.h2, Size: mtu}
	h.add(ok, cfg)
	h.add(doomed, cfg)
	li := h.reg.Add(lost)
	require.Equal(t, 3, h.reg.Open())
	h.reg.MarkUnroutable(li, "no path")
	require.Equal(t, 2, h.reg.Open())
	require.Empty(t, h.doneAt)

	failAt := failStart + sim.Time(cfg.RetryLimit+1)*cfg.RetransmitTimeout
	h.eng.Run(failAt - 1)
	require.Equal(t, transports.Completed, ok.Status)
	require.Equal(t, 1, h.reg.Open())
	require.Empty(t, h.doneAt, "not before the last flow ends")
	h.run()
	require.Equal(t, []sim.Time{failAt}, h.doneAt)
	require.Zero(t, h.reg.Open())
	require.Equal(t, []string{"completed", "failed", "unroutable"},
		[]string{ok.Status.String(), doomed.Status.String(), lost.Status.String()})
	require.Equal(t, "no path", lost.Reason)
}

// TestRegistryDoneUnset: a registry without Done runs its flows all the same.
func TestRegistryDoneUnset(t *testing.T) {
	h := newHarness(t, defaultLink())
	h.reg.Done = nil
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 3 * mtu}
	h.add(f, defaultConfig())
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	require.Zero(t, h.reg.Open())
}

// TestUnroutableSendsNothing: a flow marked unroutable after its queue pair was set up (the
// order experiment uses) never sends: Unroutable means nothing was sent.
func TestUnroutableSendsNothing(t *testing.T) {
	h := newHarness(t, defaultLink())
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 4 * mtu, Start: sim.Microsecond}
	i := h.add(f, defaultConfig())
	h.reg.MarkUnroutable(i, "no route to 10.0.0.2")
	require.Equal(t, []sim.Time{0}, h.doneAt)
	h.run()
	require.Zero(t, h.w12.Packets(), "nothing was sent")
	require.Zero(t, h.pool.Taken[topology.KindData])
	require.Equal(t, transports.Unroutable, f.Status)
	require.Equal(t, "no route to 10.0.0.2", f.Reason)
	require.Zero(t, f.Delivered)
	require.Len(t, h.doneAt, 1)
}
