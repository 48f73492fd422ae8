//go:build !linux

package hugepages

// advisor does nothing outside Linux.
type advisor struct{}

func (*advisor) advise() {}
