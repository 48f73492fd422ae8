package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ringNode is a toy fabric for Group: node i of n, in lane i+1, forwards each token it gets
// to node i+1 (mod n) after a hop of delay plus 1 ps per hop count, and logs what it saw;
// a token crosses to another partition through a ringLink.
type ringNode struct {
	g     *Group
	i     int
	lane  Lane
	next  *ringLink
	log   *[]string // this node's own log: a node is in one partition
	hops  int
	limit int
}

// ringLink carries tokens from one node to the next: within a partition it schedules the
// arrival itself; between two it stages them for Cross.
type ringLink struct {
	to       *ringNode
	src, dst *Engine
	toPart   int
	cross    bool
	staged   [2][]ringToken
	count    uint64 // tokens sent: the arrival key
}

type ringToken struct {
	at   Time
	hops int
	seq  uint64
}

const ringDelay = 100 * Nanosecond

func (l *ringLink) send(now Time, hops int) {
	l.count++
	tok := ringToken{at: now + ringDelay + Time(hops%7), hops: hops, seq: l.count}
	if !l.cross {
		l.dst.AtKey(l.to.lane, l.to.lane, tok.seq, tok.at, l.to, hops, nil)
		return
	}
	par := l.src.Parity()
	if len(l.staged[par]) == 0 {
		l.src.HandOff(l.toPart, l, tok.at)
	}
	l.staged[par] = append(l.staged[par], tok)
}

// Cross implements Crossing.
func (l *ringLink) Cross(par int) {
	for _, tok := range l.staged[par] {
		l.dst.AtKey(l.to.lane, l.to.lane, tok.seq, tok.at, l.to, tok.hops, nil)
	}
	l.staged[par] = l.staged[par][:0]
}

// Handle implements Handler: a token arrives; the node logs it, sends it on, and on every
// third hop also sets itself a timer at the same picosecond as a token it will get.
func (n *ringNode) Handle(now Time, op int, _ any) {
	if op < 0 { // a timer
		*n.log = append(*n.log, fmt.Sprintf("%v n%d timer", now, n.i))
		return
	}
	n.hops++
	*n.log = append(*n.log, fmt.Sprintf("%v n%d token %d", now, n.i, op))
	if op >= n.limit {
		n.g.Stop()
		return
	}
	n.next.send(now, op+1)
	if op%3 == 0 {
		n.next.src.AtLane(n.lane, now+2*ringDelay, n, -1, nil)
	}
}

// runRing runs a ring of 12 nodes cut into parts partitions (nodes in runs of 12/parts) on
// threads goroutines, with a token started at each of four nodes, and returns each node's
// log, the time it ended and the events.
func runRing(t *testing.T, parts, threads, limit int) ([][]string, Time, uint64, bool) {
	t.Helper()
	const n = 12
	g := NewGroup(parts, threads, ringDelay, n+1)
	logs := make([][]string, n)
	nodes := make([]*ringNode, n)
	partOf := func(i int) int { return i * parts / n }
	for i := range nodes {
		nodes[i] = &ringNode{g: g, i: i, lane: Lane(i + 1), log: &logs[i], limit: limit}
	}
	for i, nd := range nodes {
		to := nodes[(i+1)%n]
		nd.next = &ringLink{to: to, src: g.Part(partOf(i)), dst: g.Part(partOf((i + 1) % n)), toPart: partOf((i + 1) % n)}
		nd.next.cross = partOf(i) != partOf((i+1)%n)
	}
	for _, i := range []int{0, 3, 6, 9} {
		g.Part(partOf(i)).AtLane(nodes[i].lane, Time(i), nodes[i], 0, nil)
	}
	stopped := g.Run(Never, nil)
	return logs, g.Now(), g.Executed(), stopped
}

// TestGroupRunsEveryLaneAlikeOnAnyPartitioning: a ring whose nodes hand tokens on (some
// across partitions, with timers due at the same picosecond as arrivals) logs, node by node,
// exactly the same events on 1 partition as on 2, 3, 4 and 6, on one thread or several, and
// stops at the same time, the end of the grid window in which the limit was reached.
func TestGroupRunsEveryLaneAlikeOnAnyPartitioning(t *testing.T) {
	const limit = 500
	want, end, events, stopped := runRing(t, 1, 1, limit)
	require.True(t, stopped)
	require.Greater(t, events, uint64(2000))
	require.Zero(t, end%ringDelay, "the run ends at a window's end: %v", end)
	for _, c := range [][2]int{{2, 1}, {2, 2}, {3, 2}, {4, 3}, {6, 2}} {
		got, gotEnd, gotEvents, _ := runRing(t, c[0], c[1], limit)
		require.Equal(t, want, got, "%d partitions on %d threads", c[0], c[1])
		require.Equal(t, end, gotEnd)
		require.Equal(t, events, gotEvents)
	}
}

