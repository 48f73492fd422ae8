package experiment

// The DCQCN fluid model of Zhu et al., CoNEXT 2016 (equations (1)-(5), docs/model.md section
// 7) integrated in time, delay and all: what the model itself says about the stability of a
// loop whose feedback is late by the notification point's wait.

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

// fluidRun integrates the symmetric fluid model (N identical flows sharing capacity c) with
// feedback delay tauStar for d, from every flow at line rate with alpha 1, in steps of dt,
// and returns the queue's time-mean (bytes) and coefficient of variation over the second
// half. Counted as fluidPStar counts: packets of pktBits, byte counter in packets of
// counterBytes, RED marking on the queue in bytes (wire bytes of pktBits/8 per packet).
//
//	dalpha/dt = g/tau' ((1 - (1-p')^(tau' R_C')) - alpha)
//	dR_T/dt  = -(R_T - R_C)/tau (1 - (1-p')^(tau R_C')) + R_AI R_C' (c + e)
//	dR_C/dt  = -R_C alpha/(2 tau) (1 - (1-p')^(tau R_C')) + (R_T - R_C)/2 R_C' (b + d)
//	dq/dt    = N R_C - C
//
// with ' for a value tauStar ago and b, c, d, e as in fluidPStar.
func fluidRun(c sim.Rate, n int, tauStar, d, dt sim.Time, pktBits, counterBytes float64) (mean, cv float64) {
	pp := paperDCQCN
	C := float64(c) / pktBits
	rai := float64(pp.rai) / pktBits
	B := float64(pp.byteCounter) / counterBytes
	tau, tauP, T := pp.tau.Seconds(), pp.tauP.Seconds(), pp.timer.Seconds()
	F, g := float64(pp.f), 1.0/256
	h := dt.Seconds()
	pow := func(p, x float64) float64 { return math.Exp(x * math.Log1p(-p)) }
	inv := func(p, x float64) float64 { return math.Expm1(-x * math.Log1p(-p)) }
	mark := func(qBytes float64) float64 {
		switch {
		case qBytes <= float64(pp.kmin):
			return 0
		case qBytes > float64(pp.kmax):
			return 1
		}
		return (qBytes - float64(pp.kmin)) / float64(pp.kmax-pp.kmin) * pp.pmax
	}
	lag := int(tauStar / dt)
	histP := make([]float64, lag+1)
	histR := make([]float64, lag+1)
	rc, rt, alpha, q := C, C, 1.0, 0.0
	for i := range histR {
		histR[i] = rc
	}
	steps := int(d / dt)
	var s, s2 float64
	k := 0
	for i := 0; i < steps; i++ {
		j := i % (lag + 1) // the oldest entry: tauStar ago
		p, r := histP[j], histR[j]
		qb := q * pktBits / 8
		histP[j], histR[j] = mark(qb), rc
		// rbd and rce are R_C' (b + d) and R_C' (c + e): the rates of increase events, per
		// second, finite also as R_C' -> 0 (where d -> infinity).
		var a, aP, rbd, rce float64
		if p > 0 {
			p = math.Min(p, 1-1e-12)
			a, aP = 1-pow(p, tau*r), 1-pow(p, tauP*r)
			rb := r * p / inv(p, B)
			rd := p / (T * -math.Log1p(-p)) // the limit as R_C' -> 0
			if x := inv(p, T*r); x > 0 {
				rd = r * p / x
			}
			rbd, rce = rb+rd, pow(p, F*B)*rb+pow(p, F*T*r)*rd
		} else {
			// No marks: the increase events come at R/B and 1/T per second, the limits of
			// R b and R d (and of R c and R e) as p -> 0.
			rbd = r/B + 1/T
			rce = rbd
		}
		dAlpha := g / tauP * (aP - alpha)
		dRT := -(rt-rc)/tau*a + rai*rce
		dRC := -rc*alpha/(2*tau)*a + (rt-rc)/2*rbd
		alpha += h * dAlpha
		rt = math.Min(rt+h*dRT, C)
		rc = math.Min(math.Max(rc+h*dRC, 0), C)
		q = math.Max(q+h*(float64(n)*rc-C), 0)
		if i >= steps/2 {
			s += qb
			s2 += qb * qb
			k++
		}
	}
	mean = s / float64(k)
	return mean, math.Sqrt(math.Max(s2/float64(k)-mean*mean, 0)) / mean
}

func TestDCQCNFluidModelSettlesAtItsFixedPoint(t *testing.T) {
	// With the loop's own delay (about 4 us on the 40 Gb/s dumbbell) the integrated model
	// settles at Theorem 1's q*: the check that the integration is the model.
	c := 40 * sim.Gbps
	for _, n := range []int{2, 10} {
		qStar := fluidQStar(fluidPStar(c, n, 8*middleWire, middleFrame))
		mean, cv := fluidRun(c, n, 4*sim.Microsecond, 150*sim.Millisecond, 20*sim.Nanosecond, 8*middleWire, middleFrame)
		t.Logf("N=%d tau*=4us: mean %.1f KB (q* %.1f KB), CV %.3f", n, mean/1e3, qStar/1e3, cv)
		require.InEpsilon(t, qStar, mean, 0.05)
		require.Less(t, cv, 0.05, "settled")
	}
}

func BenchmarkDCQCNFluidDelay(b *testing.B) {
	// The model with more feedback delay: the window notification point makes a mark wait
	// up to tau = 50 us (25 us on average) for its window's end. Measured: N = 2, 4, 10 stay
	// at q* with no oscillation up to tau* = 54 us; at 85 us N = 4 (CV 0.74) and N = 10
	// (time-mean 55.7 KB, -59%, CV 1.43) swing.
	c := 40 * sim.Gbps
	for range b.N {
		for _, n := range []int{10, 4, 2} {
			qStar := fluidQStar(fluidPStar(c, n, 8*middleWire, middleFrame))
			for _, ts := range []sim.Time{4, 15, 29, 54, 85} {
				mean, cv := fluidRun(c, n, ts*sim.Microsecond, 200*sim.Millisecond, 10*sim.Nanosecond, 8*middleWire, middleFrame)
				b.Logf("N=%2d tau*=%2d us: mean %6.1f KB (q* %6.1f KB, %+4.0f%%), CV %.2f", n, ts, mean/1e3, qStar/1e3, 100*(mean/qStar-1), cv)
			}
		}
	}
}
