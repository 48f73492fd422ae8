package scenarios

import (
	"reflect"

	"go.yaml.in/yaml/v4"
)

// The raw types mirror the file as written, except the settings blocks (switch, hosts,
// transports), which are kept as nodes and decoded by their declarations (settings.go).
// Pointers mark the fields that have a default or must be told apart from zero; the resolver
// turns a raw file into a Scenario. Every yaml tag here is a field name of the file format
// (the package documentation lists them).

type rawFile struct {
	Version     *int         `yaml:"version"`
	Name        *string      `yaml:"name"`
	Description string       `yaml:"description"`
	Seed        *uint64      `yaml:"seed"`
	Seeds       []uint64     `yaml:"seeds"`
	Stop        *Duration    `yaml:"stop"`
	Sample      *Duration    `yaml:"sample_interval"`
	Topology    *rawTopology `yaml:"topology"`
	Switch      yaml.Node    `yaml:"switch"`
	Hosts       yaml.Node    `yaml:"hosts"`
	Transports  yaml.Node    `yaml:"transports"`
	Traffic     []rawTraffic `yaml:"traffic"`
	Faults      []rawFault   `yaml:"faults"`
	Variants    []rawVariant `yaml:"variants"`
	Sweep       yaml.Node    `yaml:"sweep"` // read by sweepAxes (sweep.go)
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
	// Servers group an explicit topology's hosts into GPU servers (docs/model.md section 15).
	Servers []rawServer `yaml:"servers"`
}

type rawServer struct {
	Name          string   `yaml:"name"`
	GPUs          []string `yaml:"gpus"`
	ScaleupDomain *string  `yaml:"scaleup_domain"`
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
	// rail (and planes on leafspine and fattree)
	Stripes           *int         `yaml:"stripes"`
	ServersPerStripe  *int         `yaml:"servers_per_stripe"`
	GPUsPerServer     *int         `yaml:"gpus_per_server"`
	ServersPerScaleup *int         `yaml:"servers_per_scaleup"`
	Planes            *int         `yaml:"planes"`
	NICLink           *rawLinkSpec `yaml:"nic_link"`
	ScaleUp           *rawLinkSpec `yaml:"scaleup"`
	PCIe              *rawLinkSpec `yaml:"pcie"`
}

type rawLinkSpec struct {
	Rate  *Rate     `yaml:"rate"`
	Delay *Duration `yaml:"delay"`
	Loss  *float64  `yaml:"loss"`
}