// TestGroupRunsTheWholeFabricsEventsBetweenWindows: a Global event at T runs with every
// partition at T (their events before T done, none at T yet), and the events it schedules
// in a partition at T run there before those the nodes scheduled for that time (the Global
// lane's keys come first).
func TestGroupRunsTheWholeFabricsEventsBetweenWindows(t *testing.T) {
	g := NewGroup(2, 2, Microsecond, 3)
	var log []string
	at := 1500 * Nanosecond
	node := func(name string) handlerFunc2 {
		return func(now Time, op int, _ any) { log = append(log, fmt.Sprintf("%s %v", name, now)) }
	}
	var before handlerFunc2 = func(now Time, _ int, _ any) {
		log = append(log, fmt.Sprintf("before %v", now))
		g.Part(1).AtLane(2, at, node("own"), 0, nil) // lane 2's own event at T
	}
	g.Part(1).AtLane(2, at-Nanosecond, before, 0, nil)
	var global handlerFunc2 = func(now Time, _ int, _ any) {
		require.Equal(t, at, g.Part(0).Now())
		require.Equal(t, at, g.Part(1).Now())
		log = append(log, fmt.Sprintf("global %v", now))
		g.Part(1).AtLane(2, now, node("scheduled"), 0, nil)
	}
	g.Global().At(at, global, 0, nil)
	g.Run(Never, nil)
	require.Equal(t, []string{"before 1.499us", "global 1.5us", "scheduled 1.5us", "own 1.5us"}, log)
}

// TestGroupPassesOnAPanic: a handler's panic on another goroutine reaches Run's caller, with
// the thread and the stack where it happened.
func TestGroupPassesOnAPanic(t *testing.T) {
	g := NewGroup(2, 2, Microsecond, 3)
	var boom handlerFunc2 = func(Time, int, any) { panic("boom") }
	g.Part(1).AtLane(2, 10, boom, 0, nil)
	defer func() {
		r := recover()
		require.NotNil(t, r)
		require.True(t, strings.HasPrefix(fmt.Sprint(r), "boom (thread 1)\n"), "%v", r)
		require.Contains(t, fmt.Sprint(r), "TestGroupPassesOnAPanic", "with the goroutine's stack")
	}()
	g.Run(Never, nil)
}

// TestGroupBudgetCutsAtAnExactEvent: a group of one partition stops after exactly the budget.
func TestGroupBudgetCutsAtAnExactEvent(t *testing.T) {
	g := NewGroup(1, 1, Microsecond, 2)
	n := 0
	var tick handlerFunc2
	tick = func(now Time, _ int, _ any) {
		n++
		g.Part(0).AtLane(1, now+300*Nanosecond, tick, 0, nil)
	}
	g.Part(0).AtLane(1, 0, tick, 0, nil)
	_, exhausted := g.RunBudget(Millisecond, 1000, nil)
	require.True(t, exhausted)
	require.Equal(t, 1000, n)
	require.EqualValues(t, 1000, g.Executed())
}

// TestGroupRunsAfterWindowBetweenWindows: AfterWindow's function runs once after every window,
// when each partition has handled every event of the window and none of the next: two
// partitions on two threads, each ticking every 100 ns up to 5 us in windows of 1 us, have
// ticked 10 times per window ended at each call (the race detector checks that the calls see
// the other thread's writes).
func TestGroupRunsAfterWindowBetweenWindows(t *testing.T) {
	const tick, last = 100 * Nanosecond, 5 * Microsecond
	g := NewGroup(2, 2, Microsecond, 3)
	var ticks [2]int
	for p := range 2 {
		var h handlerFunc2
		h = func(now Time, _ int, _ any) {
			ticks[p]++
			if now+tick < last {
				g.Part(p).AtLane(Lane(p+1), now+tick, h, 0, nil)
			}
		}
		g.Part(p).AtLane(Lane(p+1), 0, h, 0, nil)
	}
	var calls []string
	g.AfterWindow(func(Time) {
		calls = append(calls, fmt.Sprintf("window %d: %d %d", g.Windows(), ticks[0], ticks[1]))
	})
	g.Run(Never, nil)
	var want []string
	for w := 1; w <= int(last/Microsecond); w++ {
		want = append(want, fmt.Sprintf("window %d: %d %d", w, 10*w, 10*w))
	}
	require.Equal(t, want, calls)
}
