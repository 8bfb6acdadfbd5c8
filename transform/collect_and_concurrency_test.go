package transform_test

import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	corev1 "k8s.io/api/core/v1"
)

// collectedByGC reports whether wp's value is collected within three
// garbage collections.
func collectedByGC[T any](wp weak.Pointer[T]) bool {
	for i := 0; i < 3 && wp.Value() != nil; i++ {
		runtime.GC()
	}
	return wp.Value() == nil
}

// transformedConcurrently decodes n pods named prefix0, prefix1, … and
// applies transform to each in its own goroutine; it returns the pods once
// every goroutine has finished.
func transformedConcurrently(n int, prefix string, transform func(interface{}) (interface{}, error)) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	var wg sync.WaitGroup
	for i := range pods {
		pods[i] = decodedPod(fmt.Sprint(prefix, i))
		wg.Go(func() { _, _ = transform(pods[i]) })
	}
	wg.Wait()
	return pods
}
