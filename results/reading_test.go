package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadingComesFromTheNumbers(t *testing.T) {
	lossless := Variant{Name: "PFC", SimTimeUS: 2000, PFC: PFC{PauseFrames: 10, PausedTimeUS: 123.4},
		PerFlow: []Flow{completed(1, 0, 1000, 2_000_000, 0), completed(2, 1500, 1540, 16_000, 0)}}
	lossy := Variant{Name: "lossy", SimTimeUS: 5000, Drops: Drops{ByReason: ByReason{Buffer: 500}},
		PerFlow: []Flow{completed(1, 0, 3000, 2_000_000, 0), completed(2, 0, 2500, 16_000, 0)}}
	lossy.PerFlow[0].RetransmittedPackets, lossy.PerFlow[0].Timeouts = 700, 1
	v1 := Variant{Name: "v1", SimTimeUS: 100, PerFlow: []Flow{completed(1, 0, 4, 16_000, 0),
		unfinished(2, StatusUnroutable, 0, 2_000_000, 0)}}
	d := &Document{Scenario: "s", Variants: []Variant{lossless, lossy, v1}}
	for i := range d.Variants {
		Summarize(&d.Variants[i])
	}
	got := Reading(d, "my.yaml")
	require.Equal(t, []string{
		"All flows done first with PFC (the last at 1540.00 us); last with lossy (at 3000.00 us, 1.9x as late).",
		"v1 could not route 1 of its 2 flows (the note above says why).",
		"lossy dropped 500 packets and resent 700 (1 timeout); lossless, paused in all: PFC 123.40 us.",
		"Short flows (up to 100 KB): p99 FCT 40.00 us with PFC, 2500.00 us with lossy.",
		"Why, in words: fabricsim explain my.yaml",
	}, got, "v1's 4 us short flow is left out: its long flow never ran")
	require.Nil(t, Reading(&Document{Variants: d.Variants[:1]}, "x"), "nothing to compare")
}
