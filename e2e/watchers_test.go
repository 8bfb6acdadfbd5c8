package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cgcache "k8s.io/client-go/tools/cache"
)

// watcher is one running informer (or bare Reflector) under test, seen
// through what every kind of watcher offers.
type watcher struct {
	// name says which library and which kind of watcher it is.
	name string
	// lw is the counting ListerWatcher it was given.
	lw *countingLW
	// rec records its handler notifications; nil for a bare Reflector.
	rec *recorder
	// cached returns the objects in its cache.
	cached func() []interface{}
	// lastRV returns its LastSyncResourceVersion.
	lastRV func() string
	// synced reports whether its initial sync is done (for informers: the
	// informer and the recorder's registration have synced).
	synced func() bool
	// done is closed when its Run returns.
	done chan struct{}
}

// watcherFactory starts one watcher on o until ctx ends.
type watcherFactory func(ctx context.Context, o objects, p *partition) (*watcher, error)

// kcacheInformer starts kcache's SharedIndexInformer with a recorder.
func kcacheInformer(ctx context.Context, o objects, p *partition) (*watcher, error) {
	lw := &countingLW{objects: o, partition: p}
	inf := kcache.NewSharedIndexInformer(lw.forKcache(), o.kind.newObject(), 0, kcache.Indexers{})
	rec := newRecorder(o.kind)
	reg, err := inf.AddEventHandler(rec)
	if err != nil {
		return nil, err
	}
	w := &watcher{
		name: "kcache SharedIndexInformer", lw: lw, rec: rec,
		cached: inf.GetStore().List, lastRV: inf.LastSyncResourceVersion,
		synced: func() bool { return inf.HasSynced() && reg.HasSynced() },
		done:   make(chan struct{}),
	}
	go func() { defer close(w.done); inf.RunWithContext(ctx) }()
	return w, nil
}

// kcacheReflector starts a kcache Reflector feeding a plain Indexer.
func kcacheReflector(ctx context.Context, o objects, p *partition) (*watcher, error) {
	lw := &countingLW{objects: o, partition: p}
	indexer, reflector := kcache.NewNamespaceKeyedIndexerAndReflector(lw.forKcache(), o.kind.newObject(), 0)
	w := &watcher{
		name: "kcache Reflector+Indexer", lw: lw,
		cached: indexer.List, lastRV: reflector.LastSyncResourceVersion,
		synced: func() bool { return reflector.LastSyncResourceVersion() != "" },
		done:   make(chan struct{}),
	}
	go func() { defer close(w.done); reflector.RunWithContext(ctx) }()
	return w, nil
}

// clientGoInformer starts client-go's SharedIndexInformer with a recorder.
func clientGoInformer(ctx context.Context, o objects, p *partition) (*watcher, error) {
	lw := &countingLW{objects: o, partition: p}
	inf := cgcache.NewSharedIndexInformer(lw.forClientGo(), o.kind.newObject(), 0, cgcache.Indexers{})
	rec := newRecorder(o.kind)
	reg, err := inf.AddEventHandler(rec)
	if err != nil {
		return nil, err
	}
	w := &watcher{
		name: "client-go SharedIndexInformer", lw: lw, rec: rec,
		cached: inf.GetStore().List, lastRV: inf.LastSyncResourceVersion,
		synced: func() bool { return inf.HasSynced() && reg.HasSynced() },
		done:   make(chan struct{}),
	}
	go func() { defer close(w.done); inf.RunWithContext(ctx) }()
	return w, nil
}

// startWatchers starts one watcher per factory on o. They run until the
// test ends; cleanup stops them and fails the test if one does not return.
func startWatchers(t *testing.T, o objects, p *partition, factories ...watcherFactory) []*watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var ws []*watcher
	t.Cleanup(func() { stopWatchers(t, cancel, ws) })
	for _, f := range factories {
		w, err := f(ctx, o, p)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	return ws
}

