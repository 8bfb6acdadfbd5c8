package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	kc "github.com/kcache-go/cache"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	cg "k8s.io/client-go/tools/cache"
)

// keytagSource serves its lists in turn (the last repeats) and a fresh
// fake watcher per Watch, handed to the test on watchers; it declines
// WatchList semantics so both reflectors list and then watch.
type keytagSource struct {
	mu       sync.Mutex
	lists    []*corev1.PodList
	all      []*watch.FakeWatcher
	watchers chan *watch.FakeWatcher
}

func (s *keytagSource) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists[0]
	if len(s.lists) > 1 {
		s.lists = s.lists[1:]
	}
	return l.DeepCopy(), nil
}

func (s *keytagSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := watch.NewFake()
	s.all = append(s.all, w)
	select {
	case s.watchers <- w:
	default:
	}
	return w, nil
}

func (s *keytagSource) IsWatchListSemanticsUnSupported() bool { return true }

// stop closes every watcher handed out.
func (s *keytagSource) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.all {
		w.Stop()
	}
}

// keytagEvent is one watch event of the script.
type keytagEvent struct {
	typ watch.EventType
	pod *corev1.Pod
}

// keytagScript draws the initial list and the events from the tricky keys.
func keytagScript(seed int64, n int) ([]corev1.Pod, []keytagEvent) {
	rng := rand.New(rand.NewSource(seed))
	rv := 1
	mk := func() *corev1.Pod {
		rv++
		ns := keytagNamespaces[rng.Intn(len(keytagNamespaces))]
		name := keytagNames[rng.Intn(len(keytagNames))]
		if rng.Intn(3) == 0 {
			ns, name = fmt.Sprintf("bulk-%d", rng.Intn(4)), fmt.Sprintf("p-%d", rng.Intn(120))
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: fmt.Sprint(rv),
			Labels: map[string]string{"s": fmt.Sprint(rng.Intn(4))}}}
	}
	var initial []corev1.Pod
	for i := 0; i < n/4; i++ {
		initial = append(initial, *mk())
	}
	var events []keytagEvent
	for i := 0; i < n; i++ {
		typ := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}[rng.Intn(3)]
		events = append(events, keytagEvent{typ, mk()})
	}
	return initial, events
}

// keytagInformerContent renders an informer's indexer: every key with its
// object, a lookup of every key of the world, and the namespace index.
type keytagReads interface {
	ListKeys() []string
	GetByKey(key string) (any, bool, error)
	ByIndex(name, value string) ([]any, error)
	ListIndexFuncValues(name string) []string
}

func keytagRenderPod(obj any) string {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%q/%q@%s", p.Namespace, p.Name, p.ResourceVersion)
}

func keytagInformerContent(r keytagReads, probe []string) string {
	var b strings.Builder
	keys := r.ListKeys()
	sort.Strings(keys)
	for _, k := range append(keys, probe...) {
		obj, ok, _ := r.GetByKey(k)
		if ok {
			fmt.Fprintf(&b, "%q=%s\n", k, keytagRenderPod(obj))
		} else {
			fmt.Fprintf(&b, "%q absent\n", k)
		}
	}
	values := r.ListIndexFuncValues("namespace")
	sort.Strings(values)
	for _, v := range values {
		objs, _ := r.ByIndex("namespace", v)
		out := make([]string, len(objs))
		for i, o := range objs {
			out[i] = keytagRenderPod(o)
		}
		sort.Strings(out)
		fmt.Fprintf(&b, "namespace[%q]=%s\n", v, strings.Join(out, " "))
	}
	return b.String()
}

// keytagSentinel is the last event of every run; its delivery to a handler
// means every earlier event reached the indexer.
const keytagSentinel = "zz-sentinel"

