package clientgo

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clientgocache "k8s.io/client-go/tools/cache"
)

// indexerKeys renders the names of an Indexers map, sorted; nil is "nil".
func indexerKeys(m clientgocache.Indexers) string {
	if m == nil {
		return "nil"
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return fmt.Sprint(names)
}

// sameMap reports whether a and b are the very same map.
func sameMap(a, b clientgocache.Indexers) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func byName(obj interface{}) ([]string, error) { return []string{obj.(metav1.Object).GetName()}, nil }

// indexersBuilder builds, for one entry point, the informer of pods given
// the caller's Indexers map, and a function that runs it until ctx is done.
type indexersBuilder func(t *testing.T, indexers clientgocache.Indexers) (clientgocache.SharedIndexInformer, func(context.Context))

func runItself(inf clientgocache.SharedIndexInformer) func(context.Context) {
	return inf.RunWithContext
}

// traceIndexers follows the caller's Indexers map, and the maps GetIndexers
// returns, through AddIndexers and direct writes into each, then the index
// reads once the informer synced.
func traceIndexers(t *testing.T, build indexersBuilder, initial clientgocache.Indexers) []string {
	t.Helper()
	inf, run := build(t, initial)
	first := inf.GetIndexer().GetIndexers()
	out := []string{fmt.Sprintf("built: caller's %s, GetIndexers %s, same as the caller's %v, GetStore's is GetIndexer's %v",
		indexerKeys(initial), indexerKeys(first), sameMap(first, initial),
		sameMap(inf.GetStore().(clientgocache.Indexer).GetIndexers(), first))}
	err := inf.AddIndexers(clientgocache.Indexers{"added": byName})
	out = append(out, fmt.Sprintf("AddIndexers: %v; caller's %s, first GetIndexers %s, GetIndexers %s",
		err, indexerKeys(initial), indexerKeys(first), indexerKeys(inf.GetIndexer().GetIndexers())))
	if first != nil {
		first["direct"] = byName
	}
	if initial != nil {
		initial["callers"] = byName
	}
	out = append(out, fmt.Sprintf("direct writes: GetIndexers %s", indexerKeys(inf.GetIndexer().GetIndexers())))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	defer func() { cancel(); <-done }()
	if !clientgocache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("no sync")
	}
	for _, name := range []string{clientgocache.NamespaceIndex, "added", "direct", "callers"} {
		keys, err := inf.GetIndexer().IndexKeys(name, "a")
		out = append(out, fmt.Sprintf("IndexKeys(%s, a) = %v, %v", name, keys, err))
	}
	return out
}

// podClient serves one pod, ns/a.
func podClient() *fake.Clientset {
	return fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
}

func viaFactory(newFactory typedFactoryConstructor) indexersBuilder {
	return func(t *testing.T, indexers clientgocache.Indexers) (clientgocache.SharedIndexInformer, func(context.Context)) {
		f := newFactory(podClient(), 0)
		inf := f.InformerFor(&corev1.Pod{}, func(c kubernetes.Interface, resync time.Duration) clientgocache.SharedIndexInformer {
			return coreinformers.NewPodInformer(c, metav1.NamespaceAll, resync, indexers)
		})
		return inf, func(ctx context.Context) {
			f.StartWithContext(ctx)
			<-ctx.Done()
			f.Shutdown()
		}
	}
}

// indexersEntryPoints are the ways a caller's Indexers map reaches an
// informer, each as kcache's view and as client-go.
func indexersEntryPoints() []indexersEntryPoint {
	withOptions := func(newInformer func(clientgocache.ListerWatcher, runtime.Object, clientgocache.SharedIndexInformerOptions) clientgocache.SharedIndexInformer) indexersBuilder {
		return func(t *testing.T, indexers clientgocache.Indexers) (clientgocache.SharedIndexInformer, func(context.Context)) {
			inf := newInformer(listedAt42(), &corev1.Pod{}, clientgocache.SharedIndexInformerOptions{Indexers: indexers})
			return inf, runItself(inf)
		}
	}
	plain := func(newInformer func(clientgocache.ListerWatcher, runtime.Object, time.Duration, clientgocache.Indexers) clientgocache.SharedIndexInformer) indexersBuilder {
		return func(t *testing.T, indexers clientgocache.Indexers) (clientgocache.SharedIndexInformer, func(context.Context)) {
			inf := newInformer(listedAt42(), &corev1.Pod{}, 0, indexers)
			return inf, runItself(inf)
		}
	}
	typed := func(onKcache bool) indexersBuilder {
		return func(t *testing.T, indexers clientgocache.Indexers) (clientgocache.SharedIndexInformer, func(context.Context)) {
			inf := coreinformers.NewPodInformer(podClient(), metav1.NamespaceAll, 0, indexers)
			if onKcache {
				inf = OnKcache(inf)
			}
			return inf, runItself(inf)
		}
	}
	return []indexersEntryPoint{
		{"NewSharedIndexInformer", plain(NewSharedIndexInformer), plain(clientgocache.NewSharedIndexInformer)},
		{"NewSharedIndexInformerWithOptions", withOptions(NewSharedIndexInformerWithOptions), withOptions(clientgocache.NewSharedIndexInformerWithOptions)},
		{"a typed factory's InformerFor", viaFactory(NewSharedInformerFactoryWithOptions), viaFactory(informers.NewSharedInformerFactoryWithOptions)},
		{"OnKcache of a typed constructor", typed(true), typed(false)},
	}
}

// indexersEntryPoint is one entry of indexersEntryPoints.
type indexersEntryPoint struct {
	name         string
	ours, theirs indexersBuilder
}

func TestTheViewsKeepTheCallersIndexersMapAsClientGo(t *testing.T) {
	for _, tc := range indexersEntryPoints() {
		for _, initial := range []func() clientgocache.Indexers{
			func() clientgocache.Indexers {
				return clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc}
			},
			func() clientgocache.Indexers { return clientgocache.Indexers{} },
		} {
			t.Run(fmt.Sprintf("%s with %s", tc.name, indexerKeys(initial())), func(t *testing.T) {
				want, got := traceIndexers(t, tc.theirs, initial()), traceIndexers(t, tc.ours, initial())
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("kcache:\n %s\nclient-go:\n %s", got[i], want[i])
					}
				}
			})
		}
	}
}

// An informer built with nil Indexers has nil GetIndexers in both
// libraries; its AddIndexers then panics in client-go ("assignment to entry
// in nil map") and works in kcache (README, Deliberate differences: nil
// maps handed to the store). This pins both sides through every entry
// point of the views.
func TestAddIndexersOfAnInformerBuiltWithNilIndexersWorksWhereClientGoPanics(t *testing.T) {
	for _, tc := range indexersEntryPoints() {
		t.Run(tc.name, func(t *testing.T) {
			theirs, _ := tc.theirs(t, nil)
			ours, _ := tc.ours(t, nil)
			if g, w := ours.GetIndexer().GetIndexers(), theirs.GetIndexer().GetIndexers(); g != nil || w != nil {
				t.Errorf("GetIndexers = %v, client-go %v, want nil in both", g, w)
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Error("client-go's AddIndexers did not panic; update README's Deliberate differences and this test")
					}
				}()
				_ = theirs.AddIndexers(clientgocache.Indexers{"added": byName})
			}()
			if err := ours.AddIndexers(clientgocache.Indexers{"added": byName}); err != nil || indexerKeys(ours.GetIndexer().GetIndexers()) != "[added]" {
				t.Errorf("AddIndexers = %v, GetIndexers %s", err, indexerKeys(ours.GetIndexer().GetIndexers()))
			}
		})
	}
}
