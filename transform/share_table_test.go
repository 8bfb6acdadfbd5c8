package transform

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

func TestACanonicalTableForgetsTheEntryOfAValueNothingReferencesAnyMore(t *testing.T) {
	var table sharedSlices[[]string, string]
	keep := []string{"kept"}
	table.share(&keep, 0)
	func() {
		dropped := []string{"dropped"}
		table.share(&dropped, 0)
	}()
	if n := table.table.size(); n != 2 {
		t.Fatalf("the table holds %d values, want 2", n)
	}
	for i := 0; i < 10 && table.table.size() != 1; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := table.table.size(); n != 1 {
		t.Fatalf("the table holds %d values after the dropped one was collected, want 1", n)
	}
	table.table.sweep()
	if !table.table.isCanonical(unsafe.Pointer(&keep[0]), 1) || table.table.values.used != 1 {
		t.Fatalf("the table uses %d slots after a sweep, want the kept value's alone", table.table.values.used)
	}
	runtime.KeepAlive(keep)
}

func TestAMapIsOnePointerToTheObjectTheCanonicalTablesHoldWeakly(t *testing.T) {
	m := map[string]string{"a": "b"}
	if unsafe.Sizeof(m) != unsafe.Sizeof(uintptr(0)) {
		t.Fatalf("a map is %d bytes, not one pointer", unsafe.Sizeof(m))
	}
	if back := objectMap[map[string]string](mapObject(m)); back["a"] != "b" || len(back) != 1 {
		t.Fatalf("the map rebuilt from its object is %v", back)
	}
}

func TestAContentHashAgreesWithDeepEqualOnNilAndEmpty(t *testing.T) {
	var nilSlice []string
	var nilMap map[string]string
	pairs := []struct {
		name string
		a, b interface{}
	}{
		{"nil and empty slice", nilSlice, []string{}},
		{"nil and empty map", nilMap, map[string]string{}},
		{"nil and zero pointer", (*int)(nil), new(int)},
		{"a and ab split differently", []string{"a", "b"}, []string{"ab", ""}},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			if hashOf(p.a) == hashOf(p.b) {
				t.Fatalf("%#v and %#v hash alike", p.a, p.b)
			}
		})
	}
	if hashOf(map[string]string{"x": "1", "y": "2"}) != hashOf(map[string]string{"y": "2", "x": "1"}) {
		t.Fatal("equal maps hash differently")
	}
}

func hashOf(v interface{}) uint64 { h, _ := contentHash(reflect.ValueOf(v)); return h }
