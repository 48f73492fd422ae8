//go:build !amd64 && !arm64

package sim

import "unsafe"

// Prefetch does nothing on this architecture (see prefetch_asm.go).
func Prefetch(unsafe.Pointer) {}
