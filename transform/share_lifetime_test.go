package transform

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
	"weak"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// distinctPod is a pod whose shared parts and interned strings are its own
// (nothing equal to them was seen before).
func distinctPod(tag string, i int) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{
		NodeSelector: map[string]string{"zone": fmt.Sprintf("%s-zone-%d", tag, i)},
		Containers: []corev1.Container{{
			Name:  fmt.Sprintf("%s-c-%d", tag, i),
			Image: fmt.Sprintf("registry.example.com/%s/app:%d", tag, i),
			Env:   []corev1.EnvVar{{Name: "N", Value: fmt.Sprintf("%s-%d", tag, i)}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(int64(1000+i), resource.DecimalSI)}},
			LivenessProbe: &corev1.Probe{PeriodSeconds: int32(1000 + i)},
		}},
	}}
}

// tableSizes are the entries of the tables distinctPod fills.
func tableSizes() [5]int {
	return [5]int{sharedStringMaps.table.size(), sharedEnvVars.table.size(),
		sharedResourceLists.table.size(), sharedProbes.table.size(), internedStrings.size()}
}

// collectUntil runs garbage collections (and lets cleanups run) until done
// reports true, at most 50 times.
func collectUntil(done func() bool) {
	for i := 0; i < 50 && !done(); i++ {
		runtime.GC()
		runtime.Gosched()
	}
}

func shareDistinctPods(tag string, n int, keep func(int) bool) []*corev1.Pod {
	var kept []*corev1.Pod
	for i := 0; i < n; i++ {
		pod := distinctPod(tag, i)
		sharePodParts(pod)
		if keep(i) {
			kept = append(kept, pod)
		}
	}
	return kept
}

func TestTheCanonicalTablesShrinkBackOnceTheDistinctPodsTheyHeldAreDropped(t *testing.T) {
	directSharing(t)
	collectUntil(func() bool { return false })
	before := tableSizes()
	pods := shareDistinctPods("drop", 20000, func(int) bool { return true })
	grown := tableSizes()
	runtime.KeepAlive(pods)
	pods = nil
	collectUntil(func() bool { s := tableSizes(); return s[0] <= before[0] && s[4] <= before[4]+10 })
	after := tableSizes()
	for i, name := range []string{"nodeSelectors", "env", "resource lists", "probes", "interned strings"} {
		if grown[i] < before[i]+20000 {
			t.Errorf("%s: the table grew from %d to %d only; the pods were not shared", name, before[i], grown[i])
		}
		if after[i] > before[i]+100 {
			t.Errorf("%s: the table holds %d entries after the 20000 pods were dropped (%d before them, %d with them)",
				name, after[i], before[i], grown[i])
		}
	}
}

func TestInternedStringsOfDroppedPodsAreCollectedWhileThoseOfCachedPodsAreNot(t *testing.T) {
	directSharing(t)
	collectUntil(func() bool { return false })
	before := tableSizes()[4]
	kept := shareDistinctPods("half", 4000, func(i int) bool { return i%2 == 0 })
	collectUntil(func() bool { return tableSizes()[4] <= before+2000*4+10 })
	// each kept pod has 4 distinct interned strings (zone, env value, name,
	// image): 2000 pods kept, 2000 dropped
	if got := tableSizes()[4]; got > before+2000*4+10 {
		t.Errorf("the intern table holds %d strings more than before; the 2000 kept pods reference %d, the dropped ones' were not collected",
			got-before, 2000*4)
	}
	for i, pod := range kept {
		again := distinctPod("half", 2*i)
		sharePodParts(again)
		if unsafe.StringData(again.Spec.Containers[0].Image) != unsafe.StringData(pod.Spec.Containers[0].Image) {
			t.Fatalf("pod %d: the image interned again is a new copy, not the cached pod's", 2*i)
		}
	}
	runtime.KeepAlive(kept)
}

func TestACanonicalMapIsCollectedWhenOnlyTheTableHoldsItAndKeptWhileAPodDoes(t *testing.T) {
	directSharing(t)
	held := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"held": "by-a-pod"}}}
	sharePodParts(held)
	heldWeak := weak.Make((*byte)(mapObject(held.Spec.NodeSelector)))
	dropped := func() weak.Pointer[byte] {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"held": "by-nothing"}}}
		sharePodParts(p)
		return weak.Make((*byte)(mapObject(p.Spec.NodeSelector)))
	}()
	collectUntil(func() bool { return dropped.Value() == nil })
	if dropped.Value() != nil {
		t.Error("a canonical map nothing but the table references survived 50 collections")
	}
	if heldWeak.Value() == nil || held.Spec.NodeSelector["held"] != "by-a-pod" {
		t.Fatal("the canonical map a pod holds was collected")
	}
	next := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"held": "by-a-pod"}}}
	sharePodParts(next)
	if mapObject(next.Spec.NodeSelector) != mapObject(held.Spec.NodeSelector) {
		t.Fatal("the next equal pod does not share the canonical map a cached pod holds")
	}
	runtime.KeepAlive(held)
}

// churn shares n distinct pods, keeping every other one of the last 128
// alive (a cache whose pods are replaced), so that the garbage collections
// the allocations start collect canonical parts and new pods' parts are
// allocated where those were. check is called for every pod right after
// it is shared.
func churn(n int, check func(i int, pod *corev1.Pod) bool) {
	var ring [64]*corev1.Pod
	for i := 0; i < n; i++ {
		pod := distinctPod("churn", i)
		sharePodParts(pod)
		if !check(i, pod) {
			return
		}
		if i%2 == 0 {
			ring[(i/2)%len(ring)] = pod
		}
	}
}

func TestTheNextEqualPodSharesThePartsOfEveryPodTransformedBeforeItWhileThatPodIsCached(t *testing.T) {
	directSharing(t)
	churn(20000, func(i int, pod *corev1.Pod) bool {
		twin := distinctPod("churn", i)
		sharePodParts(twin)
		if mapObject(twin.Spec.NodeSelector) != mapObject(pod.Spec.NodeSelector) {
			t.Errorf("pod %d: its equal twin got node selector %p, not the cached pod's %p (which the table does not hold)",
				i, mapObject(twin.Spec.NodeSelector), mapObject(pod.Spec.NodeSelector))
			return false
		}
		return true
	})
}

func TestASecondApplicationOnACachedPodWritesNothingEvenAfterGarbageCollections(t *testing.T) {
	directSharing(t)
	var cached []*corev1.Pod
	var ids []unsafe.Pointer
	churn(20000, func(i int, pod *corev1.Pod) bool {
		if i%10 == 0 {
			cached, ids = append(cached, pod), append(ids, mapObject(pod.Spec.NodeSelector))
		}
		return true
	})
	collectUntil(func() bool { return false }) // the cleanups of collected parts run
	for i, pod := range cached {
		done := make(chan struct{})
		go func() { // a lister's caller reads the cached pod
			defer close(done)
			_ = pod.Spec.NodeSelector["zone"]
		}()
		sharePodParts(pod)
		<-done
		if got := mapObject(pod.Spec.NodeSelector); got != ids[i] {
			t.Fatalf("cached pod %d: the second application replaced its node selector %p by %p", i, ids[i], got)
		}
	}
}
