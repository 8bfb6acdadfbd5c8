package cache

import (
	"errors"
	"fmt"
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

// registryFailsOnBad indexes a pod by the first letter of its name, and
// fails on the pod named "bad".
func registryFailsOnBad(obj interface{}) ([]string, error) {
	if obj.(*v1.Pod).Name == "bad" {
		return nil, errors.New("cannot index bad")
	}
	return registryFirstLetter(obj)
}

// registryKeysOrPanic returns IndexKeys, or the panic it raised.
func registryKeysOrPanic(s Indexer, name, value string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	keys, err := s.IndexKeys(name, value)
	return fmt.Sprintf("%v err=%v", keys, err)
}

// An IndexFunc added to the map directly is built by the first read; when
// it fails on a stored object that read panics, as AddIndexers would, and
// the index is not left registered with only the objects met before the
// failing one: every later read builds it again (and panics again while the
// object is stored), so no read ever answers from part of the objects.
func TestAnIndexFuncAddedDirectlyThatFailsOnAStoredObjectIsNeverReadFromPartOfTheObjects(t *testing.T) {
	indexers := Indexers{"app": registryApp}
	s := NewIndexer(MetaNamespaceKeyFunc, indexers)
	for _, name := range []string{"alpha", "bad", "bob", "bold"} {
		s.Add(registryPod(name, "x"))
	}
	indexers["letter"] = registryFailsOnBad
	const failure = `panic: unable to calculate an index entry for key "ns/bad" on index "letter": cannot index bad`
	for i := 0; i < 2; i++ {
		if got := registryKeysOrPanic(s, "letter", "b"); got != failure {
			t.Fatalf("read %d with bad stored: %s, want %s", i+1, got, failure)
		}
	}
	s.Delete(registryPod("bad", "x"))
	if got, want := registryKeysOrPanic(s, "letter", "b"), "[ns/bob ns/bold] err=<nil>"; got != want {
		t.Fatalf("once bad is gone, IndexKeys(letter, b) = %s, want %s", got, want)
	}
}
