package sourcetest

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjects is the runtime metric of the bytes held by live and
// not yet swept heap objects.
const heapObjects = "/memory/classes/heap/objects:bytes"

// PeakHeap runs f and returns the most heap f held above what was held
// when it started, sampled every 100 µs (and once after f returns, before
// anything is collected): the figure benchmarks of extraction limits
// report, since a limit that holds bounds it whatever the input. Samples
// read runtime/metrics, which does not stop the world.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	var mu sync.Mutex
	note := func(v uint64) {
		mu.Lock()
		peak = max(peak, v)
		mu.Unlock()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				note(read())
			}
		}
	})
	f()
	note(read())
	close(done)
	wg.Wait()
	if peak < base {
		return 0
	}
	return peak - base
}
