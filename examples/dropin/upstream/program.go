// Package program is a small controller-style program written against the
// tools/cache API. The copy in examples/dropin/upstream imports client-go's
// k8s.io/client-go/tools/cache; the copy in examples/dropin/kcache is the same
// file with only the import lines changed to github.com/kcache-go/cache.
// Both copies write the same transcript; dropin_test.go checks that.
package program

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/client-go/tools/cache"
	framework "k8s.io/client-go/tools/cache/testing"
)

// byNode names the custom index that groups pods by the node they run on.
const byNode = "byNode"

// waitLimit bounds every wait for the informer or a handler to catch up.
const waitLimit = 20 * time.Second

// Run exercises stores, indexers, queues, an informer with handlers and a
// lister, and writes a deterministic transcript of what it observed to w.
func Run(w io.Writer) error {
	t := &transcript{w: w}
	steps := []struct {
		name string
		run  func(*transcript) error
	}{
		{"keys", runKeys},
		{"store", runStore},
		{"indexer", runIndexer},
		{"deltafifo", runDeltaFIFO},
		{"realfifo", runRealFIFO},
		{"informer", runInformer},
	}
	for _, s := range steps {
		t.printf("== %s", s.name)
		if err := s.run(t); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return t.err
}

// transcript writes lines to w and remembers the first write error.
type transcript struct {
	w   io.Writer // destination of the transcript
	err error     // first write error, reported by Run
}

func (t *transcript) printf(format string, args ...interface{}) {
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, format+"\n", args...)
}

// pod builds a pod with a tier label, a node and a phase.
func pod(ns, name, tier, node string, phase v1.PodPhase) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"tier": tier}},
		Spec:       v1.PodSpec{NodeName: node},
		Status:     v1.PodStatus{Phase: phase},
	}
}

// nodeIndex is the custom index function: a pod's node, none when unscheduled.
func nodeIndex(obj interface{}) ([]string, error) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return nil, fmt.Errorf("not a pod: %T", obj)
	}
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

// describe renders an object the way the transcript shows it.
func describe(obj interface{}) string {
	switch o := obj.(type) {
	case *v1.Pod:
		return fmt.Sprintf("%s/%s[rv=%s tier=%s node=%s phase=%s]", o.Namespace, o.Name,
			o.ResourceVersion, o.Labels["tier"], o.Spec.NodeName, o.Status.Phase)
	case cache.DeletedFinalStateUnknown:
		return fmt.Sprintf("DeletedFinalStateUnknown{%s, %s}", o.Key, describe(o.Obj))
	case nil:
		return "<nil>"
	default:
		return fmt.Sprintf("%T", obj)
	}
}

