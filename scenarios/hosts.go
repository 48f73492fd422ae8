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
}
