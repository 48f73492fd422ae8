package transports

// Congestion states of the sender (Linux's names).
type ccState uint8

const (
	ccOpen     ccState = iota // no loss outstanding: slow start or congestion avoidance
	ccRecovery                // fast recovery (RFC 6675, or NewReno without SACK) until recoverAt
	ccLoss                    // after an RTO: slow start from one segment, resending until recoverAt
)
