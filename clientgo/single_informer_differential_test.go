package clientgo

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/metadata/metadatainformer"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/internal/privatefield"
)

// singleInformer is what a single-informer constructor gave: the informer
// and, for the dynamic and metadata constructors, the GenericInformer's
// lister (nil for the typed ones).
type singleInformer struct {
	informer clientgocache.SharedIndexInformer
	lister   clientgocache.GenericLister
}

func typedSingle(inf clientgocache.SharedIndexInformer) singleInformer {
	return singleInformer{informer: inf}
}

func genericSingle(g informers.GenericInformer) singleInformer {
	return singleInformer{informer: g.Informer(), lister: g.Lister()}
}

// singleInformerCase builds one single-informer constructor's informer on
// a fixture, as client-go and as clientgo; gone is the object the watch
// gap deletes, of resource.
type singleInformerCase struct {
	name             string
	clientGo, kcache func(f *gapFixture) singleInformer
	resource         schema.GroupVersionResource
	gone             [2]string
}

var (
	webOnly  = func(o *metav1.ListOptions) { o.LabelSelector = "app=web" }
	byApp    = clientgocache.Indexers{"app": func(obj interface{}) ([]string, error) { return []string{labelOf(obj, "app")}, nil }}
	byAppAnd = clientgocache.Indexers{"app": byApp["app"], clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc}
)

// relabel is a transform that prefixes a pod's app label with "t-".
func relabel(obj interface{}) (interface{}, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		p.Labels = map[string]string{"app": "t-" + p.Labels["app"]}
	}
	return obj, nil
}

// labelOf is the value of obj's label key ("" when obj has no metadata).
func labelOf(obj interface{}, key string) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetLabels()[key]
}

// typedSingleInformerCases are the typed packages' constructors: clientgo
// runs each through OnKcache.
func typedSingleInformerCases() []singleInformerCase {
	typed := func(name string, build func(f *gapFixture) clientgocache.SharedIndexInformer, resource schema.GroupVersionResource, gone [2]string) singleInformerCase {
		return singleInformerCase{name: name, resource: resource, gone: gone,
			clientGo: func(f *gapFixture) singleInformer { return typedSingle(build(f)) },
			kcache:   func(f *gapFixture) singleInformer { return typedSingle(OnKcache(build(f))) }}
	}
	return []singleInformerCase{
		typed("coreinformers.NewPodInformer in every namespace", func(f *gapFixture) clientgocache.SharedIndexInformer {
			return coreinformers.NewPodInformer(f.typed, metav1.NamespaceAll, 0, nil)
		}, podsResource, [2]string{"a", "web-2"}),
		typed("coreinformers.NewFilteredPodInformer in one namespace with a tweak and indexers", func(f *gapFixture) clientgocache.SharedIndexInformer {
			return coreinformers.NewFilteredPodInformer(f.typed, "a", time.Minute, byAppAnd, webOnly)
		}, podsResource, [2]string{"a", "web-2"}),
		typed("coreinformers.NewPodInformerWithOptions", func(f *gapFixture) clientgocache.SharedIndexInformer {
			return coreinformers.NewPodInformerWithOptions(f.typed, "a", internalinterfaces.InformerOptions{
				ResyncPeriod: 30 * time.Second, Indexers: byApp, TweakListOptions: webOnly})
		}, podsResource, [2]string{"a", "web-1"}),
		typed("coreinformers.NewNamespaceInformer of a cluster-scoped resource", func(f *gapFixture) clientgocache.SharedIndexInformer {
			return coreinformers.NewNamespaceInformer(f.typed, time.Hour, clientgocache.Indexers{})
		}, namespacesResource, [2]string{"", "b"}),
		typed("coreinformers.NewPodInformer with AddIndexers and SetTransform called before", func(f *gapFixture) clientgocache.SharedIndexInformer {
			inf := coreinformers.NewPodInformer(f.typed, "a", 0, clientgocache.Indexers{}) // NB: client-go's AddIndexers panics on nil
			_ = inf.AddIndexers(byApp)
			_ = inf.SetTransform(relabel)
			return inf
		}, podsResource, [2]string{"a", "db-1"}),
		typed("appsinformers.NewFilteredDeploymentInformer of another group", func(f *gapFixture) clientgocache.SharedIndexInformer {
			return appsinformers.NewFilteredDeploymentInformer(f.typed, metav1.NamespaceAll, 0, byApp, webOnly)
		}, deploymentsResource, [2]string{"b", "web-1"}),
	}
}

