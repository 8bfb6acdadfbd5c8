package cache

import (
	"errors"
	"reflect"
	"testing"
)

func TestFIFOProcessesTheLatestVersionOnceAndSkipsDeletedKeys(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	mustNoErr(t, f.Add(testPod("ns", "b", "1")))
	mustNoErr(t, f.Update(testPod("ns", "a", "2")))
	mustNoErr(t, f.Delete(testPod("ns", "b", "1")))
	mustNoErr(t, f.Add(testPod("ns", "c", "1")))
	f.Close()
	var got []string
	for {
		item, err := f.Pop(func(interface{}, bool) error { return nil })
		if errors.Is(err, ErrFIFOClosed) {
			break
		}
		mustNoErr(t, err)
		got = append(got, queueText(item))
	}
	if want := []string{"a@2", "c@1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("popped %q, want %q", got, want)
	}
}

func TestFIFOReplaceResetsTheQueueAndCountsItsKeysForHasSynced(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	var keyErr KeyError
	if err := f.Replace([]interface{}{testPod("ns", "a", "1"), 42}, "1"); !errors.As(err, &keyErr) || f.HasSynced() {
		t.Fatalf("Replace with a bad object = %v, synced=%v", err, f.HasSynced())
	}
	mustNoErr(t, f.Replace([]interface{}{testPod("ns", "a", "1"), testPod("ns", "b", "1"), testPod("ns", "a", "2")}, "1"))
	var got []string
	for i := 0; i < 2; i++ {
		var initial bool
		item, err := f.Pop(func(_ interface{}, init bool) error { initial = init; return nil })
		mustNoErr(t, err)
		got = append(got, queueText(item), map[bool]string{true: "initial", false: "later"}[initial])
	}
	if want := []string{"a@2", "initial", "b@1", "initial"}; !reflect.DeepEqual(got, want) || !f.HasSynced() {
		t.Fatalf("popped %q synced=%v, want %q and synced", got, f.HasSynced(), want)
	}
	if !IsDone(f.HasSyncedChecker()) || f.Name() != "FIFO" {
		t.Fatalf("checker done=%v name=%q", IsDone(f.HasSyncedChecker()), f.Name())
	}
}

func TestFIFOResyncRequeuesItemsWhoseKeyLeftTheQueue(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	mustNoErr(t, f.Add(testPod("ns", "a", "1")))
	f.order.Reset() // simulate a key lost from the queue
	mustNoErr(t, f.Resync())
	item, err := f.Pop(func(interface{}, bool) error { return nil })
	if err != nil || queueText(item) != "a@1" {
		t.Fatalf("Pop after Resync = %s, %v", queueText(item), err)
	}
}
