package conformance

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// storeTombstone is the implementation-neutral form of a
// DeletedFinalStateUnknown. Each side converts it to its own package's type
// right before a call and back right after, so both sides see equal values.
// It is a comparable value as long as Obj is (pointers and ints are).
type storeTombstone struct {
	// Key is the key the tombstone claims for Obj.
	Key string
	// Obj is the neutral form of the wrapped object (may be nil).
	Obj any
}

// storeExplicitKey is the implementation-neutral form of an ExplicitKey.
type storeExplicitKey string

// storeWorld is the universe of one differential run: every object, key,
// resource version and indexed value the random operations may draw from,
// plus a printable name for each object so failures are readable.
//
// Invariants: every object handed to either side is in names (the
// transformer registers what it creates); the world is built only from the
// seed, so two runs with the same seed are identical. It is used by one
// goroutine only.
type storeWorld struct {
	// rng drives every random choice of the run.
	rng *rand.Rand
	// objects are the neutral values operations pick from, valid and invalid.
	objects []any
	// names gives each neutral object a unique printable name.
	names map[any]string
	// keys are the storage keys probed by GetByKey and used by ThreadSafeStore ops.
	keys []string
	// resourceVersions are the RVs used by Replace and Bookmark.
	resourceVersions []string
	// values are the indexed values probed by ByIndex and IndexKeys.
	values []string
	// transformed memoises the transformer so both sides get the very same output.
	transformed map[any]any
}

// storeNamespaces are the namespaces of namespaced objects; "" makes a
// namespaced object whose key looks cluster-scoped.
var storeNamespaces = []string{"default", "kube-system", "team-a", ""}

// storeObjectNames are the names shared by pods, config maps and custom
// objects, so that different kinds collide on one key; "" is deliberate.
var storeObjectNames = []string{"web-0", "web-1", "db-0", "cache", "x", ""}

// storeNodeNames are cluster-scoped names; "web-0" collides with the key of
// a namespaced object in namespace "".
var storeNodeNames = []string{"node-1", "node-2", "node-3", "node-4", "web-0"}

// storeApps are the values of the "app" label ("" means: label absent).
var storeApps = []string{"web", "db", "cache", ""}

// storeTags are the parts of the comma-separated "tags" label; repeats and
// empty parts make index functions return duplicate and empty values.
var storeTags = []string{"a", "b", "c", "a", ""}

// newStoreWorld builds the universe for one seed.
func newStoreWorld(seed int64) *storeWorld {
	w := &storeWorld{
		rng:         rand.New(rand.NewSource(seed)),
		names:       map[any]string{},
		transformed: map[any]any{},
	}
	w.resourceVersions = []string{"", "1", "2", "10", "99", "100", "abc", "007"}
	w.addNamespacedObjects()
	w.addNodes()
	w.addTombstones()
	w.addOddities()
	w.collectKeys()
	w.collectValues()
	return w
}

// register records obj under a unique printable name and returns it.
func (w *storeWorld) register(obj any, name string) any {
	if _, dup := w.names[obj]; !dup {
		w.names[obj] = fmt.Sprintf("%s#%d", name, len(w.names))
	}
	return obj
}

// addNamespacedObjects adds two versions of a pod, a config map and a custom
// object for every namespace and name.
func (w *storeWorld) addNamespacedObjects() {
	for _, ns := range storeNamespaces {
		for _, name := range storeObjectNames {
			for version := 0; version < 2; version++ {
				w.objects = append(w.objects,
					w.register(w.newPod(ns, name), "pod:"+ns+"/"+name),
					w.register(w.newConfigMap(ns, name), "cm:"+ns+"/"+name),
					w.register(w.newWidget(ns, name), "widget:"+ns+"/"+name))
			}
		}
	}
}

// addNodes adds two versions of every cluster-scoped node.
func (w *storeWorld) addNodes() {
	for _, name := range storeNodeNames {
		for version := 0; version < 2; version++ {
			node := &v1.Node{ObjectMeta: w.newMeta("", name)}
			w.objects = append(w.objects, w.register(node, "node:"+name))
		}
	}
}

// addTombstones wraps random objects in tombstones, some with their own key,
// some with a foreign key, one with no object and one wrapping an int.
func (w *storeWorld) addTombstones() {
	base := len(w.objects)
	for i := 0; i < 16; i++ {
		inner := w.objects[w.rng.Intn(base)]
		key := storeNeutralKey(inner)
		if i%4 == 3 {
			key = "elsewhere/tomb-" + strconv.Itoa(i)
		}
		t := storeTombstone{Key: key, Obj: inner}
		w.objects = append(w.objects, w.register(t, "tomb("+key+","+w.names[inner]+")"))
	}
	nilTomb := storeTombstone{Key: "default/ghost"}
	intTomb := storeTombstone{Key: "default/number", Obj: 3}
	w.objects = append(w.objects, w.register(nilTomb, "tomb(default/ghost,nil)"), w.register(intTomb, "tomb(default/number,int)"))
}

