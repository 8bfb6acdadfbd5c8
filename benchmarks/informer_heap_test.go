package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// heapShape is how the pods of BenchmarkInformerRetainedHeap spread over
// namespaces, nodes and app label values.
type heapShape struct {
	// name is the sub-benchmark element after "shape=".
	name string
	// namespaces, nodes and apps are the numbers of distinct values.
	namespaces, nodes, apps int
}

// heapShapes are the two shapes of the benchmark: that of the store
// benchmarks (store_pods_test.go: 100 namespaces, about 20 pods per node,
// apps of 3 to 5 pods; here 4 on average) and that of issue 13 (500
// namespaces, 1,000 nodes, 2,000 app values: 100, 50 and 25 pods per value).
var heapShapes = []heapShape{
	{name: "store", namespaces: 100, nodes: heapPods / 20, apps: heapPods / 4},
	{name: "cluster", namespaces: 500, nodes: 1_000, apps: 2_000},
}

// Sizes of the workload: pods listed, then updates streamed round-robin
// over them, so every pod is updated heapUpdates/heapPods times.
const (
	heapPods    = 50_000
	heapUpdates = 200_000
)

// heapWorkload is the pre-built data of one shape. Every version of every
// pod stays reachable from it for the whole benchmark, so that the bytes an
// informer adds to the live heap are its own, never the objects'.
type heapWorkload struct {
	// list is the initial list, at resource version "1". On the List path
	// both Reflectors cache copies of its items (ExtractListWithAlloc), on
	// the WatchList path pointers into it, until the updates replace them.
	list []v1.Pod
	// updates are the Modified events, each a new version of pod i%heapPods.
	updates []watch.Event
	// final holds the last version of every pod, the one cached at the end.
	final []any
	// podBytes is the live heap of one pod standing alone (see
	// measurePodBytes).
	podBytes float64
}

// heapTemplate is the pod every benchmark pod is a deep copy of: labels, an
// owner reference, two containers with image, ports, env and resources, a
// volume and a Running status with conditions.
func heapTemplate() *v1.Pod {
	yes := true
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ctr := func(name, image string) v1.Container {
		return v1.Container{
			Name: name, Image: image,
			Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: v1.ProtocolTCP}},
			Env:   []v1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "POD_NAME", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("512Mi")},
				Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("512Mi")},
			},
			VolumeMounts:           []v1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			TerminationMessagePath: "/dev/termination-log", ImagePullPolicy: v1.PullIfNotPresent,
		}
	}
	var conditions []v1.PodCondition
	for _, t := range []v1.PodConditionType{v1.PodScheduled, v1.PodInitialized, v1.ContainersReady, v1.PodReady} {
		conditions = append(conditions, v1.PodCondition{Type: t, Status: v1.ConditionTrue, LastTransitionTime: at})
	}
	return &v1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			CreationTimestamp: at,
			Labels:            map[string]string{"app.kubernetes.io/component": "backend", "pod-template-hash": "7d9f8c6b5d"},
			Annotations:       map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"},
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		Spec: v1.PodSpec{
			RestartPolicy: v1.RestartPolicyAlways, DNSPolicy: v1.DNSClusterFirst, SchedulerName: "default-scheduler",
			Containers: []v1.Container{ctr("app", "registry.example.com/team/app:v1.42.7"), ctr("istio-proxy", "docker.io/istio/proxyv2:1.24.2")},
			Volumes:    []v1.Volume{{Name: "kube-api-access", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{}}}},
		},
		Status: v1.PodStatus{
			Phase: v1.PodRunning, Conditions: conditions, HostIP: "192.168.0.1", StartTime: &at, QOSClass: v1.PodQOSBurstable,
			ContainerStatuses: []v1.ContainerStatus{{Name: "app", Ready: true, Image: "registry.example.com/team/app:v1.42.7", ImageID: "sha256:3f1e0b"}},
		},
	}
}

// heapPod fills p, a deep copy of the template, as pod i of shape s.
func heapPod(p *v1.Pod, s heapShape, i int) {
	app := fmt.Sprintf("svc-%05d", i%s.apps)
	p.Namespace = fmt.Sprintf("team-%03d", i%s.namespaces)
	p.Name = app + "-7d9f8c6b5d-" + strconv.Itoa(i)
	p.UID = types.UID(fmt.Sprintf("6f1c9a2e-0000-4000-8000-%012d", i))
	p.ResourceVersion = "1"
	p.Labels["app"] = app
	p.OwnerReferences[0].Name = app + "-7d9f8c6b5d"
	p.Spec.NodeName = fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", (i*7919)%s.nodes/256, (i*7919)%s.nodes%256)
	p.Spec.ServiceAccountName = app
	p.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", 64+i/65536, (i/256)%256, i%256)
}

