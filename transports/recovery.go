package transports

// Congestion states of the sender (Linux's names).
type caState uint8

const (
	caOpen     caState = iota // no loss outstanding: slow start or congestion avoidance
	caRecovery                // fast recovery (RFC 6675, or NewReno without SACK) until recoverAt
	caLoss                    // after an RTO: slow start from one segment, resending until recoverAt
)
