package results

// sampleDoc is a two-variant document: a lossless run where everything completed (with a
// deadlock reported) and a lossy run with an incomplete flow, an unroutable flow and a
// warning. Both are summarised.
func sampleDoc() *Document {
	lossless := Variant{
		Name: "RoCEv2 + PFC", Transport: "rocev2", SimTimeUS: 812.4, WallSeconds: 0.21,
		Events: 1234567, PacketHops: 345678,
		PFC:       PFC{PauseFrames: 12, ResumeFrames: 11, PausedTimeUS: 33.25},
		ECN:       ECN{MarkedPackets: 40, CNPs: 9},
		Deadlocks: []Deadlock{{AtUS: 12.3, Cycle: []string{"sw1:2", "sw2:1"}}},
		Queues: []Queue{{Node: "sw", Port: 3, Peer: "h5", Priority: 3, MeanBytes: 1500.5,
			P99Bytes: 9000, MaxBytes: 12000}},
		Links: []Link{{From: "sw", To: "h5", Utilization: 0.93, Packets: 4000}},
		PerFlow: []Flow{
			completed(1, 0, 350.2, 4000000, 1.1),
			completed(2, 0, 400, 4000000, 1.25),
		},
	}
	lossy := Variant{
		Name: "RoCEv2 lossy", Transport: "rocev2", SimTimeUS: 1000, WallSeconds: 0.3,
		Drops:    Drops{ByReason: ByReason{Buffer: 17}},
		Warnings: []string{"2 headroom drops on lossless class 3"},
		PerFlow: []Flow{
			completed(1, 0, 500, 4000000, 1.6),
			unfinished(2, StatusIncomplete, 0, 4000000, 1000000),
			{ID: 3, Src: "h1", Dst: "h9", Transport: "rocev1", Priority: 3, SizeBytes: 1000,
				Status: StatusUnroutable, Reason: "RoCE v1 cannot cross router r1"},
		},
	}
	lossy.PerFlow[0].Group, lossy.PerFlow[1].Group, lossy.PerFlow[2].Group = "incast 0", "incast 0", "flow 1"
	lossy.PerFlow[0].RetransmittedPackets = 5
	lossy.PerFlow[0].Timeouts, lossy.PerFlow[0].NAKs, lossy.PerFlow[0].CNPs = 2, 3, 4
	d := &Document{Scenario: "incast-pfc", Seed: 1, Version: "fabricsim 0.1.0",
		Variants: []Variant{lossless, lossy}}
	for i := range d.Variants {
		Summarize(&d.Variants[i])
	}
	return d
}
