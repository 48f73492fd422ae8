package topology

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The datapath's structures are laid out so that a frame touches as few cache lines as it
// can (docs/performance.md): these tests fail when a field added in the wrong place moves a
// hot field off its line.
func TestWireFramePathIsOneCacheLine(t *testing.T) {
	var w Wire
	require.Equal(t, uintptr(64), unsafe.Offsetof(w.Params), "Send and Handle on a plain wire read the first 64 bytes only")
	// Go's allocator puts 256-byte objects at multiples of 256, so the first line is a line.
	require.Equal(t, uintptr(256), unsafe.Sizeof(w))
}

func TestPacketDatapathFieldsAreInTheFirstCacheLine(t *testing.T) {
	var p Packet
	// ahead is the last field every switch reads; the endpoints' fields (PSN on) follow.
	require.LessOrEqual(t, unsafe.Offsetof(p.ahead)+unsafe.Sizeof(p.ahead), uintptr(64), "the datapath's fields fit the first line")
	// Packets come in slabs (one allocation of poolSlab packets): a size that is a multiple
	// of 64 keeps every packet's first line a line.
	require.Zero(t, unsafe.Sizeof(p)%64, "size %d", unsafe.Sizeof(p))
}

func TestQueueIsOneCacheLine(t *testing.T) {
	require.Equal(t, uintptr(64), unsafe.Sizeof(Queue{}))
}

func TestPoolsShareNoCacheLine(t *testing.T) {
	require.Equal(t, uintptr(256), unsafe.Sizeof(Pool{}), "a size class whose objects start on a line")
}