// stopWatchers cancels the watchers' context and waits for every Run to
// return.
func stopWatchers(t *testing.T, cancel context.CancelFunc, ws []*watcher) {
	cancel()
	deadline := time.After(30 * time.Second)
	for _, w := range ws {
		select {
		case <-w.done:
		case <-deadline:
			t.Errorf("%s: Run did not return within 30s of its context ending", w.name)
			return
		}
	}
}

// poll calls cond every 20ms until it returns "" or timeout passes; then it
// fails the test with what cond last said.
func poll(t *testing.T, timeout time.Duration, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		problem := cond()
		if problem == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %s: %s", what, timeout, problem)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitSynced waits until every watcher has synced.
func waitSynced(t *testing.T, ws []*watcher, timeout time.Duration) {
	t.Helper()
	poll(t, timeout, "initial sync", func() string {
		for _, w := range ws {
			if !w.synced() {
				return w.name + " has not synced"
			}
		}
		return ""
	})
}

// waitConverged waits until every watcher's LastSyncResourceVersion has
// reached fenceRV, then until every cache equals the server's state and
// every recorder's last notification per key matches it. It returns the
// server's state.
func waitConverged(t *testing.T, ctx context.Context, o objects, ws []*watcher, fenceRV string, timeout time.Duration) snapshot {
	t.Helper()
	start := time.Now()
	poll(t, timeout, "resourceVersion "+fenceRV, func() string {
		for _, w := range ws {
			if rv := w.lastRV(); !rvAtLeast(rv, fenceRV) {
				return fmt.Sprintf("%s is at %q", w.name, rv)
			}
		}
		return ""
	})
	server, _, err := o.serverSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	poll(t, timeout, "caches equal to the server", func() string {
		for _, w := range ws {
			if d := server.diff(snapshotOf(o.kind, w.cached())); d != "" {
				return w.name + ": " + d
			}
			if w.rec == nil {
				continue
			}
			if d := w.rec.checkFinals(server); d != "" {
				return w.name + " notifications: " + d
			}
		}
		return ""
	})
	t.Logf("%s: all %d watchers equal the server (%d objects) %s after the last write", o.kind.resource, len(ws), len(server), time.Since(start).Round(time.Millisecond))
	return server
}

// fenceCounter makes fence object names unique.
var fenceCounter atomic.Int64

// fence writes one more object, so that its resourceVersion is the last
// write's, and returns that resourceVersion.
func fence(t *testing.T, ctx context.Context, o objects) string {
	t.Helper()
	name := "zz-fence-" + strconv.FormatInt(fenceCounter.Add(1), 10)
	obj, err := o.create(ctx, o.kind.build(name, map[string]string{"fence": name}))
	if err != nil {
		t.Fatalf("fence write: %v", err)
	}
	return mustMeta(obj).GetResourceVersion()
}

// newNamespace creates a fresh namespace for one test (namespaces cannot be
// deleted without a controller-manager, so each test gets its own).
func newNamespace(t *testing.T, ctx context.Context, prefix string) string {
	t.Helper()
	client, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	ns, err = client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// objectsIn returns the reader/writer for kind k in namespace ns.
func objectsIn(t *testing.T, k kind, ns string) objects {
	t.Helper()
	client, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	return objects{kind: k, rc: client.CoreV1().RESTClient(), ns: ns}
}

// logCounts reports each watcher's ListerWatcher calls; relists are the
// full syncs after the first.
func logCounts(t *testing.T, label string, ws []*watcher) {
	t.Helper()
	for _, w := range ws {
		t.Logf("%s: %-30s relists=%d (lists=%d pages=%d watchlist-streams=%d) watches=%d notifications: %s",
			label, w.name, w.lw.initialSyncs()-1, w.lw.lists.Load(), w.lw.pages.Load(), w.lw.streams.Load(), w.lw.watches.Load(), recCounts(w.rec))
	}
}

// recCounts renders a recorder's counts; a bare Reflector has none.
func recCounts(r *recorder) string {
	if r == nil {
		return "none (no handlers)"
	}
	c := r.counts()
	return fmt.Sprintf("add=%d update=%d delete=%d", c["add"], c["update"], c["delete"])
}
