package scenarios

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func TestParseSize(t *testing.T) {
	valid := []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"0MB", 0}, {"1B", 1}, {"4MB", 4_000_000}, {"1.5MB", 1_500_000},
		{"64KiB", 65536}, {"1 KB", 1000}, {"0.5KiB", 512}, {"1GiB", 1 << 30}, {"32MB", 32_000_000},
		{"2.25KB", 2250}, {" 7GB ", 7_000_000_000}, {"9223372036854775807B", 9223372036854775807},
	}
	for _, c := range valid {
		got, err := ParseSize(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	invalid := []struct{ in, msg string }{
		{"", "empty size"},
		{"100", "has no unit"},
		{"1.5", "has no unit"},
		{"-1MB", "negative"},
		{"1.5B", "not a whole number of bytes"},
		{"0.0001KB", "not a whole number"},
		{"4kb", `did you mean "KB"`},
		{"4Mb", `did you mean "MB"`},
		{"4 parsecs", `unknown unit "parsecs"`},
		{"MB", "does not start with a number"},
		{"1.MB", "digits after the decimal point"},
		{"1e6B", `size "1e6B": an exponent (e6) is not allowed; write the number out with its unit, e.g. 4MB`},
		{"1e+30B", "an exponent (e+30) is not allowed"},
		{"1eB", "unknown unit"},
		{"1..5MB", "digits after the decimal point"},
		{"9999999999999GB", "too large"},
		{"9223372036854775808B", "too large"},
		{"1234567890123456789012345678901234567890123MB", "too many digits"},
	}
	for _, c := range invalid {
		_, err := ParseSize(c.in)
		require.Error(t, err, c.in)
		require.Contains(t, err.Error(), c.msg, c.in)
	}
	_, err := ParseSize("4kb")
	require.Contains(t, err.Error(), "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB", "the message lists the allowed units")
}

func TestParseRate(t *testing.T) {
	valid := []struct {
		in   string
		want sim.Rate
	}{
		{"0", 0}, {"100Gbps", 100 * sim.Gbps}, {"2.5Gbps", 2_500_000_000}, {"1Tbps", sim.Tbps},
		{"10Gb/s", 10 * sim.Gbps}, {"1bps", 1}, {"1.5Kbps", 1500}, {"400 Gbps", 400 * sim.Gbps},
		{"25Mbps", 25 * sim.Mbps},
	}
	for _, c := range valid {
		got, err := ParseRate(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	invalid := []struct{ in, msg string }{
		{"100", "has no unit"},
		{"100G", `did you mean "Gbps"`},
		{"100gbps", `did you mean "Gbps"`},
		{"100GB/s", `did you mean "Gb/s"`},
		{"1.5bps", "not a whole number of bits per second"},
		{"-1Gbps", "negative"},
		{"10000000Tbps", "too large"},
		{"fast", "does not start with a number"},
	}
	for _, c := range invalid {
		_, err := ParseRate(c.in)
		require.Error(t, err, c.in)
		require.Contains(t, err.Error(), c.msg, c.in)
	}
}

func TestParseDuration(t *testing.T) {
	valid := []struct {
		in   string
		want sim.Time
	}{
		{"0", 0}, {"0.0", 0}, {"1ps", 1}, {"500ns", 500 * sim.Nanosecond}, {"1.5us", 1_500_000},
		{"1µs", sim.Microsecond}, {"1μs", sim.Microsecond}, {"2s", 2 * sim.Second},
		{"1.048576ms", 1_048_576_000}, {"0.000001s", sim.Microsecond}, {"100ms", 100 * sim.Millisecond},
		{"0.001ns", 1},
	}
	for _, c := range valid {
		got, err := ParseDuration(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	invalid := []struct{ in, msg string }{
		{"1", "has no unit"},
		{"1.5ps", "not a whole number of picoseconds"},
		{"0.0001ns", "not a whole number of picoseconds"},
		{"-1us", "negative"},
		{"1h", `unknown unit "h"`},
		{"200000000s", "too large"},
		{"1 000us", "unknown unit"},
	}
	for _, c := range invalid {
		_, err := ParseDuration(c.in)
		require.Error(t, err, c.in)
		require.Contains(t, err.Error(), c.msg, c.in)
	}
}

func TestSizeOrAuto(t *testing.T) {
	f, errs, _ := loadYAML(t, starScenario+`
switch:
  pfc: {xoff: 40KB, xon: auto}
`)
	require.Empty(t, errs)
	pfc := f.Scenario(0).Switch.PFC
	require.Equal(t, XoffSize{SizeOrAuto: SizeOrAuto{Bytes: 40_000}}, pfc.Xoff)
	require.Equal(t, SizeOrAuto{Auto: true}, pfc.Xon)
	require.Equal(t, "auto", pfc.Headroom.String())
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "4MB", "1.5MB", "64KiB", "100", "-1B", "1e6B", "9223372036854775807B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, v, int64(0))
		back, err := ParseSize(fmt.Sprintf("%dB", v))
		require.NoError(t, err)
		require.Equal(t, v, back)
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"0", "100Gbps", "2.5Gbps", "10Gb/s", "100", "1.5bps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, v, sim.Rate(0))
		back, err := ParseRate(fmt.Sprintf("%dbps", int64(v)))
		require.NoError(t, err)
		require.Equal(t, v, back)
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "1.5us", "500ns", "1µs", "2s", "1", "1.5ps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDuration(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, v, sim.Time(0))
		back, err := ParseDuration(fmt.Sprintf("%dps", int64(v)))
		require.NoError(t, err)
		require.Equal(t, v, back)
	})
}
