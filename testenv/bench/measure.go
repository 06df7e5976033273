package main

import (
	"runtime"
	"runtime/debug"
	"time"
)

// Measured is the wall time, the heap growth and the CPU of one call.
type Measured struct {
	Wall     time.Duration
	PeakHeap uint64 // bytes, sampled HeapAlloc high-water mark above the start
	// CPU is this process's user+system CPU meanwhile (GC and the heap
	// sampler included); 0 where the platform does not say.
	CPU time.Duration
}

// measure runs f once, sampling the heap every millisecond, after a GC so
// the figure is what f itself holds.
func measure(f func() error) (Measured, error) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	stop := make(chan struct{})
	peakc := make(chan uint64)
	go func() {
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak {
				peak = m.HeapAlloc - base
			}
			select {
			case <-stop:
				peakc <- peak
				return
			case <-t.C:
			}
		}
	}()
	cpu0 := processCPU()
	start := time.Now()
	err := f()
	wall := time.Since(start)
	cpu := processCPU() - cpu0
	close(stop)
	return Measured{Wall: wall, PeakHeap: <-peakc, CPU: cpu}, err
}

// mib formats bytes as MiB.
func mib(b uint64) float64 { return float64(b) / (1 << 20) }