// addOddities adds explicit keys and values that have no metadata at all.
func (w *storeWorld) addOddities() {
	for _, k := range []string{"default/web-0", "team-a/x", "a/b/c", "", "plain", "/"} {
		w.objects = append(w.objects, w.register(storeExplicitKey(k), "explicit("+k+")"))
	}
	w.objects = append(w.objects,
		w.register(0, "int(0)"), w.register(42, "int(42)"),
		w.register(nil, "nil"), w.register("default/not-explicit", "string(default/not-explicit)"))
}

// collectKeys gathers every key the objects produce plus malformed ones.
func (w *storeWorld) collectKeys() {
	seen := map[string]bool{}
	for _, obj := range w.objects {
		seen[storeNeutralKey(obj)] = true
	}
	for _, k := range []string{"a/b/c", "/", "//", "missing/key", "default/"} {
		seen[k] = true
	}
	for k := range seen {
		w.keys = append(w.keys, k)
	}
	sort.Strings(w.keys)
}

// collectValues gathers every value an index function of the catalog can
// produce, plus values no object produces.
func (w *storeWorld) collectValues() {
	seen := map[string]bool{"missing-value": true, "": true}
	for _, def := range storeIndexCatalog {
		for _, obj := range w.objects {
			vals, _ := def.fn(obj)
			for _, v := range vals {
				seen[v] = true
			}
		}
	}
	for _, ns := range storeNamespaces {
		seen[ns] = true
	}
	for v := range seen {
		w.values = append(w.values, v)
	}
	sort.Strings(w.values)
}

// newMeta builds object metadata with random labels and resource version.
func (w *storeWorld) newMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace:       ns,
		Name:            name,
		ResourceVersion: w.pick(w.resourceVersions),
		Labels:          w.newLabels(),
	}
}

// newLabels returns a random label set with optional app and tags labels.
func (w *storeWorld) newLabels() map[string]string {
	labels := map[string]string{}
	if app := w.pick(storeApps); app != "" {
		labels["app"] = app
	}
	if n := w.rng.Intn(4); n > 0 {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = w.pick(storeTags)
		}
		labels["tags"] = strings.Join(parts, ",")
	}
	if len(labels) == 0 && w.rng.Intn(2) == 0 {
		return nil
	}
	return labels
}

// newPod builds a pod with a random node name.
func (w *storeWorld) newPod(ns, name string) *v1.Pod {
	nodes := append([]string{""}, storeNodeNames...)
	return &v1.Pod{ObjectMeta: w.newMeta(ns, name), Spec: v1.PodSpec{NodeName: w.pick(nodes)}}
}

// newConfigMap builds a config map with one data entry.
func (w *storeWorld) newConfigMap(ns, name string) *v1.ConfigMap {
	return &v1.ConfigMap{ObjectMeta: w.newMeta(ns, name), Data: map[string]string{"k": strconv.Itoa(w.rng.Intn(100))}}
}

// newWidget builds an unstructured custom object.
func (w *storeWorld) newWidget(ns, name string) *unstructured.Unstructured {
	return storeWidget(w.newMeta(ns, name))
}

// storeWidget builds an unstructured example.com/v1 Widget with m's
// namespace, name, resource version and labels.
func storeWidget(m metav1.ObjectMeta) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Widget")
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	u.SetResourceVersion(m.ResourceVersion)
	u.SetLabels(m.Labels)
	return u
}

// pick returns a random element of list.
func (w *storeWorld) pick(list []string) string {
	return list[w.rng.Intn(len(list))]
}

// pickObject returns a random neutral object.
func (w *storeWorld) pickObject() any {
	return w.objects[w.rng.Intn(len(w.objects))]
}

// pickKey returns a random key of the universe.
func (w *storeWorld) pickKey() string {
	return w.keys[w.rng.Intn(len(w.keys))]
}

// describe returns the printable name of a neutral object.
func (w *storeWorld) describe(obj any) string {
	if name, ok := w.names[obj]; ok {
		return name
	}
	return fmt.Sprintf("unnamed(%T %v)", obj, obj)
}

// transform is the neutral transformer used by rows with "transformer":
// pods get a memoised labelled copy, widgets named "x" a renamed copy, the
// "cache" config maps are refused with an error, node "node-4" becomes an
// int, everything else passes through unchanged.
func (w *storeWorld) transform(obj any) (any, error) {
	if out, ok := w.transformed[obj]; ok {
		return out, nil
	}
	var out any = obj
	switch o := obj.(type) {
	case *v1.Pod:
		c := o.DeepCopy()
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels["transformed"] = "yes"
		out = w.register(c, "transformed("+w.describe(o)+")")
	case *v1.ConfigMap:
		if o.Name == "cache" {
			return nil, errors.New("transformer refuses config maps named cache")
		}
	case *unstructured.Unstructured:
		if o.GetName() == "x" {
			c := o.DeepCopy()
			c.SetName("renamed-x")
			out = w.register(c, "renamed("+w.describe(o)+")")
		}
	case *v1.Node:
		if o.Name == "node-4" {
			out = 4
			w.register(out, "int(4)")
		}
	}
	w.transformed[obj] = out
	return out, nil
}

// storeNeutralKey computes a namespace/name key for a neutral object without
// either implementation; objects without a key map to "no-key".
func storeNeutralKey(obj any) string {
	switch o := obj.(type) {
	case storeTombstone:
		return o.Key
	case storeExplicitKey:
		return string(o)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "no-key"
	}
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}