// keytagPlay runs one library's informer through the script and returns
// its indexer's content. With a relist, the first watch ends with 410 Gone
// after the events and the reflector lists relist, whose missing keys the
// informer deletes with tombstones keyed by their renderings. start starts
// the informer and returns its reads, a cancel and a wait for it to stop.
func keytagPlay(t *testing.T, initial []corev1.Pod, events []keytagEvent, relist []corev1.Pod, probe []string,
	start func(lw *keytagSource, seen chan<- struct{}) (keytagReads, func(), func())) string {
	lists := []*corev1.PodList{{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: initial}}
	if relist != nil {
		lists = append(lists, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "500000"}, Items: relist})
	}
	src := &keytagSource{lists: lists, watchers: make(chan *watch.FakeWatcher, 4)}
	seen := make(chan struct{})
	reads, cancel, wait := start(src, seen)
	w := <-src.watchers
	for _, e := range events {
		w.Action(e.typ, e.pod.DeepCopy())
	}
	if relist != nil {
		w.Error(&apierrors.NewResourceExpired("relist on purpose").ErrStatus)
		w = <-src.watchers
	}
	w.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "zz", Name: keytagSentinel, ResourceVersion: "999999"}})
	<-seen
	content := keytagInformerContent(reads, probe)
	cancel()
	src.stop()
	wait()
	return content
}

// keytagSentinelHandler closes seen when the sentinel is added.
func keytagIsSentinel(obj any) bool {
	p, ok := obj.(*corev1.Pod)
	return ok && p.Name == keytagSentinel
}

func TestASharedIndexInformerFedTrickyKeysEndsWithClientGosIndexerContent(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tests := []struct {
		name   string
		seed   int64
		events int
		relist bool
	}{
		{"a short script", 11, 60, false},
		{"a long script over a growing table", 12, 800, false},
		{"a long script ending in a relist that deletes by tombstones", 13, 800, true},
		{"a short script ending in a relist", 14, 80, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			initial, events := keytagScript(tt.seed, tt.events)
			var relist []corev1.Pod
			if tt.relist {
				// every other pod of the script: the rest vanish.
				for i, e := range events {
					if i%2 == 0 {
						p := *e.pod.DeepCopy()
						p.ResourceVersion = fmt.Sprint(400000 + i)
						relist = append(relist, p)
					}
				}
			}
			probe := []string{"zz/" + keytagSentinel}
			for _, ns := range keytagNamespaces {
				for _, name := range keytagNames {
					probe = append(probe, keytagRender(ns, name))
				}
			}
			got := keytagPlay(t, initial, events, relist, probe, keytagStart(t, func(lw *keytagSource, onAdd func(any)) (keytagReads, func(context.Context), error) {
				inf := kc.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, kc.Indexers{"namespace": kc.MetaNamespaceIndexFunc})
				_, err := inf.AddEventHandler(kc.ResourceEventHandlerFuncs{AddFunc: onAdd})
				return inf.GetIndexer(), inf.RunWithContext, err
			}))
			want := keytagPlay(t, initial, events, relist, probe, keytagStart(t, func(lw *keytagSource, onAdd func(any)) (keytagReads, func(context.Context), error) {
				inf := cg.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cg.Indexers{"namespace": cg.MetaNamespaceIndexFunc})
				_, err := inf.AddEventHandler(cg.ResourceEventHandlerFuncs{AddFunc: onAdd})
				return inf.GetIndexer(), inf.RunWithContext, err
			}))
			if got != want {
				t.Fatalf("indexer content differs after %d events\n%s", len(events), layoutDiff(want, got))
			}
			if tt.relist && (!strings.Contains(got, "@40") || strings.Contains(got, "@"+events[1].pod.ResourceVersion+"\n")) {
				t.Fatalf("the relist did not reach the indexer:\n%s", got)
			}
			if !strings.Contains(got, keytagSentinel) || strings.Count(got, "=") < 10 {
				t.Fatalf("the indexer holds too little to compare:\n%s", got)
			}
		})
	}
}

// keytagStart returns a keytagPlay start that builds one library's
// informer with build (its indexer, its run and the handler registration's
// error), with an add handler that closes seen at the sentinel, and runs it
// until the returned cancel; the returned wait waits for run to return.
func keytagStart(t *testing.T, build func(lw *keytagSource, onAdd func(any)) (keytagReads, func(context.Context), error)) func(*keytagSource, chan<- struct{}) (keytagReads, func(), func()) {
	return func(lw *keytagSource, seen chan<- struct{}) (keytagReads, func(), func()) {
		var once sync.Once
		reads, run, err := build(lw, func(obj any) {
			if keytagIsSentinel(obj) {
				once.Do(func() { close(seen) })
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); run(ctx) }()
		return reads, cancel, func() { <-done }
	}
}
