package conformance

import (
	"errors"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// storeIndexDef is one index of the catalog the random runs choose from.
// fn works on neutral objects and never fails (a failing index function
// makes client-go panic; that is covered by TestStoreIndexingPanicsLikeClientGo).
// When own is true each side uses its own MetaNamespaceIndexFunc instead of
// fn (guarded so objects without metadata index to nothing).
type storeIndexDef struct {
	// name is the index name.
	name string
	// fn computes the indexed values of a neutral object.
	fn func(obj any) ([]string, error)
	// own selects the implementation's MetaNamespaceIndexFunc.
	own bool
	// strict, with own, drops the guard: objects without metadata reach
	// MetaNamespaceIndexFunc and its error.
	strict bool
}

// storeUnknownIndex is an index name no store ever has.
const storeUnknownIndex = "no-such-index"

// storeIndexCatalog lists every index a run may install, with 0, 1 or many
// values per object, including duplicates and empty strings.
var storeIndexCatalog = []storeIndexDef{
	{name: "namespace", fn: storeNamespaceValues, own: true},
	{name: "app", fn: storeAppValues},
	{name: "tags", fn: storeTagValues},
	{name: "node", fn: storeNodeValues},
	{name: "kind", fn: storeKindValues},
	{name: "none", fn: storeNoValues},
	{name: "empty", fn: storeEmptyValues},
	{name: "everything", fn: storeConstantValues},
}

// storeFailingIndexes are indices whose function can fail; they are only
// used by TestStoreIndexingPanicsLikeClientGo, never by random runs.
var storeFailingIndexes = []storeIndexDef{
	{name: "fails-on-bad", fn: storeFailOnBad},
	{name: "namespace-strict", own: true, strict: true},
}

// storeBadIndexErr is the error storeFailOnBad returns.
var storeBadIndexErr = errors.New("refusing to index an object named bad")

// storeFailOnBad indexes everything under "ok" except objects named "bad".
func storeFailOnBad(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err == nil && m.GetName() == "bad" {
		return nil, storeBadIndexErr
	}
	return []string{"ok"}, nil
}

// storeIndexDefByName finds a catalog entry.
func storeIndexDefByName(name string) storeIndexDef {
	for _, def := range append(storeIndexCatalog, storeFailingIndexes...) {
		if def.name == name {
			return def
		}
	}
	panic("unknown catalog index " + name)
}

// storeLabels returns the labels of an object with metadata, or nil.
func storeLabels(obj any) map[string]string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return m.GetLabels()
}

// storeNamespaceValues mirrors the namespace index for value collection.
func storeNamespaceValues(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil
	}
	return []string{m.GetNamespace()}, nil
}

// storeAppValues indexes by the app label: one value, or none when absent.
func storeAppValues(obj any) ([]string, error) {
	app, ok := storeLabels(obj)["app"]
	if !ok {
		return nil, nil
	}
	return []string{app}, nil
}

// storeTagValues splits the tags label on commas, keeping duplicates and
// empty parts.
func storeTagValues(obj any) ([]string, error) {
	tags, ok := storeLabels(obj)["tags"]
	if !ok {
		return nil, nil
	}
	return strings.Split(tags, ","), nil
}

// storeNodeValues indexes pods by spec.nodeName (even "") and nodes by name.
func storeNodeValues(obj any) ([]string, error) {
	switch o := obj.(type) {
	case *v1.Pod:
		return []string{o.Spec.NodeName}, nil
	case *v1.Node:
		return []string{o.Name}, nil
	}
	return nil, nil
}

// storeKindValues names the kind of value; tombstones give two values.
func storeKindValues(obj any) ([]string, error) {
	switch o := obj.(type) {
	case nil:
		return nil, nil
	case *v1.Pod:
		return []string{"Pod"}, nil
	case *v1.ConfigMap:
		return []string{"ConfigMap"}, nil
	case *v1.Node:
		return []string{"Node"}, nil
	case *unstructured.Unstructured:
		return []string{"Widget"}, nil
	case storeTombstone:
		inner, _ := storeKindValues(o.Obj)
		return append([]string{"Tombstone"}, inner...), nil
	case storeExplicitKey:
		return []string{"ExplicitKey"}, nil
	case int:
		return []string{"int"}, nil
	}
	return []string{"other"}, nil
}

// storeNoValues indexes nothing, as a nil slice.
func storeNoValues(any) ([]string, error) { return nil, nil }

// storeEmptyValues indexes nothing, as an empty non-nil slice.
func storeEmptyValues(any) ([]string, error) { return []string{}, nil }

// storeConstantValues puts every object under one value, twice.
func storeConstantValues(any) ([]string, error) { return []string{"all", "all"}, nil }
