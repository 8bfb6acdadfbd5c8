package transform

import "runtime"

// liveHeap collects garbage and returns the bytes still in use.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
