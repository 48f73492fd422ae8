package hugepages

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// anonHuge is the process's anonymous memory in huge pages, from /proc/self/smaps_rollup.
func anonHuge(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	require.NoError(t, err)
	for _, l := range bytes.Split(b, []byte("\n")) {
		if f := bytes.Fields(l); len(f) == 3 && string(f[0]) == "AnonHugePages:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	require.FailNow(t, "no AnonHugePages in smaps_rollup")
	return 0
}

// TestAdviseBacksALargeHeapWithHugePages fills 40 MiB of heap, advises, maps 64 MiB more,
// advises again and fills those: where the kernel lets a program ask for
// huge pages (THP madvise or always), some of the new memory is in them; where it does not
// (never), advising must leave everything as it was.
func TestAdviseBacksALargeHeapWithHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	require.NoError(t, err)
	fill := func(mib int) [][]byte {
		m := make([][]byte, mib)
		for i := range m {
			m[i] = make([]byte, 1<<20)
		}
		return m
	}
	touch := func(m [][]byte) {
		for i := range m {
			for j := 0; j < len(m[i]); j += 4096 {
				m[i][j] = byte(i + j>>12)
			}
		}
	}
	var a advisor
	first := fill(40)
	touch(first)
	a.advise()
	second := fill(64) // fresh pages from the kernel: mapped, not yet touched
	a.advise()
	touch(second)
	if bytes.Contains(mode, []byte("[never]")) {
		require.Zero(t, anonHuge(t), "THP is off: nothing to gain, nothing changed")
	} else {
		require.GreaterOrEqual(t, anonHuge(t), int64(16<<20), "THP mode %q: memory touched after advising is (partly) in huge pages", bytes.TrimSpace(mode))
	}
	for _, m := range [][][]byte{first, second} {
		for i := range m {
			require.Equal(t, byte(i+1), m[i][4096])
		}
	}
}
