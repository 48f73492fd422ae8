package scenarios

import (
	"reflect"

	"go.yaml.in/yaml/v4"
)

// The raw types mirror the file as written. Pointers mark the fields that have a default or
// must be told apart from zero; the resolver turns a raw file into a Scenario. Every yaml tag
// here is a field name of the file format (SPEC section 2).

type rawFile struct {
	Version     *int           `yaml:"version"`
	Name        *string        `yaml:"name"`
	Description string         `yaml:"description"`
	Seed        *uint64        `yaml:"seed"`
	Stop        *Duration      `yaml:"stop"`
	Sample      *Duration      `yaml:"sample_interval"`
	Topology    *rawTopology   `yaml:"topology"`
	Switch      *rawSwitch     `yaml:"switch"`
	Hosts       *rawHosts      `yaml:"hosts"`
	Transports  *rawTransports `yaml:"transports"`
	Traffic     []rawTraffic   `yaml:"traffic"`
	Faults      []rawFault     `yaml:"faults"`
	Variants    []rawVariant   `yaml:"variants"`
}

type rawVariant struct {
	Name      string    `yaml:"name"`
	Transport string    `yaml:"transport"`
	Set       yaml.Node `yaml:"set"` // applied to the tree before decoding, see load.go
}

type rawTopology struct {
	Preset *string    `yaml:"preset"`
	Params *rawParams `yaml:"params"`
	Nodes  []rawNode  `yaml:"nodes"`
	Links  []rawLink  `yaml:"links"`
	Routes []rawRoute `yaml:"routes"`
}

type rawParams struct {
	Hosts        *int         `yaml:"hosts"`
	Link         *rawLinkSpec `yaml:"link"`
	Left         *int         `yaml:"left"`
	Right        *int         `yaml:"right"`
	HostLink     *rawLinkSpec `yaml:"host_link"`
	Bottleneck   *rawLinkSpec `yaml:"bottleneck"`
	Leaves       *int         `yaml:"leaves"`
	Spines       *int         `yaml:"spines"`
	HostsPerLeaf *int         `yaml:"hosts_per_leaf"`
	FabricLink   *rawLinkSpec `yaml:"fabric_link"`
	K            *int         `yaml:"k"`
	Routing      *string      `yaml:"routing"`
}

type rawLinkSpec struct {
	Rate  *Rate     `yaml:"rate"`
	Delay *Duration `yaml:"delay"`
	Loss  *float64  `yaml:"loss"`
}

type rawNode struct {
	Name   string     `yaml:"name"`
	Type   string     `yaml:"type"`
	Subnet *string    `yaml:"subnet"`
	IP     *string    `yaml:"ip"`
	Layer  *int       `yaml:"layer"`
	Switch *rawSwitch `yaml:"switch"`
	Hosts  *rawHosts  `yaml:"hosts"`
}

type rawLink struct {
	Between []string  `yaml:"between"`
	Rate    *Rate     `yaml:"rate"`
	Delay   *Duration `yaml:"delay"`
	Loss    *float64  `yaml:"loss"`
}

type rawRoute struct {
	At  string `yaml:"at"`
	Dst string `yaml:"dst"`
	Via string `yaml:"via"`
}

type rawSwitch struct {
	Buffer      *Size     `yaml:"buffer"`
	BufferAlpha *float64  `yaml:"buffer_alpha"`
	Scheduler   *string   `yaml:"scheduler"`
	Weights     []int     `yaml:"weights"`
	Latency     *Duration `yaml:"latency"`
	PFC         *rawPFC   `yaml:"pfc"`
	ECN         *rawECN   `yaml:"ecn"`
}

type rawPFC struct {
	Enabled    *bool           `yaml:"enabled"`
	Priorities []int           `yaml:"priorities"`
	Xoff       *SizeOrAuto     `yaml:"xoff"`
	Xon        *SizeOrAuto     `yaml:"xon"`
	Headroom   *SizeOrAuto     `yaml:"headroom"`
	Watchdog   *Duration       `yaml:"watchdog"`
	Response   *DurationOrAuto `yaml:"response_time"`
	Quanta     *int            `yaml:"quanta"`
	Deadlock   *Duration       `yaml:"deadlock_detection"`
}

type rawECN struct {
	Enabled *bool    `yaml:"enabled"`
	Kmin    *Size    `yaml:"kmin"`
	Kmax    *Size    `yaml:"kmax"`
	Pmax    *float64 `yaml:"pmax"`
}

type rawHosts struct {
	Priority    *int      `yaml:"priority"`
	TTL         *int      `yaml:"ttl"`
	CNPPriority *int      `yaml:"cnp_priority"`
	Jitter      *Duration `yaml:"jitter"`
}

type rawTransports struct {
	RoCEv2 *rawRoCE  `yaml:"rocev2"`
	RoCEv1 *rawRoCE  `yaml:"rocev1"`
	IWARP  *rawIWARP `yaml:"iwarp"`
}

