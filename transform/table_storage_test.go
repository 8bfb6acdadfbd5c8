package transform

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// retainedAfterDrop runs fill, which makes values canonical and returns
// them, drops them, and returns the live heap growth from before fill once
// collections (and what runs after them) brought it below limit, or after
// 50 collections.
func retainedAfterDrop(fill func() []*corev1.Pod, limit int64) int64 {
	collectUntil(func() bool { return false })
	base := int64(liveHeap())
	held := fill()
	runtime.KeepAlive(held)
	held = nil
	retained := int64(liveHeap()) - base
	for i := 0; i < 50 && retained > limit; i++ {
		runtime.Gosched()
		retained = int64(liveHeap()) - base
	}
	return retained
}

// partsPod is a pod whose nodeSelector, env, limits and liveness probe
// are its own (four canonical parts nothing else equals) and whose
// interned strings are common to every partsPod.
func partsPod(i int) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{
		NodeSelector: map[string]string{"zone": fmt.Sprintf("parts-zone-%d", i)},
		Containers: []corev1.Container{{
			Name:  "parts",
			Image: "registry.example.com/parts:1",
			Env:   []corev1.EnvVar{{Name: "N", Value: fmt.Sprintf("parts-%d", i)}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(int64(5000+i), resource.DecimalSI)}},
			LivenessProbe: &corev1.Probe{PeriodSeconds: int32(5000 + i)},
		}},
	}}
}

func TestTheSharingTablesGiveTheirStorageBackOnceThePartsTheyHeldAreCollected(t *testing.T) {
	directSharing(t)
	const pods, parts = 7500, 4 * 7500
	const limit = 8 * parts // bytes: 8 per part ever held
	retained := retainedAfterDrop(func() []*corev1.Pod {
		held := make([]*corev1.Pod, pods)
		for i := range held {
			held[i] = partsPod(i)
			sharePodParts(held[i])
		}
		return held
	}, limit)
	if retained > limit {
		t.Fatalf("after %d distinct canonical parts were dropped and collected the heap kept %d B more than before them (%.0f B per part ever held); want at most %d",
			parts, retained, float64(retained)/parts, limit)
	}
	t.Logf("%d B kept after %d distinct parts were dropped", retained, parts)
}

func TestTheInternTableGivesItsStorageBackOnceTheStringsItHeldAreCollected(t *testing.T) {
	const strs = 40000
	const limit = 8 * strs // bytes: 8 per string ever held
	retained := retainedAfterDrop(func() []*corev1.Pod {
		held := make([]string, strs)
		for i := range held {
			held[i] = internString(fmt.Sprintf("gone-string-%d", i))
		}
		runtime.KeepAlive(held)
		return nil
	}, limit)
	if retained > limit {
		t.Fatalf("after %d distinct interned strings were dropped and collected the heap kept %d B more than before them (%.0f B per string ever held); want at most %d",
			strs, retained, float64(retained)/strs, limit)
	}
	t.Logf("%d B kept after %d distinct strings were dropped", retained, strs)
}

// usedSlots are the slots the env table uses (live or dead entries).
func usedSlots() int {
	sharedEnvVars.table.mu.Lock()
	defer sharedEnvVars.table.mu.Unlock()
	return sharedEnvVars.table.values.used
}

func TestThePartsOfCachedPodsStayCanonicalWhenTheTablesShrinkAroundThem(t *testing.T) {
	directSharing(t)
	const pods = 5000
	all := make([]*corev1.Pod, pods)
	for i := range all {
		all[i] = partsPod(100000 + i)
		sharePodParts(all[i])
	}
	grown := usedSlots()
	var kept []*corev1.Pod
	for i := 0; i < pods; i += 10 {
		kept = append(kept, all[i])
	}
	all = nil
	collectUntil(func() bool { return usedSlots() < grown/4 })
	if got := usedSlots(); got >= grown/4 {
		t.Fatalf("the env table uses %d slots after 9 in 10 of its %d values were collected", got, grown)
	}
	for i, pod := range kept {
		twin := partsPod(100000 + 10*i)
		sharePodParts(twin)
		if &twin.Spec.Containers[0].Env[0] != &pod.Spec.Containers[0].Env[0] ||
			mapObject(twin.Spec.NodeSelector) != mapObject(pod.Spec.NodeSelector) ||
			twin.Spec.Containers[0].LivenessProbe != pod.Spec.Containers[0].LivenessProbe {
			t.Fatalf("cached pod %d: its twin does not share its parts after the tables shrank", 10*i)
		}
	}
}

func TestSweepsConcurrentWithTransformsKeepOneCanonicalValuePerContent(t *testing.T) {
	directSharing(t)
	const workers, pods = 4, 500
	got := make([][]*corev1.Pod, workers)
	done := make(chan struct{})
	go func() { // collections and sweeps meanwhile
		defer close(done)
		for i := 0; i < 20; i++ {
			runtime.GC()
			sweepWeakTables()
		}
	}()
	var wg sync.WaitGroup
	for w := range got {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < pods; i++ {
				pod := partsPod(200000 + i)
				sharePodParts(pod)
				got[w] = append(got[w], pod)
			}
		}(w)
	}
	wg.Wait()
	<-done
	for w := 1; w < workers; w++ {
		for i, pod := range got[w] {
			if &pod.Spec.Containers[0].Env[0] != &got[0][i].Spec.Containers[0].Env[0] {
				t.Fatalf("goroutine %d: pod %d has an env of its own, not the canonical one", w, i)
			}
		}
	}
}

// partsCost is the live heap and off-heap runtime memory (MemStats.OtherSys,
// where weak pointers and cleanups keep their records) that n partsPods
// starting at index from take, shared or not.
func partsCost(from, n int, share bool) (heap, other int64) {
	var before, after runtime.MemStats
	collectUntil(func() bool { return false })
	runtime.ReadMemStats(&before)
	held := make([]*corev1.Pod, n)
	for i := range held {
		held[i] = partsPod(from + i)
		if share {
			sharePodParts(held[i])
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(held)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), int64(after.OtherSys) - int64(before.OtherSys)
}

func TestSharingAPartNoOtherPodHasCostsAtMost64Bytes(t *testing.T) {
	directSharing(t)
	const pods, parts = 10000, 4 * 10000
	plainHeap, plainOther := partsCost(300000, pods, false)
	sharedHeap, sharedOther := partsCost(400000, pods, true)
	heap, other := float64(sharedHeap-plainHeap)/parts, float64(sharedOther-plainOther)/parts
	t.Logf("a part no other pod has costs %.0f B of heap and %.0f B off the heap when shared", heap, other)
	if heap+other > 64 {
		t.Fatalf("sharing %d parts no other pod has costs %.0f B of heap and %.0f B off the heap per part; want at most 64 in all", parts, heap, other)
	}
}