func describeAll(objs []interface{}) string {
	parts := make([]string, 0, len(objs))
	for _, o := range objs {
		parts = append(parts, describe(o))
	}
	sort.Strings(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

func sorted(keys []string) []string {
	out := append([]string(nil), keys...)
	sort.Strings(out)
	return out
}

func runKeys(t *transcript) error {
	for _, obj := range []interface{}{
		pod("default", "web-1", "frontend", "node-a", v1.PodRunning),
		pod("", "cluster-scoped", "", "", ""),
		cache.DeletedFinalStateUnknown{Key: "gone/obj", Obj: nil},
	} {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		t.printf("MetaNamespaceKeyFunc(%s) = %q err=%v", describe(obj), key, err)
		dkey, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		t.printf("DeletionHandlingMetaNamespaceKeyFunc = %q err=%v", dkey, err)
	}
	_, err := cache.MetaNamespaceKeyFunc("a string")
	t.printf("MetaNamespaceKeyFunc(string) err=%v", err)
	for _, key := range []string{"default/web-1", "cluster-scoped", "a/b/c", "/x"} {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		t.printf("SplitMetaNamespaceKey(%q) = (%q, %q) err=%v", key, ns, name, err)
	}
	return nil
}

func runStore(t *transcript) error {
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, p := range []*v1.Pod{
		pod("default", "web-1", "frontend", "node-a", v1.PodPending),
		pod("default", "db-1", "backend", "node-b", v1.PodRunning),
		pod("kube-system", "dns", "infra", "node-a", v1.PodRunning),
	} {
		if err := store.Add(p); err != nil {
			return err
		}
	}
	if err := store.Update(pod("default", "web-1", "frontend", "node-a", v1.PodRunning)); err != nil {
		return err
	}
	got, exists, err := store.GetByKey("default/web-1")
	t.printf("store GetByKey(default/web-1) = %s exists=%v err=%v", describe(got), exists, err)
	got, exists, err = store.Get(pod("kube-system", "dns", "", "", ""))
	t.printf("store Get(kube-system/dns) = %s exists=%v err=%v", describe(got), exists, err)
	if err := store.Delete(pod("default", "db-1", "", "", "")); err != nil {
		return err
	}
	t.printf("store after delete keys=%v list=%s", sorted(store.ListKeys()), describeAll(store.List()))
	if err := store.Replace([]interface{}{
		pod("other", "x", "frontend", "node-c", v1.PodSucceeded),
	}, "42"); err != nil {
		return err
	}
	t.printf("store after replace keys=%v", sorted(store.ListKeys()))
	_, exists, err = store.GetByKey("default/web-1")
	t.printf("store GetByKey(default/web-1) after replace exists=%v err=%v", exists, err)
	t.printf("store Resync err=%v", store.Resync())
	return nil
}

func runIndexer(t *transcript) error {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
	})
	if err := indexer.AddIndexers(cache.Indexers{byNode: nodeIndex}); err != nil {
		return err
	}
	for _, p := range []*v1.Pod{
		pod("default", "web-1", "frontend", "node-a", v1.PodRunning),
		pod("default", "web-2", "frontend", "node-b", v1.PodRunning),
		pod("default", "db-1", "backend", "node-b", v1.PodRunning),
		pod("kube-system", "dns", "infra", "node-a", v1.PodRunning),
		pod("default", "pending", "frontend", "", v1.PodPending),
	} {
		if err := indexer.Add(p); err != nil {
			return err
		}
	}
	if err := indexer.Update(pod("default", "web-2", "frontend", "node-c", v1.PodRunning)); err != nil {
		return err
	}
	for _, node := range []string{"node-a", "node-b", "node-c", "node-z"} {
		objs, err := indexer.ByIndex(byNode, node)
		t.printf("indexer ByIndex(byNode, %s) = %s err=%v", node, describeAll(objs), err)
	}
	keys, err := indexer.IndexKeys(cache.NamespaceIndex, "default")
	t.printf("indexer IndexKeys(namespace, default) = %v err=%v", sorted(keys), err)
	t.printf("indexer ListIndexFuncValues(byNode) = %v", sorted(indexer.ListIndexFuncValues(byNode)))
	t.printf("indexer ListIndexFuncValues(namespace) = %v", sorted(indexer.ListIndexFuncValues(cache.NamespaceIndex)))
	same, err := indexer.Index(byNode, pod("x", "y", "", "node-a", ""))
	t.printf("indexer Index(byNode, pod on node-a) = %s err=%v", describeAll(same), err)
	_, err = indexer.ByIndex("missing", "v")
	t.printf("indexer ByIndex(missing) err=%v", err)
	if err := indexer.Delete(pod("kube-system", "dns", "", "", "")); err != nil {
		return err
	}
	t.printf("indexer after delete ListIndexFuncValues(namespace) = %v", sorted(indexer.ListIndexFuncValues(cache.NamespaceIndex)))
	t.printf("indexer GetIndexers has %d indexes", len(indexer.GetIndexers()))
	return nil
}

// sentinel is the last object queued in the direct queue exercises; popping it
// means everything queued before it has been popped.
var sentinel = pod("zz", "end", "", "", "")

