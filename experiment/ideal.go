package experiment

import "github.com/fabricsim/fabricsim/transports"

// train is the packet train of a message of size bytes on the named transport, each
// transport's own (transports.PacketTrain).
func (st *flowStarter) train(transport string, size int64) transports.PacketTrain {
	switch transport {
	case "uet":
		return st.uc.Train(size)
	case "iwarp":
		return st.ic.Train(size)
	}
	return st.configs[transport].Train(size)
}