// heapNextVersion returns the next version of p as a status update gives
// it: a shallow copy with a new resource version and new condition times
// (one update in ten also moves the pod to another node).
func heapNextVersion(p *v1.Pod, s heapShape, serial int) *v1.Pod {
	next := *p
	next.ResourceVersion = strconv.Itoa(2 + serial)
	later := metav1.NewTime(time.Date(2026, 1, 1, 1, 0, 0, serial, time.UTC))
	next.Status.Conditions = append([]v1.PodCondition(nil), p.Status.Conditions...)
	for i := range next.Status.Conditions {
		next.Status.Conditions[i].LastTransitionTime = later
	}
	if serial%10 == 0 {
		next.Spec.NodeName = fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", (serial*31)%s.nodes/256, (serial*31)%s.nodes%256)
	}
	return &next
}

// newHeapWorkload builds the list and the updates of shape s.
func newHeapWorkload(s heapShape) *heapWorkload {
	tmpl := heapTemplate()
	w := &heapWorkload{list: make([]v1.Pod, heapPods), updates: make([]watch.Event, heapUpdates), final: make([]any, heapPods)}
	for i := range w.list {
		tmpl.DeepCopyInto(&w.list[i])
		heapPod(&w.list[i], s, i)
		w.final[i] = &w.list[i]
	}
	for i := range w.updates {
		next := heapNextVersion(w.final[i%heapPods].(*v1.Pod), s, i)
		w.updates[i] = watch.Event{Type: watch.Modified, Object: next}
		w.final[i%heapPods] = next
	}
	w.podBytes = measurePodBytes(s, tmpl)
	return w
}

// measurePodBytes returns the live heap per pod of heapPods pods built
// standing alone (each its own deep copy, nothing shared with the
// workload): what a cache holding the pods and nothing else would keep.
func measurePodBytes(s heapShape, tmpl *v1.Pod) float64 {
	before := liveHeap()
	pods := make([]*v1.Pod, heapPods)
	for i := range pods {
		pods[i] = tmpl.DeepCopy()
		heapPod(pods[i], s, i)
	}
	grown := liveHeap() - before
	runtime.KeepAlive(pods)
	return float64(grown)/float64(heapPods) - 8 // the slice's pointer is not the pod's
}

// events is the number of notifications every handler must see.
func (w *heapWorkload) events() int64 { return int64(heapPods + heapUpdates) }

// heapSource serves the workload. On the List path it lists the pods and
// streams the updates on the
// first watch; on the WatchList path the first watch streams an Added event
// per pod, the end-of-initial-events bookmark, then the updates. Later
// watches stay silent.
type heapSource struct {
	// w is the workload served.
	w *heapWorkload
	// watchList makes the source support WatchList.
	watchList bool
	// watched is set by the first Watch, the one that streams.
	watched atomic.Bool
	// stop ends the streaming goroutine.
	stop chan struct{}
}

func (s *heapSource) List(metav1.ListOptions) (apiruntime.Object, error) {
	return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: s.w.list}, nil
}

func (s *heapSource) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	bw := &informerBenchWatch{ch: make(chan watch.Event, 1024), stopped: make(chan struct{})}
	if s.watched.Swap(true) {
		return bw, nil
	}
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	go s.stream(bw, initial)
	return bw, nil
}

// stream sends the initial events when asked to, then the updates, until
// the source or the watch is stopped.
func (s *heapSource) stream(bw *informerBenchWatch, initial bool) {
	send := func(ev watch.Event) bool {
		select {
		case bw.ch <- ev:
			return true
		case <-s.stop:
		case <-bw.stopped:
		}
		return false
	}
	if initial {
		for i := range s.w.list {
			if !send(watch.Event{Type: watch.Added, Object: &s.w.list[i]}) {
				return
			}
		}
		end := &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "1", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		if !send(watch.Event{Type: watch.Bookmark, Object: end}) {
			return
		}
	}
	for _, ev := range s.w.updates {
		if !send(ev) {
			return
		}
	}
}

func (s *heapSource) IsWatchListSemanticsUnSupported() bool { return !s.watchList }

// heapVariant is the informer configuration of a run: which queue (the
// InOrderInformers gate: RealFIFO when on, DeltaFIFO when off) and which
// list path (WatchList when the source supports it; the WatchListClient gate
// is on by default).
type heapVariant struct {
	// name is the sub-benchmark element after "variant=", "" for the
	// default (RealFIFO, List).
	name string
	// deltaFIFO turns the InOrderInformers gate off.
	deltaFIFO bool
	// watchList serves the initial list as a WatchList stream.
	watchList bool
}

