package extras

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cgcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// listerStore is the part of an Indexer the lister scenarios fill.
type listerStore interface {
	Add(obj interface{}) error
}

// listerKit is one implementation's lister helpers over its own Indexer.
type listerKit struct {
	newIndexer  func(withNamespaceIndex bool) listerStore
	listAll     func(s listerStore, sel labels.Selector, fn func(interface{})) error
	listAllByNS func(s listerStore, ns string, sel labels.Selector, fn func(interface{})) error
	generic     func(s listerStore) genericListerLike
	tombstone   func(key string, obj interface{}) interface{}
}

// genericListerLike is GenericLister of either implementation.
type genericListerLike interface {
	List(selector labels.Selector) ([]runtime.Object, error)
	Get(name string) (runtime.Object, error)
	namespaced(ns string) genericNamespaceListerLike
}

// genericNamespaceListerLike is GenericNamespaceLister of either
// implementation.
type genericNamespaceListerLike interface {
	List(selector labels.Selector) ([]runtime.Object, error)
	Get(name string) (runtime.Object, error)
}

// listerKey keys pods by namespace/name and other values by their type and
// text, so that an Indexer without a namespace index can hold objects
// without metadata.
func listerKey(obj interface{}) (string, error) {
	switch v := obj.(type) {
	case *v1.Pod:
		if v.Namespace == "" {
			return v.Name, nil
		}
		return v.Namespace + "/" + v.Name, nil
	case v1.Pod:
		return "value/" + v.Name, nil
	case string:
		return "string/" + strings.ReplaceAll(v, " ", "-"), nil
	}
	return strings.ReplaceAll(fmt.Sprintf("%T", obj), " ", "-"), nil
}

var resourcePods = schema.GroupResource{Resource: "pods"}

type cgGeneric struct{ cgcache.GenericLister }

func (g cgGeneric) namespaced(ns string) genericNamespaceListerLike { return g.ByNamespace(ns) }

type kcGeneric struct{ kcache.GenericLister }

func (g kcGeneric) namespaced(ns string) genericNamespaceListerLike { return g.ByNamespace(ns) }

// listerIndexers returns one implementation's Indexers: none, or with
// withNS the namespace index under name.
func listerIndexers[I ~map[string]F, F any](withNS bool, name string, namespace F) I {
	indexers := I{}
	if withNS {
		indexers[name] = namespace
	}
	return indexers
}

var clientGoListers = listerKit{
	newIndexer: func(withNS bool) listerStore {
		return cgcache.NewIndexer(listerKey, listerIndexers[cgcache.Indexers](withNS, cgcache.NamespaceIndex, cgcache.MetaNamespaceIndexFunc))
	},
	listAll: func(s listerStore, sel labels.Selector, fn func(interface{})) error {
		return cgcache.ListAll(s.(cgcache.Indexer), sel, fn)
	},
	listAllByNS: func(s listerStore, ns string, sel labels.Selector, fn func(interface{})) error {
		return cgcache.ListAllByNamespace(s.(cgcache.Indexer), ns, sel, fn)
	},
	generic: func(s listerStore) genericListerLike {
		return cgGeneric{cgcache.NewGenericLister(s.(cgcache.Indexer), resourcePods)}
	},
	tombstone: func(key string, obj interface{}) interface{} {
		return cgcache.DeletedFinalStateUnknown{Key: key, Obj: obj}
	},
}

var kcacheListers = listerKit{
	newIndexer: func(withNS bool) listerStore {
		return kcache.NewIndexer(listerKey, listerIndexers[kcache.Indexers](withNS, kcache.NamespaceIndex, kcache.MetaNamespaceIndexFunc))
	},
	listAll: func(s listerStore, sel labels.Selector, fn func(interface{})) error {
		return kcache.ListAll(s.(kcache.Indexer), sel, fn)
	},
	listAllByNS: func(s listerStore, ns string, sel labels.Selector, fn func(interface{})) error {
		return kcache.ListAllByNamespace(s.(kcache.Indexer), ns, sel, fn)
	},
	generic: func(s listerStore) genericListerLike {
		return kcGeneric{kcache.NewGenericLister(s.(kcache.Indexer), resourcePods)}
	},
	tombstone: func(key string, obj interface{}) interface{} {
		return kcache.DeletedFinalStateUnknown{Key: key, Obj: obj}
	},
}

