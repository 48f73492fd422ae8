package hugepages

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// madvise advice values (Linux's include/uapi/asm-generic/mman-common.h).
const (
	// madvHugepage: the range may use transparent huge pages. Pages touched after the
	// advice get 2 MiB ones; those touched before keep 4 KiB until khugepaged merges them,
	// a few megabytes every ten seconds.
	madvHugepage = 14
	// madvCollapse (Linux 6.1): merge the range's pages into huge pages now, where it can.
	// It is best effort: it refuses (EINVAL) what it cannot merge, and the advice above
	// still holds for what comes.
	madvCollapse = 25
)

// hugePage is the size of an x86-64 transparent huge page (a PMD: 2 MiB).
const hugePage = 2 << 20

// advisor remembers the ranges it advised, so that each range is advised and collapsed once.
type advisor struct {
	done map[[2]uintptr]bool
}

// advise advises the anonymous private writable mappings of /proc/self/maps that it has not
// yet: huge pages for the pages to come, and a collapse of those already there.
func (a *advisor) advise() {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	if a.done == nil {
		a.done = map[[2]uintptr]bool{}
	}
	var ranges [][2]uintptr
	s := bufio.NewScanner(bytes.NewReader(maps))
	for s.Scan() {
		// "start-end perms offset dev inode [path]": anonymous when inode is 0 and no path.
		f := bytes.Fields(s.Bytes())
		if len(f) != 5 || string(f[1]) != "rw-p" || string(f[4]) != "0" {
			continue
		}
		dash := bytes.IndexByte(f[0], '-')
		start, err1 := strconv.ParseUint(string(f[0][:dash]), 16, 64)
		end, err2 := strconv.ParseUint(string(f[0][dash+1:]), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		// The whole huge pages inside the mapping.
		lo, hi := uintptr((start+hugePage-1)&^(hugePage-1)), uintptr(end&^(hugePage-1))
		if hi > lo {
			ranges = append(ranges, [2]uintptr{lo, hi})
		}
	}
	for _, r := range ranges {
		if a.done[r] {
			continue
		}
		a.done[r] = true
		syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], madvHugepage)
		syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], madvCollapse)
	}
}
