// Package hugepages asks Linux to back the process's anonymous memory, the Go heap among it,
// with transparent huge pages (2 MiB) where the system leaves that to the program
// (/sys/kernel/mm/transparent_hugepage/enabled set to madvise, the usual default). A large
// fabric's simulation reads tens of megabytes at random; with 4 KiB pages most of its reads
// also miss the TLB, with 2 MiB pages few do. It changes no result, only speed, and does
// nothing where the kernel refuses or on other systems.
package hugepages

import (
	"context"
	"runtime/metrics"
	"time"
)

// minHeap is the heap below which Keep does not advise: the TLB of a current x86 core
// (2,048 entries of 4 KiB) reaches 8 MiB, so a smaller heap gains little, and 2 MiB pages
// would round its resident size up.
const minHeap = 32 << 20

// Keep advises the anonymous mappings of at least 2 MiB every interval until ctx is done,
// once the heap's objects take minHeap bytes, so that memory the heap maps as it grows is
// advised too. Run it in its own goroutine.
func Keep(ctx context.Context, interval time.Duration) {
	var a advisor
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if metrics.Read(heap); heap[0].Value.Kind() == metrics.KindUint64 && heap[0].Value.Uint64() >= minHeap {
			a.advise()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
