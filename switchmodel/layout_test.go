package switchmodel

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
)

// A frame through a port reads the port's first line, its class's queue (one line) and the
// PFC accounting of its class on its ingress port (one line): these fail when a field added
// in the wrong place moves one of them across a line (docs/performance.md).
func TestPortLayoutKeepsAFrameToOneLinePerPart(t *testing.T) {
	var pt Port
	require.Equal(t, uintptr(64), unsafe.Offsetof(pt.Queues), "the fields every frame uses fill the first line")
	require.Zero(t, unsafe.Offsetof(pt.portPFC)%64, "the ingress accounting starts on a line")
	require.Equal(t, uintptr(64), unsafe.Sizeof(pfc.Ingress{}), "one class's accounting is one line")
	// Go's allocator puts an object of more than 1,024 bytes at a multiple of its size class
	// from a page boundary, and those size classes are multiples of 128 bytes: a port starts
	// on a line.
	require.Greater(t, unsafe.Sizeof(pt), uintptr(1024))
}
