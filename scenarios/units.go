package scenarios

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/sim"
)

// unit is one accepted unit suffix and how many base units (bytes, bit/s, picoseconds) it is.
type unit struct {
	name string
	mult int64
}

// The unit tables, in the order the error messages list them.
var (
	sizeUnits = []unit{
		{"B", 1}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"TB", 1000_000_000_000},
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	}
	rateUnits = []unit{
		{"bps", 1}, {"Kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}, {"Tbps", 1e12},
		// The b/s spellings are accepted too; error messages list only the bps ones.
		{"b/s", 1}, {"Kb/s", 1e3}, {"Mb/s", 1e6}, {"Gb/s", 1e9}, {"Tb/s", 1e12},
	}
	durationUnits = []unit{
		{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"µs", 1e6}, {"μs", 1e6}, {"ms", 1e9}, {"s", 1e12},
	}
)

// quantity describes one kind of quantity for the shared parser and its messages.
type quantity struct {
	what    string // "size", "rate", "duration"
	base    string // what a whole base unit is called, for the "not whole" message
	units   []unit
	listed  string // the units as the messages list them
	example string
	// max is the largest value, and beyond says why in words; 0 is math.MaxInt64.
	max    int64
	beyond string
}

var (
	sizeQ = quantity{"size", "bytes", sizeUnits,
		"B, KB, MB, GB, TB, KiB, MiB, GiB, TiB", "4MB", 0, ""}
	rateQ = quantity{"rate", "bits per second", rateUnits,
		"bps, Kbps, Mbps, Gbps, Tbps", "100Gbps", 0, ""}
	durationQ = quantity{"duration", "picoseconds", durationUnits,
		"ps, ns, us (or µs), ms, s", "1us", int64(sim.MaxDuration),
		"2^60 ps, about 13.3 days (sim.MaxDuration), so that the times of a run stay within 64-bit picoseconds"}
)

// maxDigits bounds the digits of a number, so that a hostile input cannot make the exact
// arithmetic slow; 40 digits is far beyond any int64 quantity.
const maxDigits = 40

// parse reads "<decimal><optional spaces><unit>" exactly: the decimal is converted with
// integer (big) arithmetic, never through a float, and the result must be a whole number of
// base units that fits an int64.
func (q quantity) parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty %s; want a number and a unit, e.g. %s (units: %s)", q.what, q.example, q.listed)
	}
	if t[0] == '-' {
		return 0, fmt.Errorf("%s %q is negative", q.what, s)
	}
	// The number: digits, optionally '.' and more digits.
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	intDigits := t[:i]
	fracDigits := ""
	if i < len(t) && t[i] == '.' {
		j := i + 1
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		fracDigits = t[i+1 : j]
		if fracDigits == "" {
			return 0, fmt.Errorf("%s %q: want digits after the decimal point, e.g. %s", q.what, s, q.example)
		}
		i = j
	}
	if intDigits == "" {
		return 0, fmt.Errorf("%s %q does not start with a number; want e.g. %s (units: %s)", q.what, s, q.example, q.listed)
	}
	if len(intDigits)+len(fracDigits) > maxDigits {
		return 0, fmt.Errorf("%s %q has too many digits", q.what, s)
	}
	if rest := t[i:]; len(rest) > 1 && (rest[0] == 'e' || rest[0] == 'E') && strings.ContainsAny(rest[1:2], "0123456789+-") {
		return 0, fmt.Errorf("%s %q: an exponent (e%s) is not allowed; write the number out with its unit, e.g. %s (units: %s)",
			q.what, s, strings.TrimRightFunc(rest[1:], func(r rune) bool { return r < '0' || r > '9' }), q.example, q.listed)
	}
	u := strings.TrimLeft(t[i:], " ")
	if u == "" {
		if strings.Trim(intDigits+fracDigits, "0") == "" {
			return 0, nil // a bare zero needs no unit
		}
		return 0, fmt.Errorf("%s %q has no unit; write e.g. %s (units: %s); only 0 may be written without one", q.what, s, q.example, q.listed)
	}
	var mult int64
	for _, c := range q.units {
		if c.name == u {
			mult = c.mult
			break
		}
	}
	if mult == 0 {
		return 0, fmt.Errorf("%s %q: unknown unit %q (units: %s)%s", q.what, s, u, q.listed, q.suggestUnit(u))
	}
	num, ok := new(big.Int).SetString(intDigits+fracDigits, 10)
	if !ok { // cannot happen: the string is all digits
		return 0, fmt.Errorf("%s %q is not a number", q.what, s)
	}
	num.Mul(num, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(fracDigits))), nil)
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Sign() != 0 {
		return 0, fmt.Errorf("%s %q is not a whole number of %s", q.what, s, q.base)
	}
	if q.max > 0 && (!quo.IsInt64() || quo.Int64() > q.max) {
		return 0, fmt.Errorf("%s %q is too large (at most %d %s: %s)", q.what, s, q.max, q.base, q.beyond)
	}
	if !quo.IsInt64() {
		return 0, fmt.Errorf("%s %q is too large (at most %d %s)", q.what, s, int64(math.MaxInt64), q.base)
	}
	return quo.Int64(), nil
}

