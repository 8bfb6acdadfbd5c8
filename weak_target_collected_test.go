package cache

import (
	"runtime"
	"weak"
)

// weakTargetCollected reports whether p's target is collected within a few
// GCs: the retention tests' way of telling an unreachable value from one a
// store still holds.
func weakTargetCollected[T any](p weak.Pointer[T]) bool {
	for i := 0; i < 5; i++ {
		runtime.GC()
		if p.Value() == nil {
			return true
		}
	}
	return false
}
