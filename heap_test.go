package cache

import (
	"reflect"
	"sort"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// heapByVersion orders pods by their numeric resource version.
func heapByVersion(a, b interface{}) bool {
	x, _ := strconv.Atoi(a.(*v1.Pod).ResourceVersion)
	y, _ := strconv.Atoi(b.(*v1.Pod).ResourceVersion)
	return x < y
}

func TestHeapPopsInPriorityOrderAfterUpdatesAndDeletes(t *testing.T) {
	h := NewHeap(MetaNamespaceKeyFunc, heapByVersion)
	mustNoErr(t, h.Add(testPod("ns", "a", "5")))
	mustNoErr(t, h.Add(testPod("ns", "b", "3")))
	mustNoErr(t, h.BulkAdd([]interface{}{testPod("ns", "c", "4"), testPod("ns", "d", "9")}))
	mustNoErr(t, h.AddIfNotPresent(testPod("ns", "a", "0"))) // present: ignored
	mustNoErr(t, h.Update(testPod("ns", "d", "1")))          // moves to the front
	mustNoErr(t, h.Delete(testPod("ns", "b", "3")))
	if err := h.Delete(testPod("ns", "zz", "1")); err == nil || err.Error() != "object not found" {
		t.Fatalf("Delete of an absent key = %v", err)
	}
	keys := h.ListKeys()
	sort.Strings(keys)
	if want := []string{"ns/a", "ns/c", "ns/d"}; !reflect.DeepEqual(keys, want) || len(h.List()) != 3 {
		t.Fatalf("keys %q, want %q", keys, want)
	}
	if obj, ok, err := h.GetByKey("ns/c"); !ok || err != nil || queueText(obj) != "c@4" {
		t.Fatalf("GetByKey = %v %v %v", obj, ok, err)
	}
	var got []string
	for i := 0; i < 3; i++ {
		obj, err := h.Pop()
		mustNoErr(t, err)
		got = append(got, queueText(obj))
	}
	if want := []string{"d@1", "c@4", "a@5"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("popped %q, want %q", got, want)
	}
}

func TestHeapRejectsWritesOnceClosedButStillPopsWhatItHolds(t *testing.T) {
	h := NewHeap(MetaNamespaceKeyFunc, heapByVersion)
	mustNoErr(t, h.Add(testPod("ns", "a", "1")))
	h.Close()
	for name, err := range map[string]error{
		"Add":             h.Add(testPod("ns", "b", "1")),
		"AddIfNotPresent": h.AddIfNotPresent(testPod("ns", "b", "1")),
		"Update":          h.Update(testPod("ns", "b", "1")),
		"BulkAdd":         h.BulkAdd(nil),
	} {
		if err == nil || err.Error() != "heap is closed" {
			t.Fatalf("%s on a closed heap = %v", name, err)
		}
	}
	if obj, err := h.Pop(); err != nil || queueText(obj) != "a@1" {
		t.Fatalf("Pop = %v %v, want the held item", obj, err)
	}
	if _, err := h.Pop(); err == nil || !h.IsClosed() {
		t.Fatalf("Pop on a closed empty heap = %v", err)
	}
}
