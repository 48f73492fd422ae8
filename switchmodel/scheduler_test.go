package switchmodel

import (
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"

	"github.com/fabricsim/fabricsim/topology"
)

// dwrrCase is a random DWRR port: weights, which queues stay backlogged, and frame sizes
// from 64 bytes to one quantum.
type dwrrCase struct {
	Weights    [NumPriorities]int
	Backlogged [NumPriorities]bool
	Seed       int64
}

// Generate implements quick.Generator: at least two backlogged queues with positive weights.
func (dwrrCase) Generate(r *rand.Rand, _ int) reflect.Value {
	var c dwrrCase
	for i := range c.Weights {
		c.Weights[i] = r.Intn(9)
		c.Backlogged[i] = r.Intn(3) > 0
	}
	for _, i := range r.Perm(NumPriorities)[:2] {
		c.Weights[i] = max(c.Weights[i], 1)
		c.Backlogged[i] = true
	}
	c.Seed = r.Int63()
	return reflect.ValueOf(c)
}

// TestDWRRSharesMatchReference checks the DWRR scheduler against the simple reference of
// Shreedhar and Varghese (1995): after k full rounds among queues that stay backlogged,
// queue i has sent k x weight_i x quantum bytes, less what is left of its deficit, which is
// under one frame, so never more than one quantum: the long-run byte shares are the
// weights' shares. A round ends when the scheduler comes back to a lower queue index.
func TestDWRRSharesMatchReference(t *testing.T) {
	check := func(c dwrrCase) bool {
		pool := &topology.Pool{}
		sw := &Switch{cfg: Config{Scheduler: DWRR, Weights: c.Weights}}
		pt := &Port{sw: sw}
		rng := rand.New(rand.NewSource(c.Seed))
		push := func(q int) {
			p := pool.Get(topology.KindData)
			p.Frame = int32(64 + rng.Intn(DWRRQuantum-64+1))
			pt.Queues[q].Push(0, p)
		}
		for q, b := range c.Backlogged {
			if b {
				push(q)
			}
		}
		var sent [NumPriorities]int64
		rounds, last := 0, -1
		for range 20_000 {
			q := pt.next(0)
			if q < 0 || !c.Backlogged[q] || c.Weights[q] == 0 {
				t.Logf("%+v: served queue %d", c, q)
				return false
			}
			if q < last { // a round is over: every queue has had exactly `rounds` visits
				rounds++
				for i := range sent {
					ideal := int64(rounds * c.Weights[i] * DWRRQuantum)
					if !c.Backlogged[i] {
						ideal = 0
					}
					if d := ideal - sent[i]; d < 0 || d >= DWRRQuantum {
						t.Logf("%+v: after %d rounds queue %d sent %d bytes, reference %d", c, rounds, i, sent[i], ideal)
						return false
					}
				}
			}
			last = q
			p := pt.Queues[q].Pop(0)
			sent[q] += int64(p.Frame)
			pool.Deliver(p)
			push(q)
		}
		return rounds > 0
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}