// popUntilSentinel pops from q, printing every popped item, until the sentinel
// comes out. With sortLines the popped items are printed sorted, for batches
// whose order the API leaves unspecified (such as a Resync of known objects).
func popUntilSentinel(t *transcript, label string, q cache.Queue, sortLines bool) error {
	var lines []string
	defer func() {
		if sortLines {
			sort.Strings(lines)
		}
		for _, line := range lines {
			t.printf("%s", line)
		}
	}()
	for i := 0; i < 100; i++ {
		var key string
		_, err := q.Pop(func(obj interface{}, isInInitialList bool) error {
			deltas, ok := obj.(cache.Deltas)
			if !ok {
				return fmt.Errorf("popped %T, want cache.Deltas", obj)
			}
			parts := make([]string, 0, len(deltas))
			for _, d := range deltas {
				parts = append(parts, fmt.Sprintf("%s:%s", d.Type, describe(d.Object)))
			}
			newest := deltas.Newest()
			k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(newest.Object)
			if err != nil {
				return err
			}
			key = k
			lines = append(lines, fmt.Sprintf("%s pop %s initial=%v %s", label, key, isInInitialList, strings.Join(parts, ", ")))
			return nil
		})
		if err != nil {
			return err
		}
		if key == "zz/end" {
			return nil
		}
	}
	return errors.New("sentinel never popped")
}

func runDeltaFIFO(t *transcript) error {
	known := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, p := range []*v1.Pod{
		pod("default", "known-1", "frontend", "node-a", v1.PodRunning),
		pod("default", "known-2", "backend", "node-b", v1.PodRunning),
	} {
		if err := known.Add(p); err != nil {
			return err
		}
	}
	fifo := cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		KnownObjects:          known,
		EmitDeltaTypeReplaced: true,
	})
	t.printf("deltafifo HasSynced before anything = %v", fifo.HasSynced())
	if err := fifo.Replace([]interface{}{
		pod("default", "known-1", "frontend", "node-a", v1.PodSucceeded),
		pod("default", "new-1", "frontend", "node-c", v1.PodPending),
	}, "10"); err != nil {
		return err
	}
	if err := fifo.Add(pod("default", "a", "frontend", "node-a", v1.PodPending)); err != nil {
		return err
	}
	if err := fifo.Update(pod("default", "a", "frontend", "node-a", v1.PodRunning)); err != nil {
		return err
	}
	if err := fifo.Update(pod("default", "new-1", "frontend", "node-c", v1.PodRunning)); err != nil {
		return err
	}
	if err := fifo.Delete(pod("default", "a", "frontend", "node-a", v1.PodRunning)); err != nil {
		return err
	}
	if err := fifo.Delete(pod("default", "never-seen", "", "", "")); err != nil {
		return err
	}
	if err := fifo.Add(sentinel); err != nil {
		return err
	}
	if err := popUntilSentinel(t, "deltafifo", fifo, false); err != nil {
		return err
	}
	t.printf("deltafifo HasSynced after popping = %v", fifo.HasSynced())
	if err := fifo.Resync(); err != nil {
		return err
	}
	if err := fifo.Add(sentinel); err != nil {
		return err
	}
	if err := popUntilSentinel(t, "deltafifo-resync", fifo, true); err != nil {
		return err
	}
	fifo.Close()
	_, err := fifo.Pop(func(interface{}, bool) error { return nil })
	t.printf("deltafifo closed=%v pop err=%v is ErrFIFOClosed=%v", fifo.IsClosed(), err, errors.Is(err, cache.ErrFIFOClosed))
	return nil
}

func runRealFIFO(t *transcript) error {
	known := cache.NewStore(cache.MetaNamespaceKeyFunc)
	if err := known.Add(pod("default", "known-1", "frontend", "node-a", v1.PodRunning)); err != nil {
		return err
	}
	fifo := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
		KeyFunction:  cache.MetaNamespaceKeyFunc,
		KnownObjects: known,
	})
	if err := fifo.Replace([]interface{}{
		pod("default", "r-1", "frontend", "node-a", v1.PodPending),
	}, "20"); err != nil {
		return err
	}
	if err := fifo.Add(pod("default", "b", "backend", "node-b", v1.PodPending)); err != nil {
		return err
	}
	if err := fifo.Update(pod("default", "b", "backend", "node-b", v1.PodRunning)); err != nil {
		return err
	}
	if err := fifo.Update(pod("default", "r-1", "frontend", "node-a", v1.PodRunning)); err != nil {
		return err
	}
	if err := fifo.Delete(pod("default", "b", "backend", "node-b", v1.PodRunning)); err != nil {
		return err
	}
	if err := fifo.Add(sentinel); err != nil {
		return err
	}
	if err := popUntilSentinel(t, "realfifo", fifo, false); err != nil {
		return err
	}
	t.printf("realfifo HasSynced after popping = %v", fifo.HasSynced())
	fifo.Close()
	_, err := fifo.Pop(func(interface{}, bool) error { return nil })
	t.printf("realfifo closed=%v pop err=%v is ErrFIFOClosed=%v", fifo.IsClosed(), err, errors.Is(err, cache.ErrFIFOClosed))
	return nil
}