// heapGates is the process's feature gates with InOrderInformers forced
// off.
type heapGates struct{ base clientfeatures.Gates }

func (g heapGates) Enabled(key clientfeatures.Feature) bool {
	return key != clientfeatures.InOrderInformers && g.base.Enabled(key)
}

// withGates installs the gates of v for the life of one informer run and
// returns the function that restores the previous ones.
func (v heapVariant) withGates() (restore func()) {
	if !v.deltaFIFO {
		return func() {}
	}
	base := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(heapGates{base})
	return func() { clientfeatures.ReplaceFeatureGates(base) }
}

// heapIndexers returns the index functions of the benchmark: the namespace
// index alone, or namespace, node and app label.
// (Both libraries' MetaNamespaceIndexFunc give the namespace.)
func heapIndexers[F ~func(any) ([]string, error)](n int) map[string]F {
	ix := map[string]F{storeByNamespace: heapNamespaceIndex}
	if n == 3 {
		ix[storeByNode] = storeNodeIndex
		ix[storeByApp] = storeAppIndex
	}
	return ix
}

// heapNamespaceIndex indexes pods by namespace, as MetaNamespaceIndexFunc.
func heapNamespaceIndex(obj any) ([]string, error) {
	return []string{obj.(*v1.Pod).Namespace}, nil
}

// heapImpl builds one library's informer and plain Indexer.
type heapImpl struct {
	// name is the sub-benchmark element after "impl=".
	name string
	// informer builds a SharedIndexInformer on lw with the indices.
	informer func(lw *heapSource, indices int) informerUnderBench
	// indexer builds a plain Indexer with the same key function and indices.
	indexer func(indices int) storeReader
}

var heapImpls = []heapImpl{
	{
		name: "client-go",
		informer: func(lw *heapSource, indices int) informerUnderBench {
			inf := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers(heapIndexers[cache.IndexFunc](indices)))
			return informerUnderBenchOf[cache.ResourceEventHandler, cache.ResourceEventHandlerRegistration](inf)
		},
		indexer: func(indices int) storeReader {
			return cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers(heapIndexers[cache.IndexFunc](indices)))
		},
	},
	{
		name: "kcache",
		informer: func(lw *heapSource, indices int) informerUnderBench {
			inf := kcache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, kcache.Indexers(heapIndexers[kcache.IndexFunc](indices)))
			return informerUnderBenchOf[kcache.ResourceEventHandler, kcache.ResourceEventHandlerRegistration](inf)
		},
		indexer: func(indices int) storeReader {
			return kcache.NewIndexer(kcache.DeletionHandlingMetaNamespaceKeyFunc, kcache.Indexers(heapIndexers[kcache.IndexFunc](indices)))
		},
	},
}

// heapInformerRetained runs an informer over w with three handlers until
// every handler has seen every notification, then returns the live heap
// above the baseline (taken before the informer was built, with the whole
// workload already live), with the informer still running.
func heapInformerRetained(b *testing.B, w *heapWorkload, impl heapImpl, indices int, v heapVariant) int64 {
	src := &heapSource{w: w, watchList: v.watchList, stop: make(chan struct{})}
	defer v.withGates()()
	handlers := []*informerCountingHandler{newInformerCountingHandler(w.events()), newInformerCountingHandler(w.events()), newInformerCountingHandler(w.events())}
	baseline := liveHeap()
	inf := impl.informer(src, indices)
	for _, h := range handlers {
		if err := inf.add(h); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.run(ctx); close(done) }()
	defer func() { close(src.stop); cancel(); <-done }()
	for _, h := range handlers {
		select {
		case <-h.done:
		case <-time.After(10 * time.Minute):
			b.Fatalf("handler saw %d of %d notifications", h.seen.Load(), h.target)
		}
	}
	retained := liveHeap() - baseline
	writeHeapProfile(b, "informer")
	return retained
}

