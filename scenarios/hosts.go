package scenarios

import "github.com/fabricsim/fabricsim/sim"

// HostConfig configures host NICs: the file's hosts block, or a host's own (applied over the
// global one). Each field's key, default, limits and documentation are in its tags (see
// settings.go).
type HostConfig struct {
	Priority    int `yaml:"priority" default:"3" min:"0" max:"7" doc:"the traffic class of RDMA data unless a flow says otherwise"`
	TTL         int `yaml:"ttl" default:"64" min:"1" max:"255" doc:"the initial IP TTL (the usual one)"`
	CNPPriority int `yaml:"cnp_priority" default:"6" min:"0" max:"7" doc:"the traffic class of the CNPs a host sends (NVIDIA's CNP_802P_PRIO; CNP_DSCP 48)"`
	// Jitter, when positive, delays each frame a host sends by a random time in [0, Jitter).
	Jitter sim.Time `yaml:"jitter" default:"0" min:"0" max:"1us" means:"a random extra delay per frame, kept below one minimum frame time" doc:"a random delay in [0, jitter) for each frame a host sends, at most one minimum frame time at the host's link rate, so a host's frames stay in order; it breaks the lock-step phase effects of identical senders at drop-tail queues (Floyd and Jacobson, 1992)"`
	// PXN and PlaneSpread are how a GPU of the rail preset, or a host with several planes,
	// chooses the port a flow leaves by (topology.Routes.HostPort).
	PXN         bool   `yaml:"pxn" default:"true" doc:"NCCL 2.12's PXN: to another rail's GPU in another domain, via the scale-up domain"`
	PlaneSpread string `yaml:"plane_spread" default:"qp" oneof:"qp,flow,packet" what:"plane spread" doc:"a plane per queue pair or flow (by hash), or per frame (MRC)"`
}