type rawNode struct {
	Name   string    `yaml:"name"`
	Type   string    `yaml:"type"`
	Subnet *string   `yaml:"subnet"`
	IP     *string   `yaml:"ip"`
	Layer  *int      `yaml:"layer"`
	Switch yaml.Node `yaml:"switch"` // decoded by the resolver over the global switch block
	Hosts  yaml.Node `yaml:"hosts"`  // decoded by the resolver over the global hosts block
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

type rawTraffic struct {
	Flow        *rawFlow        `yaml:"flow"`
	Incast      *rawIncast      `yaml:"incast"`
	Permutation *rawPermutation `yaml:"permutation"`
	Poisson     *rawPoisson     `yaml:"poisson"`
	AllToAll    *rawAllToAll    `yaml:"all_to_all"`
	Collective  *rawCollective  `yaml:"collective"`
	Chakra      *rawChakra      `yaml:"chakra"`
}

// label is the item's label field, whatever its kind; nil when it gives none. A new traffic
// kind adds its block here, so that every kind's label is checked in one place (itemLabel).
func (t *rawTraffic) label() *string {
	switch {
	case t.Flow != nil:
		return t.Flow.Label
	case t.Incast != nil:
		return t.Incast.Label
	case t.Permutation != nil:
		return t.Permutation.Label
	case t.Poisson != nil:
		return t.Poisson.Label
	case t.AllToAll != nil:
		return t.AllToAll.Label
	case t.Collective != nil:
		return t.Collective.Label
	case t.Chakra != nil:
		return t.Chakra.Label
	}
	return nil
}

type rawFlow struct {
	Src       string    `yaml:"src"`
	Dst       string    `yaml:"dst"`
	Size      *Size     `yaml:"size"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
	Label     *string   `yaml:"label"`
}

type rawIncast struct {
	Senders   []string   `yaml:"senders"`
	Receiver  string     `yaml:"receiver"`
	Size      *Size      `yaml:"size"`
	Start     *Duration  `yaml:"start"`
	Transport string     `yaml:"transport"`
	Priority  *int       `yaml:"priority"`
	Rate      *Rate      `yaml:"rate"`
	Repeat    *rawRepeat `yaml:"repeat"`
	Label     *string    `yaml:"label"`
}

type rawRepeat struct {
	Every *Duration `yaml:"every"`
	Count *int      `yaml:"count"`
}

type rawPermutation struct {
	Hosts     *hostList `yaml:"hosts"`
	Size      *Size     `yaml:"size"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
	Label     *string   `yaml:"label"`
}

type rawPoisson struct {
	Hosts     *hostList `yaml:"hosts"`
	Load      *float64  `yaml:"load"`
	Workload  string    `yaml:"workload"`
	Count     *int      `yaml:"count"`
	Start     *Duration `yaml:"start"`
	Stop      *Duration `yaml:"stop"`
	Dst       *hostList `yaml:"dst"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
	Label     *string   `yaml:"label"`
}

type rawAllToAll struct {
	Hosts     *hostList `yaml:"hosts"`
	Size      *Size     `yaml:"size"`
	Start     *Duration `yaml:"start"`
	Transport string    `yaml:"transport"`
	Priority  *int      `yaml:"priority"`
	Rate      *Rate     `yaml:"rate"`
	Label     *string   `yaml:"label"`
}

type rawCollective struct {
	Op         string    `yaml:"op"`
	Algorithm  string    `yaml:"algorithm"`
	Hosts      *hostList `yaml:"hosts"`
	Size       *Size     `yaml:"size"`
	Chunk      *Size     `yaml:"chunk"`
	Start      *Duration `yaml:"start"`
	Iterations *int      `yaml:"iterations"`
	Compute    *Duration `yaml:"compute"`
	Channels   *int      `yaml:"channels"`
	Transport  string    `yaml:"transport"`
	Priority   *int      `yaml:"priority"`
	Label      *string   `yaml:"label"`
	Skew       *rawSkew  `yaml:"skew"`
	MoE        *rawMoE   `yaml:"moe"`
	// ReleaseLatency is the time from a message's last input arriving at its sender to its
	// posting; PXN overrides hosts.pxn for the job.
	ReleaseLatency *Duration `yaml:"release_latency"`
	PXN            *bool     `yaml:"pxn"`
}

// rawSkew is a collective's skew block (all_to_all): dist uniform or zipf, s Zipf's exponent.
type rawSkew struct {
	Dist string   `yaml:"dist"`
	S    *float64 `yaml:"s"`
}

// rawMoE is a collective's moe block (all_to_all): the dispatch's and the combine's element
// sizes in bits.
type rawMoE struct {
	DispatchBits *int `yaml:"dispatch_bits"`
	CombineBits  *int `yaml:"combine_bits"`
}

type rawChakra struct {
	Traces    *traceList `yaml:"traces"`
	Hosts     *hostList  `yaml:"hosts"`
	Algorithm string     `yaml:"algorithm"`
	Start     *Duration  `yaml:"start"`
	Channels  *int       `yaml:"channels"`
	Transport string     `yaml:"transport"`
	Priority  *int       `yaml:"priority"`
	Label     *string    `yaml:"label"`
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
		rawLink{}, rawRoute{}, rawServer{}, rawTraffic{}, rawFlow{}, rawIncast{}, rawPermutation{},
		rawPoisson{}, rawAllToAll{}, rawCollective{}, rawSkew{}, rawMoE{}, rawChakra{}, rawRepeat{}, rawFault{}, rawPFCStorm{}, rawPause{},
	} {
		t := reflect.TypeOf(v)
		m[t.String()] = t
	}
	return m
}()