// listerObject parses an object word of listers.txt: "nometa" (a string),
// "value:NAME" (a v1.Pod value), "tombstone-nil" (a tombstone without
// object), "tombstone:NS/NAME" (a tombstone of that pod),
// "[NS/]NAME[:LABEL]" (a pod; without NS cluster-scoped).
func (kit listerKit) listerObject(ref string) interface{} {
	if ref == "nometa" {
		return "no metadata"
	}
	if ref == "tombstone-nil" {
		return kit.tombstone("ns1/gone", nil)
	}
	if key, ok := strings.CutPrefix(ref, "tombstone:"); ok {
		return kit.tombstone(key, kit.listerObject(key))
	}
	if name, ok := strings.CutPrefix(ref, "value:"); ok {
		return v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: name}}
	}
	ref, label, _ := strings.Cut(ref, ":")
	ns, name, found := strings.Cut(ref, "/")
	if !found {
		ns, name = "", ref
	}
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if label != "" {
		p.Labels = map[string]string{"l": label}
	}
	return p
}

// listerSelector parses a selector word: "everything", "nothing", "nil",
// "empty" (an empty label set's selector), or a label selector.
func listerSelector(word string) labels.Selector {
	switch word {
	case "everything":
		return labels.Everything()
	case "nothing":
		return labels.Nothing()
	case "nil":
		return nil
	case "empty":
		return labels.Set{}.AsSelector()
	}
	return labels.SelectorFromSet(labels.Set{"l": word})
}

// describeListed renders listed values sorted.
func describeListed[T any](objs []T) string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, describeListerValue(o))
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

func describeListerValue(obj interface{}) string {
	if p, ok := obj.(*v1.Pod); ok && p != nil {
		return p.Namespace + "/" + p.Name
	}
	return describeValue(obj)
}

// playListers returns the player of listers.txt. Option ns=true gives the
// Indexer the namespace index. Steps: "add OBJ...", "listall SEL",
// "listns NS SEL", "generic-list SEL", "generic-ns-list NS SEL",
// "generic-get NAME", "generic-ns-get NS NAME" (NS or NAME "-" is "").
// Every line shows what was logged through klog's global logger.
func playListers(kit listerKit) player {
	return func(t *testing.T, sc scenario) []string {
		logger, rec := newCaptureLogger()
		restore := routeKlog(t, logger, "10")
		defer restore()
		s := kit.newIndexer(sc.options["ns"] == "true")
		var trace []string
		for _, step := range sc.steps {
			result := capturePanic(func() string { return listerStep(kit, s, step) })
			trace = append(trace, strings.Join(step, " ")+" -> "+result)
			for _, line := range rec.take() {
				trace = append(trace, "  log: "+line)
			}
		}
		klog.Flush()
		return trace
	}
}

// dash turns "-" into "".
func dash(word string) string { return strings.TrimPrefix(word, "-") }

func listerStep(kit listerKit, s listerStore, step []string) string {
	var got []interface{}
	appendFn := func(obj interface{}) { got = append(got, obj) }
	switch step[0] {
	case "add":
		var errs []string
		for _, ref := range step[1:] {
			errs = append(errs, fmt.Sprint(s.Add(kit.listerObject(ref))))
		}
		return strings.Join(errs, " ")
	case "listall":
		err := kit.listAll(s, listerSelector(step[1]), appendFn)
		return fmt.Sprintf("%s err=%v", describeListed(got), err)
	case "listns":
		err := kit.listAllByNS(s, dash(step[1]), listerSelector(step[2]), appendFn)
		return fmt.Sprintf("%s err=%v", describeListed(got), err)
	case "generic-list":
		objs, err := kit.generic(s).List(listerSelector(step[1]))
		return fmt.Sprintf("%s nil=%v err=%v", describeListed(objs), objs == nil, err)
	case "generic-ns-list":
		objs, err := kit.generic(s).namespaced(dash(step[1])).List(listerSelector(step[2]))
		return fmt.Sprintf("%s nil=%v err=%v", describeListed(objs), objs == nil, err)
	case "generic-get":
		obj, err := kit.generic(s).Get(dash(step[1]))
		return fmt.Sprintf("%s err=%v", describeListerValue(obj), err)
	case "generic-ns-get":
		obj, err := kit.generic(s).namespaced(dash(step[1])).Get(dash(step[2]))
		return fmt.Sprintf("%s err=%v", describeListerValue(obj), err)
	}
	return "unknown step"
}

func TestListersMatchClientGo(t *testing.T) {
	compareTraces(t, "listers.txt", playListers(clientGoListers), playListers(kcacheListers))
}
