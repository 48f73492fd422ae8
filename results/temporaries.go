package results

import (
	"os"
	"sync"
)

// temporaries are the temporary files CreateAtomic made that are neither committed nor
// aborted yet, and the unlock functions of the directory locks held (LockDir), so that a
// command stopped by a second signal can remove them (AbortWriting) and leave no
// half-written file and no lock behind.
var temporaries struct {
	sync.Mutex
	names map[string]struct{}
	locks map[int]func()
	next  int
}

// holdLock records unlock as a held lock's and returns the function that releases it
// (once) and forgets it.
func holdLock(unlock func()) func() {
	temporaries.Lock()
	defer temporaries.Unlock()
	if temporaries.locks == nil {
		temporaries.locks = make(map[int]func())
	}
	id := temporaries.next
	temporaries.next++
	var once sync.Once
	release := func() { once.Do(unlock) }
	temporaries.locks[id] = release
	return func() {
		temporaries.Lock()
		delete(temporaries.locks, id)
		temporaries.Unlock()
		release()
	}
}

func addTemporary(name string) {
	temporaries.Lock()
	if temporaries.names == nil {
		temporaries.names = make(map[string]struct{})
	}
	temporaries.names[name] = struct{}{}
	temporaries.Unlock()
}

func dropTemporary(name string) {
	temporaries.Lock()
	delete(temporaries.names, name)
	temporaries.Unlock()
}

// AbortWriting removes every temporary file that CreateAtomic made and that is neither
// committed nor aborted, and releases every directory lock held (LockDir): what a process
// about to exit early would leave behind. It is safe to call from a signal handler's
// goroutine while the files are written.
func AbortWriting() {
	temporaries.Lock()
	defer temporaries.Unlock()
	for name := range temporaries.names {
		os.Remove(name)
		delete(temporaries.names, name)
	}
	for id, release := range temporaries.locks {
		release()
		delete(temporaries.locks, id)
	}
}