// suggestUnit proposes the unit the writer probably meant: a different case ("kb" -> "KB"),
// or for rates a missing "bps" ("100G" -> "Gbps").
func (q quantity) suggestUnit(u string) string {
	for _, c := range q.units {
		if strings.EqualFold(c.name, u) || (q.what == "rate" && strings.EqualFold(c.name, u+"bps")) {
			return fmt.Sprintf("; did you mean %q?", c.name)
		}
	}
	return ""
}

// ParseSize parses a size in bytes: a number and one of the units B, KB (1000 B), MB, GB,
// KiB (1024 B), MiB or GiB, e.g. "4MB", "1.5MB", "64KiB". The number may have a decimal
// fraction if the result is a whole number of bytes. A bare number is an error, except 0.
// Negative sizes and sizes beyond an int64 are errors.
func ParseSize(s string) (int64, error) { return sizeQ.parse(s) }

// ParseRate parses a data rate: a number and one of the units bps, Kbps, Mbps, Gbps or Tbps
// (the spellings b/s, Kb/s, Mb/s, Gb/s and Tb/s are accepted too), e.g. "100Gbps", "2.5Gbps".
// The result must be a whole number of bits per second. A bare number is an error, except 0;
// whether 0 is allowed is for the caller to decide (a link rate must be positive).
func ParseRate(s string) (sim.Rate, error) {
	v, err := rateQ.parse(s)
	return sim.Rate(v), err
}

// ParseDuration parses a duration: a number and one of the units ps, ns, us (or µs), ms or
// s, e.g. "500ns", "1.5us". The result must be a whole number of picoseconds, at most
// sim.MaxDuration (2^60 ps, about 13.3 days). A bare number is an error, except 0. Negative
// durations are errors.
func ParseDuration(s string) (sim.Time, error) {
	v, err := durationQ.parse(s)
	return sim.Time(v), err
}

// scalarValue returns the text of a scalar node, or an error saying what was wanted.
func scalarValue(n *yaml.Node, want string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("want %s, got %s", want, kindName(n))
	}
	return n.Value, nil
}

// kindName says in words what kind of YAML value a node is.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:37] + "..."
		}
		return fmt.Sprintf("%q", v)
	default:
		return "a document"
	}
}

// Size is a size in bytes written with a unit in the scenario file (see ParseSize).
type Size int64

// UnmarshalYAML implements yaml.Unmarshaler; errors carry the value's line and column.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	v, err := scalarValue(n, "a size such as 4MB")
	if err != nil {
		return err
	}
	b, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(b)
	return nil
}

// Rate is a data rate written with a unit in the scenario file (see ParseRate).
type Rate sim.Rate

// UnmarshalYAML implements yaml.Unmarshaler; errors carry the value's line and column.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	v, err := scalarValue(n, "a rate such as 100Gbps")
	if err != nil {
		return err
	}
	b, err := ParseRate(v)
	if err != nil {
		return err
	}
	*r = Rate(b)
	return nil
}

// Duration is a duration written with a unit in the scenario file (see ParseDuration).
type Duration sim.Time

// UnmarshalYAML implements yaml.Unmarshaler; errors carry the value's line and column.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := scalarValue(n, "a duration such as 1us")
	if err != nil {
		return err
	}
	b, err := ParseDuration(v)
	if err != nil {
		return err
	}
	*d = Duration(b)
	return nil
}