// writeHeapProfile writes a heap profile of the measurement point to
// $KCACHE_HEAP_PROFILE_DIR/<sub-benchmark>-<what>.pprof when that variable
// is set (read it with go tool pprof -sample_index=inuse_space -top; run
// with -test.memprofilerate=1 for every allocation).
func writeHeapProfile(b *testing.B, what string) {
	dir := os.Getenv("KCACHE_HEAP_PROFILE_DIR")
	if dir == "" {
		return
	}
	name := strings.NewReplacer("/", "_", "=", "-").Replace(b.Name())
	f, err := os.Create(filepath.Join(dir, name+"-"+what+".pprof"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// heapIndexerRetained returns the live heap a plain Indexer keeps after the
// informer's history: Replace with the list, then every update in order.
func heapIndexerRetained(b *testing.B, w *heapWorkload, impl heapImpl, indices int) int64 {
	items := make([]any, len(w.list))
	for i := range w.list {
		items[i] = &w.list[i]
	}
	baseline := liveHeap()
	idx := impl.indexer(indices)
	if err := idx.Replace(items, "1"); err != nil {
		b.Fatal(err)
	}
	for _, ev := range w.updates {
		if err := idx.Update(ev.Object); err != nil {
			b.Fatal(err)
		}
	}
	retained := liveHeap() - baseline
	writeHeapProfile(b, "indexer")
	runtime.KeepAlive(idx)
	runtime.KeepAlive(items) // NB: live in the baseline, so live at the end too
	return retained
}

// BenchmarkInformerRetainedHeap measures the heap a SharedIndexInformer of
// each library keeps per cached pod once a burst is over: 50,000 pods
// listed, then 200,000 updates streamed (each pod updated four times), three
// handlers, all drained; measured after a forced GC with the informer still
// running. Every version of every pod is built beforehand and stays live
// throughout, so the growth of the live heap is the informer's own:
//
//   - overhead-B/obj: live heap the informer keeps beyond the objects;
//   - total-B/obj: overhead plus the live heap of one pod standing alone;
//   - store-B/obj: live heap of a plain Indexer of the same library with the
//     same indices after the same history (Replace, then the updates);
//   - beyond-store-B/obj: overhead minus store: the queue, reflector,
//     processor and listeners.
//
// Sub-benchmarks: shape=store (store_pods_test.go's: 100 namespaces, 20 pods
// per node, 4 per app) and shape=cluster (issue 13's: 500 namespaces, 1,000
// nodes, 2,000 app values); indices=1 (namespace) and indices=3 (namespace,
// node, app label); keys by DeletionHandlingMetaNamespaceKeyFunc. The
// default feature gates (RealFIFO) and the List path, except for
// variant=DeltaFIFO (InOrderInformers off) and variant=WatchList (the
// initial list as a WatchList stream), which run shape=cluster, indices=1.
func BenchmarkInformerRetainedHeap(b *testing.B) {
	for _, s := range heapShapes {
		w := newHeapWorkload(s)
		for _, c := range heapCases(s) {
			for _, impl := range heapImpls {
				b.Run(c.name+"/impl="+impl.name, func(b *testing.B) { heapRun(b, w, impl, c.indices, c.variant) })
			}
		}
		runtime.KeepAlive(w)
	}
}

// heapCase is one sub-benchmark but for the library.
type heapCase struct {
	// name is the sub-benchmark name up to the library.
	name string
	// indices is 1 or 3 (see heapIndexers).
	indices int
	// variant is the queue and list path.
	variant heapVariant
}

// heapCases lists the sub-benchmarks of shape s: both index counts with the
// defaults, and for shape=cluster the variants with one index.
func heapCases(s heapShape) []heapCase {
	var cases []heapCase
	for _, indices := range []int{1, 3} {
		cases = append(cases, heapCase{name: fmt.Sprintf("shape=%s/indices=%d", s.name, indices), indices: indices})
	}
	if s.name == "cluster" {
		for _, v := range []heapVariant{{name: "DeltaFIFO", deltaFIFO: true}, {name: "WatchList", watchList: true}} {
			cases = append(cases, heapCase{name: fmt.Sprintf("shape=%s/indices=1/variant=%s", s.name, v.name), indices: 1, variant: v})
		}
	}
	return cases
}

// heapRun is one sub-benchmark: b.N informer runs and plain Indexers, and
// the per-object figures.
func heapRun(b *testing.B, w *heapWorkload, impl heapImpl, indices int, v heapVariant) {
	var informer, store int64
	for i := 0; i < b.N; i++ {
		informer += heapInformerRetained(b, w, impl, indices, v)
		store += heapIndexerRetained(b, w, impl, indices)
	}
	perObj := func(total int64) float64 { return float64(total) / float64(b.N) / heapPods }
	b.ReportMetric(perObj(informer), "overhead-B/obj")
	b.ReportMetric(perObj(informer)+w.podBytes, "total-B/obj")
	b.ReportMetric(perObj(store), "store-B/obj")
	b.ReportMetric(perObj(informer)-perObj(store), "beyond-store-B/obj")
}
