package topology

import (
	"reflect"
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

// TestPacketFieldsOutsideTheExtension pins the packet: its size, and the fields that are not
// in the extension (the headers every frame has and the simulation's metadata). A field
// added to Packet lands here and fails it; a transport's field belongs in its block
// (ext.go), which has extBytes of room whatever the other blocks take.
func TestPacketFieldsOutsideTheExtension(t *testing.T) {
	var p Packet
	require.Equal(t, uintptr(256), unsafe.Sizeof(p), "a Packet is 256 bytes (ext.go)")
	require.Equal(t, unsafe.Sizeof(p), unsafe.Offsetof(p.ext)+unsafe.Sizeof(p.ext), "the extension ends the packet")
	require.Equal(t, uintptr(extBytes), unsafe.Sizeof(p.ext))
	require.Equal(t, uintptr(152), unsafe.Sizeof(p.ext), "the extension: 256 bytes less the 104 before it")
	require.Zero(t, unsafe.Offsetof(p.ext)%8, "the extension is 8-byte aligned")

	typ := reflect.TypeOf(p)
	var names []string
	var bytes uintptr
	for i := 0; i < typ.NumField(); i++ {
		if f := typ.Field(i); f.Name != "ext" {
			names = append(names, f.Name)
			bytes += f.Type.Size()
		}
	}
	require.Equal(t, []string{"next", "nextAt", "Frame", "Flow", "Src", "Dst", "Hash", "InPort", "INT",
		"epoch", "Kind", "Priority", "TTL", "ECN", "CrossSubnet", "Routed", "dropped", "home", "ahead",
		"PSN", "Payload", "Trimmable", "Trimmed", "EtherType", "Tagged", "PCP", "SrcIP", "DstIP", "DSCP",
		"Protocol", "IPID", "SrcPort", "DstPort", "SentAt"}, names,
		"the fields outside the extension: a transport's header field goes into its block (ext.go)")
	// The fields take 100 of the 104 bytes before the extension; alignment leaves the other
	// 4 (2 before SrcIP, 2 before SentAt).
	require.Equal(t, uintptr(100), bytes)
}

// TestExtensionBlocksFit checks each transport's block against the extension: it fits, it
// needs no more alignment than the region's 8 bytes, and it holds no pointer (the garbage
// collector sees the region as words).
func TestExtensionBlocksFit(t *testing.T) {
	for _, b := range []struct {
		name  string
		block any
		size  uintptr // the block's size, from its fields (see each below)
	}{
		// IB: Opcode, AckReq, HasRETH, HasAETH, Syndrome, BECN, HasSACK (7 x 1), pad 1,
		// DestQP, DMALen, MSN, SACKPSN (4 x 4).
		{"IB", IBFields{}, 7 + 1 + 4*4},
		// UET: SACKBitmap 8, SACKBase, CumPSN, RecvdBytes, DMALen, Offset, Credit (6 x 4),
		// OOO, Entropy (2 x 2), Opcode and six flags (7 x 1), pad to 8.
		{"UET", UETFields{}, 8 + 6*4 + 2*2 + 7 + 5},
		// TCP: Seq, AckNum (2 x 4), Flags, Timestamps, SACKPermitted, SACKBlocks (4 x 1),
		// TSVal, TSEcr (2 x 4), SACK (TCPMaxSACKs x 8), MPA, MPAMarkers, MPAPrivate (1+1+2),
		// DDPTagged, DDPLast, MPAWantMarkers (3 x 1), pad 1, DDPOffset, MPAStream (2 x 4).
		{"TCP", TCPFields{}, 8 + 4 + 8 + TCPMaxSACKs*8 + 4 + 3 + 1 + 8},
		// Pause: Enable 1, pad 1, Quanta NumPriorities x 2.
		{"Pause", PauseFields{}, 2 + NumPriorities*2},
	} {
		t.Run(b.name, func(t *testing.T) {
			typ := reflect.TypeOf(b.block)
			require.Equal(t, b.size, typ.Size())
			require.LessOrEqual(t, typ.Size(), uintptr(extBytes), "fits the extension")
			require.LessOrEqual(t, uintptr(typ.Align()), uintptr(8), "needs no more than the region's alignment")
			require.False(t, hasPointers(typ), "holds no pointer")
			t.Logf("%d of %d bytes", typ.Size(), extBytes)
		})
	}
	// The accessors are views of one region: each block starts where the extension does.
	var p Packet
	base := uintptr(unsafe.Pointer(&p.ext))
	require.Equal(t, base, uintptr(unsafe.Pointer(p.IB())))
	require.Equal(t, base, uintptr(unsafe.Pointer(p.UET())))
	require.Equal(t, base, uintptr(unsafe.Pointer(p.TCP())))
	require.Equal(t, base, uintptr(unsafe.Pointer(p.Pause())))
	require.Zero(t, base%8, "the region is 8-byte aligned")
}

// hasPointers says whether a value of type t holds a pointer the garbage collector must see.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Slice, reflect.String,
		reflect.Interface, reflect.Chan, reflect.Func:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestPoolClearsTheExtension: a packet taken again starts with its block zeroed, as the
// fields were when each had its own place.
func TestPoolClearsTheExtension(t *testing.T) {
	pl := NewPools(1)[0]
	p := pl.Get(KindData)
	*p.TCP() = TCPFields{Seq: 1, AckNum: 2, Flags: TCPFlagACK, SACKBlocks: TCPMaxSACKs, MPAStream: 3}
	p.TCP().SACK[TCPMaxSACKs-1] = [2]uint32{4, 5}
	pl.Deliver(p)
	q := pl.Get(KindAck)
	require.Same(t, p, q, "the free list gives the packet back")
	require.Equal(t, [extWords]uint64{}, q.ext)
	require.Equal(t, UETFields{}, *q.UET())
}

// TestCrossingSidesShareNoCacheLine: on a wire between two partitions, the sender's lines
// (the staged lists, one per window parity) and the receiver's (the frames in flight) are
// distinct lines of a 256-byte object, which Go's allocator starts on a line.
func TestCrossingSidesShareNoCacheLine(t *testing.T) {
	var x crossing
	require.Equal(t, uintptr(256), unsafe.Sizeof(x))
	require.Equal(t, uintptr(64), unsafe.Offsetof(x.staged))
	require.Equal(t, uintptr(64), unsafe.Sizeof(x.staged[0]), "a parity's staged list has a line")
	require.Equal(t, uintptr(192), unsafe.Offsetof(x.rx), "the receiving side has the last line")
	require.LessOrEqual(t, unsafe.Sizeof(x.rx), uintptr(64))
}
