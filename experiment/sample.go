package experiment

import (
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
)

// sampler records the time series every interval: each running flow's rate limit and
// delivered bytes, and the depth of each switch queue that has ever held a frame (zeros
// included, so that a plot or a mean over the samples is right).
type sampler struct {
	f        *fabric
	interval sim.Time
	series   results.Series
}

func (f *fabric) startSampler() {
	s := &sampler{f: f, interval: f.sc.SampleInterval}
	f.sampler = s
	f.eng.At(s.interval, s, 0, nil)
}

// Handle implements sim.Handler: one sample.
func (s *sampler) Handle(now sim.Time, _ int, _ any) {
	f := s.f
	t := now.Microseconds()
	for i, fl := range f.reg.Flows {
		if fl.Start > now || fl.Status != transports.Pending {
			continue
		}
		r := f.reg.RateOf(int32(i))
		if r == 0 {
			r = f.nics[fl.Src].Wire.Params.Rate
		}
		s.series.Rates = append(s.series.Rates, results.RateSample{TimeUS: t, Flow: fl.ID, RateGbps: r.Gbps(), DeliveredBytes: fl.Delivered})
	}
	for _, sw := range f.switches {
		for _, pt := range sw.Ports {
			for c := range pt.Queues {
				if q := &pt.Queues[c]; q.Depth.Used {
					s.series.Queues = append(s.series.Queues, results.QueueSample{TimeUS: t, Node: sw.Name, Port: pt.Index + 1, Priority: c, Bytes: q.Bytes})
				}
			}
		}
	}
	f.eng.At(now+s.interval, s, 0, nil)
}