// resourceSingleInformerCases are the dynamic and metadata constructors:
// clientgo has each under the same name and signature.
func resourceSingleInformerCases() []singleInformerCase {
	return []singleInformerCase{
		{name: "dynamicinformer.NewFilteredDynamicInformer in one namespace with a tweak and indexers", resource: podsResource, gone: [2]string{"a", "web-2"},
			clientGo: func(f *gapFixture) singleInformer {
				return genericSingle(dynamicinformer.NewFilteredDynamicInformer(f.dynamic, podsResource, "a", time.Minute, byApp, webOnly))
			},
			kcache: func(f *gapFixture) singleInformer {
				return genericSingle(NewFilteredDynamicInformer(f.dynamic, podsResource, "a", time.Minute, byApp, webOnly))
			}},
		{name: "dynamicinformer.NewFilteredDynamicInformer without indexers", resource: podsResource, gone: [2]string{"b", "web-1"},
			clientGo: func(f *gapFixture) singleInformer {
				return genericSingle(dynamicinformer.NewFilteredDynamicInformer(f.dynamic, podsResource, metav1.NamespaceAll, 0, nil, nil))
			},
			kcache: func(f *gapFixture) singleInformer {
				return genericSingle(NewFilteredDynamicInformer(f.dynamic, podsResource, metav1.NamespaceAll, 0, nil, nil))
			}},
		{name: "metadatainformer.NewFilteredMetadataInformer", resource: podsResource, gone: [2]string{"a", "db-1"},
			clientGo: func(f *gapFixture) singleInformer {
				return genericSingle(metadatainformer.NewFilteredMetadataInformer(f.metadata, podsResource, metav1.NamespaceAll, time.Minute, byAppAnd, nil))
			},
			kcache: func(f *gapFixture) singleInformer {
				return genericSingle(NewFilteredMetadataInformer(f.metadata, podsResource, metav1.NamespaceAll, time.Minute, byAppAnd, nil))
			}},
	}
}

// singleInformerSettings renders how inf was built: its indexers (sorted),
// default resync, object description and example object type.
func singleInformerSettings(t *testing.T, inf clientgocache.SharedIndexInformer) string {
	t.Helper()
	var target any = inf
	if k, ok := KcacheInformer(inf); ok {
		target = k
	}
	description, _ := privatefield.Read[string](target, "objectDescription")
	var names []string
	for name := range inf.GetIndexer().GetIndexers() {
		names = append(names, name)
	}
	sort.Strings(names)
	return fmt.Sprintf("indexers %v, resync %v, description %q", names, defaultResyncOf(t, inf), description)
}

// playWatchGap runs the informer tc builds through a sync, a delete missed
// during a watch gap and the relist that follows, and renders what its
// settings, cache, indexes, lister, handler and requests show.
func playWatchGap(t *testing.T, tc singleInformerCase, build func(f *gapFixture) singleInformer, wantKcache bool) []string {
	t.Helper()
	f := newGapFixture(t)
	single := build(f)
	inf := single.informer
	if _, isKcache := KcacheInformer(inf); isKcache != wantKcache {
		t.Fatalf("informer %T: kcache = %v, want %v", inf, isKcache, wantKcache)
	}
	trace := []string{singleInformerSettings(t, inf)}
	n := newNotifications()
	reg, err := inf.AddEventHandler(n.handler())
	if err != nil {
		t.Fatal(err)
	}
	stop := runUntilStopped(inf)
	defer stop()
	if !clientgocache.WaitForCacheSync(nil, reg.HasSynced) {
		t.Fatal("no sync")
	}
	trace = append(trace, "synced: "+strings.Join(readSingle(single), "; "))
	f.deleteSilently(tc.resource, tc.gone[0], tc.gone[1])
	expire(<-f.watchers)
	<-n.deleted
	<-f.watchers // the relist happened before the second watch
	trace = append(trace, "relisted: "+strings.Join(readSingle(single), "; "))
	trace = append(trace, n.sorted()...)
	return append(trace, f.actions()...)
}

// readSingle renders the informer's cache, its indexes and its lister.
func readSingle(s singleInformer) []string {
	out := []string{fmt.Sprint(keysOf(s.informer.GetStore().List()))}
	indexer := s.informer.GetIndexer()
	for _, index := range []string{"app", clientgocache.NamespaceIndex} {
		if _, ok := indexer.GetIndexers()[index]; ok {
			values := indexer.ListIndexFuncValues(index)
			sort.Strings(values)
			out = append(out, fmt.Sprintf("index %s %v", index, values))
		}
	}
	if s.lister != nil {
		all, err := s.lister.List(labels.Everything())
		inA, errA := s.lister.ByNamespace("a").List(labels.Everything())
		got, errGet := s.lister.ByNamespace("a").Get("web-1")
		out = append(out, fmt.Sprintf("lister %T: %v %v, in a %v %v, get a/web-1 %s %v",
			s.lister, keysOf(runtimeAsObjects(all)), err, keysOf(runtimeAsObjects(inA)), errA, describeNotified(got), errGet))
	}
	return out
}

func TestSingleInformerConstructorsListWatchIndexAndDeliverAMissedDeleteAsClientGos(t *testing.T) {
	for _, tc := range append(typedSingleInformerCases(), resourceSingleInformerCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // NB: each side waits out its reflector's backoff before the relist
			want := playWatchGap(t, tc, tc.clientGo, false)
			got := playWatchGap(t, tc, tc.kcache, true)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("kcache:\n  %s\nclient-go:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if !strings.Contains(strings.Join(got, "\n"), "delete client-go tombstone") {
				t.Errorf("no client-go tombstone delivered:\n  %s", strings.Join(got, "\n  "))
			}
			if testing.Verbose() {
				t.Logf("identical traces:\n  %s", strings.Join(got, "\n  "))
			}
		})
	}
}
