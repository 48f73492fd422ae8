// Package hugepages asks Linux to back the process's anonymous memory, the Go heap among it,
// with transparent huge pages (2 MiB) where the system leaves that to the program
// (/sys/kernel/mm/transparent_hugepage/enabled set to madvise, the usual default). A large
// fabric's simulation reads tens of megabytes at random; with 4 KiB pages most of its reads
// also miss the TLB, with 2 MiB pages few do. It changes no result, only speed, and does
// nothing where the kernel refuses or on other systems.
package hugepages

import (
	"context"
	"time"
)

// Keep advises every anonymous mapping of at least 2 MiB now and then every interval until
// ctx is done, so that memory the heap maps as it grows is advised too. Run it in its own
// goroutine.
func Keep(ctx context.Context, interval time.Duration) {
	var a advisor
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		a.advise()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
