package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// simulatedCluster is an in-process stand-in for a kube-apiserver serving
// pods: it lists, serves watches that resume from a resource version, keeps
// a bounded event history, and can drop every watch or compact its history
// (so that resuming fails with 410 Gone and clients relist).
//
// mu guards every field.
type simulatedCluster struct {
	// mu guards every field below.
	mu sync.Mutex
	// rv is the resource version of the last change.
	rv uint64
	// pods holds the current pods by namespace/name.
	pods map[string]*v1.Pod
	// keys lists the keys of pods, for picking one at random.
	keys []string
	// history holds the events after compactedRV, oldest first.
	history []recordedEvent
	// compactedRV is the newest resource version no longer in history.
	compactedRV uint64
	// watchers are the open watches.
	watchers map[*simulatedWatcher]struct{}
	// nextName numbers newly created pods.
	nextName int
	// stats count what the cluster did.
	stats clusterStats
}

// recordedEvent is one history entry.
type recordedEvent struct {
	// rv is the event's resource version.
	rv uint64
	// event is what a watcher receives.
	event watch.Event
}

// clusterStats counts the requests served and the disruptions injected.
type clusterStats struct {
	Lists, Watches, Dropped, Gone int
}

// maxHistory bounds the event history; older events are compacted away.
const maxHistory = 200_000

// newSimulatedCluster creates a cluster holding n pods spread over ten
// namespaces, a third of them labelled app=web.
func newSimulatedCluster(n int) *simulatedCluster {
	c := &simulatedCluster{pods: make(map[string]*v1.Pod, n), watchers: map[*simulatedWatcher]struct{}{}}
	for i := 0; i < n; i++ {
		c.createLocked()
	}
	c.history = nil
	c.compactedRV = c.rv
	return c
}

// newPodLocked builds the next pod. c.mu must be held.
func (c *simulatedCluster) newPodLocked() *v1.Pod {
	i := c.nextName
	c.nextName++
	app := "batch"
	if i%3 == 0 {
		app = "web"
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("team-%d", i%10),
			Name:      fmt.Sprintf("pod-%06d", i),
			Labels:    map[string]string{"app": app, "gen": "0"},
		},
		Spec: v1.PodSpec{NodeName: fmt.Sprintf("node-%03d", i%100)},
	}
}

// createLocked adds a new pod. c.mu must be held.
func (c *simulatedCluster) createLocked() {
	p := c.newPodLocked()
	key := p.Namespace + "/" + p.Name
	c.pods[key] = p
	c.keys = append(c.keys, key)
	c.emitLocked(watch.Added, p)
}

// emitLocked stamps obj with a new resource version and sends the event to
// the history and every watcher. c.mu must be held.
func (c *simulatedCluster) emitLocked(kind watch.EventType, p *v1.Pod) {
	c.rv++
	p.ResourceVersion = strconv.FormatUint(c.rv, 10)
	ev := watch.Event{Type: kind, Object: p.DeepCopy()}
	c.history = append(c.history, recordedEvent{rv: c.rv, event: ev})
	if len(c.history) > maxHistory {
		drop := len(c.history) - maxHistory
		c.compactedRV = c.history[drop-1].rv
		c.history = append(c.history[:0:0], c.history[drop:]...)
	}
	for w := range c.watchers {
		w.send(ev)
	}
}

// churn applies n random changes: mostly label updates, with some deletes
// and as many creates, so the pod count stays level.
func (c *simulatedCluster) churn(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < n; i++ {
		idx := rand.IntN(len(c.keys))
		key := c.keys[idx]
		p := c.pods[key].DeepCopy()
		switch r := rand.IntN(100); {
		case r < 3 && len(c.keys) > 1:
			delete(c.pods, key)
			c.keys[idx] = c.keys[len(c.keys)-1]
			c.keys = c.keys[:len(c.keys)-1]
			c.emitLocked(watch.Deleted, p)
			c.createLocked()
		default:
			gen, _ := strconv.Atoi(p.Labels["gen"])
			p.Labels["gen"] = strconv.Itoa(gen + 1)
			c.pods[key] = p
			c.emitLocked(watch.Modified, p)
		}
	}
}

// dropWatches closes every open watch, as a load balancer restart would;
// clients resume from their last resource version.
func (c *simulatedCluster) dropWatches() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for w := range c.watchers {
		w.Stop()
		delete(c.watchers, w)
	}
	c.stats.Dropped++
}

// expireHistory compacts the whole history and ends every watch with a 410
// Gone error event, so that clients have to relist.
func (c *simulatedCluster) expireHistory() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.history = nil
	c.compactedRV = c.rv
	status := apierrors.NewResourceExpired("simulated compaction: resource version too old").Status()
	for w := range c.watchers {
		w.send(watch.Event{Type: watch.Error, Object: &status})
	}
	c.stats.Gone++
}

// List returns every pod at the current resource version; the whole list
// comes in one page.
func (c *simulatedCluster) List(metav1.ListOptions) (runtime.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Lists++
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatUint(c.rv, 10)}}
	list.Items = make([]v1.Pod, 0, len(c.pods))
	for _, key := range c.keys {
		list.Items = append(list.Items, *c.pods[key].DeepCopy())
	}
	return list, nil
}

// Watch streams the events after options.ResourceVersion; a version older
// than the history yields one 410 Gone error event.
func (c *simulatedCluster) Watch(options metav1.ListOptions) (watch.Interface, error) {
	from, err := strconv.ParseUint(options.ResourceVersion, 10, 64)
	if err != nil && options.ResourceVersion != "" {
		return nil, apierrors.NewBadRequest("bad resource version " + options.ResourceVersion)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Watches++
	w := newSimulatedWatcher(c)
	if from < c.compactedRV {
		status := apierrors.NewResourceExpired("resource version too old").Status()
		w.send(watch.Event{Type: watch.Error, Object: &status})
		return w, nil
	}
	for _, rec := range c.history {
		if rec.rv > from {
			w.send(rec.event)
		}
	}
	c.watchers[w] = struct{}{}
	return w, nil
}

// IsWatchListSemanticsUnSupported makes the reflector use List then Watch.
func (c *simulatedCluster) IsWatchListSemanticsUnSupported() bool { return true }

// forget unregisters a stopped watcher.
func (c *simulatedCluster) forget(w *simulatedWatcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.watchers, w)
}

// snapshot returns the pod count and the counters.
func (c *simulatedCluster) snapshot() (int, clusterStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pods), c.stats
}