// SizeOrAuto is a PFC threshold: either "auto" (computed by the switch model from its
// buffer, ports, link rate and delay) or a size in bytes.
type SizeOrAuto struct {
	Auto  bool
	Bytes int64 // meaningful when !Auto
}

// UnmarshalYAML implements yaml.Unmarshaler; errors carry the value's line and column.
func (s *SizeOrAuto) UnmarshalYAML(n *yaml.Node) error {
	v, err := scalarValue(n, "auto or a size such as 40KB")
	if err != nil {
		return err
	}
	if strings.TrimSpace(v) == "auto" {
		*s = SizeOrAuto{Auto: true}
		return nil
	}
	b, err := ParseSize(v)
	if err != nil {
		return fmt.Errorf("want auto or a size: %w", err)
	}
	*s = SizeOrAuto{Bytes: b}
	return nil
}

// XoffSize is switch.pfc.xoff: "auto", a size in bytes, or "dynamic" (a threshold that
// follows the free shared buffer, switch.pfc.alpha).
type XoffSize struct {
	SizeOrAuto
	Dynamic bool
}

// UnmarshalYAML implements yaml.Unmarshaler; errors carry the value's line and column.
func (s *XoffSize) UnmarshalYAML(n *yaml.Node) error {
	v, err := scalarValue(n, "auto, dynamic or a size such as 40KB")
	if err != nil {
		return err
	}
	switch strings.TrimSpace(v) {
	case "dynamic":
		*s = XoffSize{Dynamic: true}
		return nil
	case "auto":
		*s = XoffSize{SizeOrAuto: SizeOrAuto{Auto: true}}
		return nil
	}
	b, err := ParseSize(v)
	if err != nil {
		return fmt.Errorf("want auto, dynamic or a size: %w", err)
	}
	*s = XoffSize{SizeOrAuto: SizeOrAuto{Bytes: b}}
	return nil
}

// String returns "dynamic", "auto" or the size in bytes.
func (s XoffSize) String() string {
	if s.Dynamic {
		return "dynamic"
	}
	return s.SizeOrAuto.String()
}

// String returns "auto" or the size in bytes, e.g. "40000B".
func (s SizeOrAuto) String() string {
	if s.Auto {
		return "auto"
	}
	return fmt.Sprintf("%dB", s.Bytes)
}

// DurationOrAuto is a time that may be left to the model: "auto" or a duration.
type DurationOrAuto struct {
	Auto bool
	Time sim.Time // meaningful when !Auto
}

// UnmarshalYAML implements yaml.Unmarshaler; errors carry the value's line and column.
func (d *DurationOrAuto) UnmarshalYAML(n *yaml.Node) error {
	v, err := scalarValue(n, "auto or a duration such as 2us")
	if err != nil {
		return err
	}
	if strings.TrimSpace(v) == "auto" {
		*d = DurationOrAuto{Auto: true}
		return nil
	}
	t, err := ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want auto or a duration: %w", err)
	}
	*d = DurationOrAuto{Time: t}
	return nil
}

// String returns "auto" or the duration.
func (d DurationOrAuto) String() string {
	if d.Auto {
		return "auto"
	}
	return d.Time.String()
}

// hostList is permutation.hosts (and poisson.hosts, a collective's hosts, ...): the word all,
// a list of host names, or, on a fabric of GPU servers, a count of GPUs and how to place
// them ({count: 16, placement: packed}; placement.go).
type hostList struct {
	All       bool
	Names     []string
	Count     int
	Placement string
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (h *hostList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value == "all" {
			*h = hostList{All: true}
			return nil
		}
	case yaml.SequenceNode:
		var names []string
		if err := n.Load(&names, yaml.WithKnownFields()); err != nil {
			return err
		}
		*h = hostList{Names: names}
		return nil
	case yaml.MappingNode:
		var p struct {
			Count     *int    `yaml:"count"`
			Placement *string `yaml:"placement"`
		}
		if err := n.Load(&p, yaml.WithKnownFields()); err != nil {
			return err
		}
		if p.Count == nil || p.Placement == nil {
			return fmt.Errorf("a placement gives count and placement, e.g. {count: 16, placement: packed} (placements: %s)", listOf(placements))
		}
		*h = hostList{Count: *p.Count, Placement: *p.Placement}
		return nil
	}
	return fmt.Errorf("want all, a list of host names or {count, placement}, got %s", kindName(n))
}