type rawRoCE struct {
	MTU               *int      `yaml:"mtu"`
	CC                *string   `yaml:"cc"`
	Recovery          *string   `yaml:"recovery"`
	RetransmitTimeout *Duration `yaml:"retransmit_timeout"`
	RetryLimit        *int      `yaml:"retry_limit"`
	AckInterval       *int      `yaml:"ack_interval"`
	DCQCN             *rawDCQCN `yaml:"dcqcn"`
}

type rawDCQCN struct {
	Mode           *string   `yaml:"mode"`
	G              *float64  `yaml:"g"`
	AlphaInit      *float64  `yaml:"alpha_init"`
	AlphaPeriod    *Duration `yaml:"alpha_period"`
	RateTimer      *Duration `yaml:"rate_timer"`
	ByteCounter    *Size     `yaml:"byte_counter"`
	F              *int      `yaml:"f"`
	RAI            *Rate     `yaml:"rai"`
	RHAI           *Rate     `yaml:"rhai"`
	Hyper          *string   `yaml:"hyper"`
	MinRate        *Rate     `yaml:"min_rate"`
	DecreasePeriod *Duration `yaml:"decrease_period"`
	CNPInterval    *Duration `yaml:"cnp_interval"`
	AlphaOnCNP     *bool     `yaml:"alpha_on_cnp"`
	NP             *string   `yaml:"np"`
	CNPPacing      *string   `yaml:"cnp_pacing"`
}

type rawIWARP struct {
	MTU           *int      `yaml:"mtu"`
	CC            *string   `yaml:"cc"`
	MinRTO        *Duration `yaml:"min_rto"`
	RTOInit       *Duration `yaml:"rto_init"`
	MaxRTO        *Duration `yaml:"max_rto"`
	Retries       *int      `yaml:"retries"`
	InitCwnd      *int      `yaml:"init_cwnd"`
	NICDelay      *Duration `yaml:"nic_delay"`
	Markers       *bool     `yaml:"markers"`
	Timestamps    *bool     `yaml:"timestamps"`
	SACK          *bool     `yaml:"sack"`
	DelayedAck    *Duration `yaml:"delayed_ack"`
	ECN           *string   `yaml:"ecn"`
	ReceiveWindow *Size     `yaml:"receive_window"`
	Handshake     *bool     `yaml:"handshake"`
}

type rawTraffic struct {
	Flow        *rawFlow        `yaml:"flow"`
	Incast      *rawIncast      `yaml:"incast"`
	Permutation *rawPermutation `yaml:"permutation"`
	Poisson     *rawPoisson     `yaml:"poisson"`
}

type rawFlow struct {
	Src       string    `yaml:"src"`
	Dst       string    `yaml:"dst"`
	Size      *Size     `yaml:"size"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
}

type rawIncast struct {
	Senders   []string  `yaml:"senders"`
	Receiver  string    `yaml:"receiver"`
	Size      *Size     `yaml:"size"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
}

type rawPermutation struct {
	Hosts     *hostList `yaml:"hosts"`
	Size      *Size     `yaml:"size"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
}

// rawPoisson is parsed so that its fields are checked, then rejected: not supported yet.
type rawPoisson struct {
	Hosts     *hostList `yaml:"hosts"`
	Load      *float64  `yaml:"load"`
	Workload  string    `yaml:"workload"`
	Count     *int      `yaml:"count"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
}

type rawFault struct {
	At        *Duration    `yaml:"at"`
	Until     *Duration    `yaml:"until"`
	Link      []string     `yaml:"link"`
	State     *string      `yaml:"state"`
	Loss      *float64     `yaml:"loss"`
	DropEvery *int         `yaml:"drop_every"`
	PFCStorm  *rawPFCStorm `yaml:"pfc_storm"`
	Pause     *rawPause    `yaml:"pause"`
}

type rawPFCStorm struct {
	Node     string `yaml:"node"`
	Priority *int   `yaml:"priority"`
}

type rawPause struct {
	Node     string `yaml:"node"`
	Port     *int   `yaml:"port"`
	Priority *int   `yaml:"priority"`
	Quanta   *int   `yaml:"quanta"`
}

// rawTypes maps the type names the yaml library prints ("scenarios.rawSwitch") to the types,
// so that an unknown-field error can list the valid fields, and to the section name used in
// messages.
var rawTypes = func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for _, v := range []any{
		rawFile{}, rawVariant{}, rawTopology{}, rawParams{}, rawLinkSpec{}, rawNode{},
		rawLink{}, rawRoute{}, rawSwitch{}, rawPFC{}, rawECN{}, rawHosts{}, rawTransports{},
		rawRoCE{}, rawDCQCN{}, rawIWARP{}, rawTraffic{}, rawFlow{}, rawIncast{}, rawPermutation{},
		rawPoisson{}, rawFault{}, rawPFCStorm{}, rawPause{},
	} {
		t := reflect.TypeOf(v)
		m[t.String()] = t
	}
	return m
}()
