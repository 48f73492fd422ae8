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
	// A switch's ports are one array (New). Go's allocator puts an object of more than 1,024
	// bytes at a multiple of its size class from a page boundary, and those size classes
	// are multiples of 128 bytes: the array, and with a whole number of lines a port, starts
	// on a line. An odd number of lines spreads the same line of consecutive ports over
	// every cache set; at an even number they share half the sets or fewer (at 28 lines, as
	// the fields round to, a quarter). A field added or removed changes Port's size: adjust
	// its pad to the next odd number of lines.
	size := unsafe.Sizeof(pt)
	require.Greater(t, size, uintptr(1024), "a port alone is more than 1,024 bytes, so is any switch's array")
	require.Zero(t, size%64, "a port is a whole number of lines: %d bytes", size)
	require.Equal(t, uintptr(1), size/64%2, "a port is an odd number of lines: %d bytes, %d lines", size, size/64)
}
