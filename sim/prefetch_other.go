//go:build !amd64 && !arm64

package sim

import "unsafe"

// prefetch does nothing on this architecture (see prefetch_asm.go).
func prefetch(unsafe.Pointer) {}
