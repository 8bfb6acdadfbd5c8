package cache

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// registryPod is a pod in namespace ns labelled app=app.
func registryPod(name, app string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": app}}}
}

// registryApp indexes a pod by its app label.
func registryApp(obj interface{}) ([]string, error) {
	return []string{obj.(*v1.Pod).Labels["app"]}, nil
}

// registryFirstLetter indexes a pod by the first letter of its name.
func registryFirstLetter(obj interface{}) ([]string, error) {
	return []string{obj.(*v1.Pod).Name[:1]}, nil
}

// registryKeys returns IndexKeys, failing the test on an error.
func registryKeys(t *testing.T, s Indexer, name, value string) []string {
	t.Helper()
	keys, err := s.IndexKeys(name, value)
	if err != nil {
		t.Fatalf("IndexKeys(%q, %q): %v", name, value, err)
	}
	return keys
}

// The deliberate difference of README "An IndexFunc written into the
// Indexers map directly": client-go reads the map on every write, so its
// index of an entry added while objects are stored holds only the objects
// written since, and an entry deleted or replaced directly changes what the
// next writes do; kcache builds an added entry in full on its first read,
// and keeps a deleted or replaced entry's index as registered until the
// next Replace, which, as client-go's, rebuilds every index from the map
// (conformance/store_indexers_map_test.go pins the behaviour shared with
// client-go).
func TestAnIndexFuncAddedToTheIndexersMapDirectlyIsBuiltFromEveryStoredObjectOnItsFirstRead(t *testing.T) {
	indexers := Indexers{"app": registryApp}
	s := NewIndexer(MetaNamespaceKeyFunc, indexers)
	s.Add(registryPod("alpha", "x"))
	s.Add(registryPod("amber", "y"))
	indexers["letter"] = registryFirstLetter
	s.Add(registryPod("apex", "x"))
	// client-go: [ns/apex], the only object written since.
	if got, want := registryKeys(t, s, "letter", "a"), []string{"ns/alpha", "ns/amber", "ns/apex"}; !slices.Equal(got, want) {
		t.Fatalf("IndexKeys(letter, a) = %v, want %v", got, want)
	}
	s.Update(registryPod("amber", "z"))
	s.Add(registryPod("bold", "z"))
	if got, want := registryKeys(t, s, "letter", "b"), []string{"ns/bold"}; !slices.Equal(got, want) {
		t.Fatalf("after the build, writes keep it: IndexKeys(letter, b) = %v, want %v", got, want)
	}
	if values := s.ListIndexFuncValues("letter"); len(values) != 2 {
		t.Fatalf("ListIndexFuncValues(letter) = %v, want a and b", values)
	}
}

func TestAnIndexFuncDeletedOrReplacedInTheIndexersMapDirectlyKeepsItsIndexUntilTheNextReplace(t *testing.T) {
	indexers := Indexers{"app": registryApp, "letter": registryFirstLetter}
	s := NewIndexer(MetaNamespaceKeyFunc, indexers)
	s.Add(registryPod("alpha", "x"))
	delete(indexers, "app")
	indexers["letter"] = registryApp
	s.Add(registryPod("bold", "x"))
	// client-go: "Index with name app does not exist", and bold under
	// letter "x".
	if got, want := registryKeys(t, s, "app", "x"), []string{"ns/alpha", "ns/bold"}; !slices.Equal(got, want) {
		t.Fatalf("deleted entry: IndexKeys(app, x) = %v, want %v", got, want)
	}
	if got, want := registryKeys(t, s, "letter", "b"), []string{"ns/bold"}; !slices.Equal(got, want) {
		t.Fatalf("replaced entry: IndexKeys(letter, b) = %v, want %v", got, want)
	}
	if err := s.Replace([]interface{}{registryPod("alpha", "x"), registryPod("bold", "y")}, "9"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IndexKeys("app", "x"); err == nil || err.Error() != "Index with name app does not exist" {
		t.Fatalf("after Replace, IndexKeys(app, x) err = %v, want the index not to exist", err)
	}
	if got, want := registryKeys(t, s, "letter", "y"), []string{"ns/bold"}; !slices.Equal(got, want) {
		t.Fatalf("after Replace, IndexKeys(letter, y) = %v, want %v", got, want)
	}
}
