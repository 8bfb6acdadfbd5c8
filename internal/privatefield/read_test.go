package privatefield

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// inner is a struct reached through a field.
type inner struct {
	base  string
	count int
}

// promoted is embedded, by value and by pointer, to promote its field.
type promoted struct{ deep string }

// other also has a field named deep, to make it ambiguous.
type other struct{ deep string }

// sample has unexported fields of every shape the readers follow.
type sample struct {
	name      string
	content   inner
	next      *inner
	nilNext   *inner
	handler   fmt.Stringer
	listeners map[*inner]bool
	lock      sync.RWMutex
	promoted
}

// viaPointer promotes deep through an embedded pointer.
type viaPointer struct{ *promoted }

// ambiguous has deep promoted at the same depth twice.
type ambiguous struct {
	promoted
	other
}

// stringer is a fmt.Stringer.
type stringer struct{}

func (stringer) String() string { return "s" }

func newSample() *sample {
	return &sample{
		name: "n", content: inner{base: "b", count: 3}, next: &inner{base: "nb"},
		handler: stringer{}, listeners: map[*inner]bool{{}: true}, promoted: promoted{deep: "d"},
	}
}

func TestReadCopiesTheFieldAtThePathWhenItHasTheTypeAskedFor(t *testing.T) {
	s := newSample()
	cases := []struct {
		name string
		read func() (any, bool)
		want any
		ok   bool
	}{
		{"a field", func() (any, bool) { return Read[string](s, "name") }, "n", true},
		{"a field of a struct field", func() (any, bool) { return Read[string](s, "content", "base") }, "b", true},
		{"a struct field whole", func() (any, bool) { return Read[inner](s, "content") }, inner{"b", 3}, true},
		{"a field through a pointer", func() (any, bool) { return Read[string](s, "next", "base") }, "nb", true},
		{"a field of an interface type", func() (any, bool) { return Read[fmt.Stringer](s, "handler") }, stringer{}, true},
		{"a field promoted from an embedded struct", func() (any, bool) { return Read[string](s, "deep") }, "d", true},
		{"a field promoted through an embedded pointer", func() (any, bool) {
			return Read[string](&viaPointer{&promoted{deep: "p"}}, "deep")
		}, "p", true},
		{"a field of another type", func() (any, bool) { return Read[int](s, "name") }, 0, false},
		{"an interface field asked as its dynamic type", func() (any, bool) { return Read[stringer](s, "handler") }, stringer{}, false},
		{"a missing field", func() (any, bool) { return Read[string](s, "noSuchField") }, "", false},
		{"a missing field further down", func() (any, bool) { return Read[string](s, "content", "noSuchField") }, "", false},
		{"a path through a field that is no struct", func() (any, bool) { return Read[string](s, "name", "x") }, "", false},
		{"a path through a nil pointer", func() (any, bool) { return Read[string](s, "nilNext", "base") }, "", false},
		{"a field promoted through a nil embedded pointer", func() (any, bool) { return Read[string](&viaPointer{}, "deep") }, "", false},
		{"an ambiguous promoted field", func() (any, bool) { return Read[string](&ambiguous{}, "deep") }, "", false},
		{"an empty path", func() (any, bool) { return Read[sample](s) }, sample{}, false},
		{"a struct, not a pointer to one", func() (any, bool) { return Read[string](inner{base: "b"}, "base") }, "", false},
		{"a nil pointer", func() (any, bool) { return Read[string]((*sample)(nil), "name") }, "", false},
		{"nil", func() (any, bool) { return Read[string](nil, "name") }, "", false},
		{"a pointer to no struct", func() (any, bool) { return Read[string](new(int), "name") }, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.read()
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("read %#v, %v; want %#v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestValueIsAReadableCopyOfAFieldOfAnUnexportedType(t *testing.T) {
	s := newSample()
	listeners, ok := Value(s, "listeners")
	if !ok || listeners.Kind() != reflect.Map || listeners.Len() != 1 {
		t.Fatalf("Value(listeners) = %v, %v; want the map of one listener", listeners, ok)
	}
	for it := listeners.MapRange(); it.Next(); {
		if _, isInner := it.Key().Interface().(*inner); !isInner {
			t.Errorf("key %T, want *inner", it.Key().Interface())
		}
	}
	next, ok := Value(s, "next")
	if !ok || next.Interface() != any(s.next) {
		t.Errorf("Value(next) = %v, %v; want the pointer held", next, ok)
	}
	next.Set(reflect.ValueOf(&inner{}))
	if s.next.base != "nb" {
		t.Error("setting the copy changed the field")
	}
	for _, path := range [][]string{{"noSuchField"}, {"nilNext", "base"}, {}} {
		if v, ok := Value(s, path...); ok || v.IsValid() {
			t.Errorf("Value(%v) = %v, %v; want none", path, v, ok)
		}
	}
}

func TestRWMutexIsTheLockItselfOnlyWhenTheFieldIsOne(t *testing.T) {
	s := newSample()
	mu, ok := RWMutex(s, "lock")
	if !ok || mu != &s.lock {
		t.Fatalf("RWMutex(lock) = %p, %v; want %p", mu, ok, &s.lock)
	}
	s.lock.Lock()
	if mu.TryRLock() {
		t.Error("the lock read-locks while its owner holds it")
	}
	s.lock.Unlock()
	if !mu.TryRLock() {
		t.Error("the lock does not read-lock once free")
	}
	mu.RUnlock()
	for _, path := range [][]string{{"name"}, {"noSuchField"}, {}} {
		if mu, ok := RWMutex(s, path...); ok || mu != nil {
			t.Errorf("RWMutex(%v) = %p, %v; want none", path, mu, ok)
		}
	}
}