// recorder is an event handler that records notifications per object key, in
// delivery order, so the transcript does not depend on cross-key timing.
type recorder struct {
	name string // handler name in the transcript

	mu     sync.Mutex          // guards events
	events map[string][]string // key -> notifications in delivery order
}

func newRecorder(name string) *recorder {
	return &recorder{name: name, events: map[string][]string{}}
}

func (r *recorder) record(obj interface{}, line string) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		key = "error:" + err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[key] = append(r.events[key], line)
}

func (r *recorder) OnAdd(obj interface{}, isInInitialList bool) {
	r.record(obj, fmt.Sprintf("add %s initial=%v", describe(obj), isInInitialList))
}

// OnUpdate records real changes only. A relist replays every unchanged
// object as an update to itself, and how many relists a forced watch reset
// causes depends on timing (in either library), so those replays are left
// out of the transcript.
func (r *recorder) OnUpdate(oldObj, newObj interface{}) {
	before, after := describe(oldObj), describe(newObj)
	if before == after {
		return
	}
	r.record(newObj, fmt.Sprintf("update %s -> %s", before, after))
}

func (r *recorder) OnDelete(obj interface{}) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		r.record(obj, fmt.Sprintf("delete (final state unknown) key=%s last=%s", tomb.Key, describe(tomb.Obj)))
		return
	}
	r.record(obj, fmt.Sprintf("delete %s", describe(obj)))
}

// count reports how many notifications key has received.
func (r *recorder) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events[key])
}

// dump writes every key's notifications, keys sorted.
func (r *recorder) dump(t *transcript) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.events))
	for k := range r.events {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, line := range r.events[k] {
			t.printf("handler %s %s: %s", r.name, k, line)
		}
	}
}

