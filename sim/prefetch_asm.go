//go:build amd64 || arm64

package sim

import "unsafe"

// Prefetch asks the CPU to start bringing the cache line at p into its caches, and returns
// without waiting for it (PREFETCHT0 on amd64, PRFM PLDL1KEEP on arm64). It never faults,
// whatever p is. Go has no prefetch of its own outside the runtime.
//
//go:noescape
func Prefetch(p unsafe.Pointer)
