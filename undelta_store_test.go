package cache

import (
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func undeltaPod(name string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

// pushRecorder records every state pushed by an UndeltaStore.
type pushRecorder struct {
	mu     sync.Mutex
	states [][]string
}

func (r *pushRecorder) push(objs []interface{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, names(objs))
}

func TestUndeltaStorePushesTheWholeStateAfterEverySuccessfulChange(t *testing.T) {
	rec := &pushRecorder{}
	u := NewUndeltaStore(rec.push, MetaNamespaceKeyFunc)
	steps := []struct {
		name string
		do   func() error
	}{
		{"add a", func() error { return u.Add(undeltaPod("a")) }},
		{"add b", func() error { return u.Add(undeltaPod("b")) }},
		{"update a", func() error { return u.Update(undeltaPod("a")) }},
		{"delete b", func() error { return u.Delete(undeltaPod("b")) }},
		{"delete absent", func() error { return u.Delete(undeltaPod("zz")) }},
		{"replace", func() error { return u.Replace([]interface{}{undeltaPod("x"), undeltaPod("y")}, "7") }},
		{"replace with nothing", func() error { return u.Replace(nil, "8") }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	want := "[[a] [a b] [a b] [a] [a] [x y] []]"
	if got := fmt.Sprint(rec.states); got != want {
		t.Fatalf("pushed states = %s, want %s", got, want)
	}
}

func TestUndeltaStoreRejectedChangesAndBookmarksPushNothing(t *testing.T) {
	rec := &pushRecorder{}
	u := NewUndeltaStore(rec.push, MetaNamespaceKeyFunc)
	bad := "no metadata"
	for name, op := range map[string]func() error{
		"add":     func() error { return u.Add(bad) },
		"update":  func() error { return u.Update(bad) },
		"delete":  func() error { return u.Delete(bad) },
		"replace": func() error { return u.Replace([]interface{}{bad}, "1") },
	} {
		if err := op(); err == nil {
			t.Errorf("%s of an object without metadata succeeded", name)
		}
	}
	u.Bookmark("9")
	if err := u.Resync(); err != nil {
		t.Fatal(err)
	}
	if len(rec.states) != 0 {
		t.Fatalf("pushes happened: %v", rec.states)
	}
	if got := u.LastStoreSyncResourceVersion(); got != "9" {
		t.Fatalf("LastStoreSyncResourceVersion = %q, want 9", got)
	}
}

func TestUndeltaStorePushesAnEmptyNonNilStateWhenEmpty(t *testing.T) {
	var got []interface{}
	u := NewUndeltaStore(func(objs []interface{}) { got = objs }, MetaNamespaceKeyFunc)
	if err := u.Replace(nil, "1"); err != nil {
		t.Fatal(err)
	}
	if got == nil || len(got) != 0 {
		t.Fatalf("pushed %#v, want an empty non-nil slice", got)
	}
}

func TestUndeltaStoreConcurrentChangesEachPush(t *testing.T) {
	rec := &pushRecorder{}
	u := NewUndeltaStore(rec.push, MetaNamespaceKeyFunc)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_ = u.Add(undeltaPod(fmt.Sprint("p", i)))
		}(i)
	}
	wg.Wait()
	if len(rec.states) != 20 {
		t.Fatalf("%d pushes for 20 adds", len(rec.states))
	}
	if last := len(u.List()); last != 20 {
		t.Fatalf("store holds %d objects", last)
	}
}