// waitFor polls cond until it holds or waitLimit passes.
func waitFor(what string, cond func() bool) error {
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// barrier adds a fresh barrier pod to the source and waits until every given
// recorder has seen it. Each handler receives its notifications in order, so
// after the barrier everything sent before it has been delivered.
func barrier(source *framework.FakeControllerSource, n int, recs ...*recorder) error {
	name := fmt.Sprintf("barrier-%d", n)
	source.Add(pod("zz", name, "frontend", "", v1.PodRunning))
	for _, r := range recs {
		r := r
		if err := waitFor(r.name+" to see "+name, func() bool { return r.count("zz/"+name) > 0 }); err != nil {
			return err
		}
	}
	return nil
}

func isFrontend(obj interface{}) bool {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	p, ok := obj.(*v1.Pod)
	return ok && p.Labels["tier"] == "frontend"
}

func runInformer(t *transcript) error {
	source := framework.NewFakeControllerSource()
	defer source.Shutdown()
	source.Add(pod("default", "web-1", "frontend", "node-a", v1.PodRunning))
	source.Add(pod("default", "db-1", "backend", "node-b", v1.PodRunning))
	source.Add(pod("kube-system", "dns", "infra", "node-a", v1.PodRunning))

	informer := cache.NewSharedIndexInformer(source, &v1.Pod{}, 0, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		byNode:               nodeIndex,
	})
	all := newRecorder("all")
	frontend := newRecorder("frontend")
	allReg, err := informer.AddEventHandler(all)
	if err != nil {
		return err
	}
	frontendReg, err := informer.AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: isFrontend,
		Handler:    frontend,
	})
	if err != nil {
		return err
	}
	t.printf("informer HasSynced before Run = %v registration HasSynced = %v", informer.HasSynced(), allReg.HasSynced())

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.Run(stop)
	}()
	stopped := false
	stopInformer := func() {
		if !stopped {
			stopped = true
			close(stop)
			<-done
		}
	}
	defer stopInformer()

	if !cache.WaitForCacheSync(stop, informer.HasSynced, allReg.HasSynced, frontendReg.HasSynced) {
		return errors.New("cache never synced")
	}
	t.printf("synced: informer=%v all=%v frontend=%v", informer.HasSynced(), allReg.HasSynced(), frontendReg.HasSynced())
	indexer := informer.GetIndexer()
	t.printf("initial keys=%v", sorted(indexer.ListKeys()))

	// Adds, modifies and deletes through the watch.
	source.Add(pod("default", "web-2", "frontend", "node-b", v1.PodPending))
	source.Modify(pod("default", "web-2", "frontend", "node-b", v1.PodRunning))
	source.Modify(pod("default", "db-1", "frontend", "node-b", v1.PodRunning)) // enters the filter
	source.Modify(pod("default", "web-1", "backend", "node-a", v1.PodRunning)) // leaves the filter
	source.Delete(pod("kube-system", "dns", "infra", "node-a", v1.PodRunning))
	if err := waitFor("dns to leave the indexer", func() bool {
		_, exists, _ := indexer.GetByKey("kube-system/dns")
		return !exists
	}); err != nil {
		return err
	}
	if err := barrier(source, 1, all, frontend); err != nil {
		return err
	}

	for _, node := range []string{"node-a", "node-b"} {
		objs, err := indexer.ByIndex(byNode, node)
		t.printf("informer ByIndex(byNode, %s) = %s err=%v", node, describeAll(objs), err)
	}
	keys, err := indexer.IndexKeys(cache.NamespaceIndex, "default")
	t.printf("informer IndexKeys(namespace, default) = %v err=%v", sorted(keys), err)
	t.printf("informer ListIndexFuncValues(namespace) = %v", sorted(indexer.ListIndexFuncValues(cache.NamespaceIndex)))
	t.printf("informer ListIndexFuncValues(byNode) = %v", sorted(indexer.ListIndexFuncValues(byNode)))

	lister := cache.NewGenericLister(indexer, schema.GroupResource{Resource: "pods"})
	listed, err := lister.List(labels.Everything())
	t.printf("lister List(everything) = %s err=%v", describeObjects(listed), err)
	sel := labels.SelectorFromSet(labels.Set{"tier": "frontend"})
	listed, err = lister.ByNamespace("default").List(sel)
	t.printf("lister ByNamespace(default).List(tier=frontend) = %s err=%v", describeObjects(listed), err)
	got, err := lister.ByNamespace("default").Get("web-2")
	t.printf("lister ByNamespace(default).Get(web-2) = %s err=%v", describeObject(got), err)
	got, err = lister.Get("default/db-1")
	t.printf("lister Get(default/db-1) = %s err=%v", describeObject(got), err)
	_, err = lister.ByNamespace("default").Get("nope")
	t.printf("lister ByNamespace(default).Get(nope) err=%v", err)

	// A delete the watch never reports, then a broken watch: the informer
	// only notices on the relist and reports DeletedFinalStateUnknown.
	source.DeleteDropWatch(pod("default", "web-2", "frontend", "node-b", v1.PodRunning))
	source.ResetWatch()
	if err := waitFor("web-2 to leave the indexer after relist", func() bool {
		_, exists, _ := indexer.GetByKey("default/web-2")
		return !exists
	}); err != nil {
		return err
	}
	if err := barrier(source, 2, all, frontend); err != nil {
		return err
	}

	if err := informer.RemoveEventHandler(frontendReg); err != nil {
		return err
	}
	t.printf("removed frontend handler")
	source.Add(pod("default", "web-3", "frontend", "node-a", v1.PodPending))
	if err := barrier(source, 3, all); err != nil {
		return err
	}
	t.printf("informer keys=%v", sorted(indexer.ListKeys()))
	t.printf("informer LastSyncResourceVersion set=%v", informer.LastSyncResourceVersion() != "")

	stopInformer()
	t.printf("informer stopped=%v", informer.IsStopped())
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	t.printf("AddEventHandler after stop err=%v", err)

	all.dump(t)
	frontend.dump(t)
	return nil
}

func describeObject(obj runtime.Object) string {
	if obj == nil {
		return "<nil>"
	}
	return describe(obj)
}

func describeObjects(objs []runtime.Object) string {
	parts := make([]interface{}, 0, len(objs))
	for _, o := range objs {
		parts = append(parts, o)
	}
	return describeAll(parts)
}
