package framework

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

func pod(name string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
}

// newSource returns a source that is shut down when the test ends.
func newSource(t *testing.T) *FakeControllerSource {
	f := NewFakeControllerSource()
	t.Cleanup(f.Shutdown)
	return f
}

// drainAfterShutdown shuts f down and returns everything w received, as
// "TYPE name@rv" strings; Shutdown delivers the queued events, then closes.
func drainAfterShutdown(f *FakeControllerSource, w watch.Interface) []string {
	f.Shutdown()
	var got []string
	for e := range w.ResultChan() {
		got = append(got, describe(e))
	}
	return got
}

func describe(e watch.Event) string {
	m, err := metav1Object(e.Object)
	if err != nil {
		return string(e.Type) + " ?"
	}
	return fmt.Sprintf("%s %s@%s", e.Type, m.GetName(), m.GetResourceVersion())
}

func metav1Object(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, errors.New("no metadata")
	}
	return m, nil
}

// itemNames returns the sorted names of f.Items.
func itemNames(f *FakeControllerSource) []string {
	var names []string
	for k := range f.Items {
		names = append(names, k.name)
	}
	sort.Strings(names)
	return names
}

func TestEveryChangeTakesTheNextResourceVersionAndUpdatesItems(t *testing.T) {
	type op struct {
		kind string // add, modify, delete, addDrop, modifyDrop, deleteDrop
		name string
	}
	cases := []struct {
		name      string
		ops       []op
		wantRVs   []string
		wantItems []string
	}{
		{"adds", []op{{"add", "a"}, {"add", "b"}}, []string{"1", "2"}, []string{"a", "b"}},
		{"modify replaces", []op{{"add", "a"}, {"modify", "a"}}, []string{"1", "2"}, []string{"a"}},
		{"modify of an unknown object adds it", []op{{"modify", "z"}}, []string{"1"}, []string{"z"}},
		{"delete removes", []op{{"add", "a"}, {"add", "b"}, {"delete", "a"}}, []string{"1", "2", "3"}, []string{"b"}},
		{"delete of an unknown object still counts", []op{{"delete", "y"}, {"add", "a"}}, []string{"1", "2"}, []string{"a"}},
		{"drop variants change items too", []op{{"addDrop", "a"}, {"modifyDrop", "a"}, {"addDrop", "b"}, {"deleteDrop", "a"}}, []string{"1", "2", "3", "4"}, []string{"b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newSource(t)
			var rvs []string
			for _, o := range tc.ops {
				p := pod(o.name)
				map[string]func(runtime.Object){
					"add": f.Add, "modify": f.Modify, "delete": f.Delete,
					"addDrop": f.AddDropWatch, "modifyDrop": f.ModifyDropWatch, "deleteDrop": f.DeleteDropWatch,
				}[o.kind](p)
				rvs = append(rvs, p.ResourceVersion)
			}
			if fmt.Sprint(rvs) != fmt.Sprint(tc.wantRVs) {
				t.Errorf("resource versions set on the objects = %v, want %v", rvs, tc.wantRVs)
			}
			if got := itemNames(f); fmt.Sprint(got) != fmt.Sprint(tc.wantItems) {
				t.Errorf("items = %v, want %v", got, tc.wantItems)
			}
		})
	}
}

func TestObjectsWithTheSameNameButDifferentUIDsAreDistinctItems(t *testing.T) {
	f := newSource(t)
	first, second := pod("a"), pod("a")
	second.UID = "other"
	f.Add(first)
	f.Add(second)
	f.Delete(pod("a"))
	if len(f.Items) != 1 {
		t.Fatalf("items = %d, want 1", len(f.Items))
	}
	if _, ok := f.Items[nnu{namespace: "ns", name: "a", uid: "other"}]; !ok {
		t.Fatal("the object with the other UID was deleted")
	}
}

func TestItemsHoldTheCallersObjectWhileListReturnsDeepCopies(t *testing.T) {
	f := newSource(t)
	p := pod("a")
	f.Add(p)
	if f.Items[nnu{"ns", "a", "uid-a"}] != runtime.Object(p) {
		t.Fatal("Items does not hold the added object itself")
	}
	got, err := f.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list := got.(*v1.List)
	if list.ResourceVersion != "1" || len(list.Items) != 1 {
		t.Fatalf("list rv=%q items=%d, want rv 1 and 1 item", list.ResourceVersion, len(list.Items))
	}
	item := list.Items[0].Object.(*v1.Pod)
	if item == p {
		t.Fatal("List returned the stored object instead of a copy")
	}
	item.Labels = map[string]string{"changed": "yes"}
	if p.Labels != nil {
		t.Fatal("mutating a listed item changed the stored object")
	}
}

func TestListOfAnEmptySourceIsAnEmptyListAtResourceVersionZero(t *testing.T) {
	f := newSource(t)
	got, err := f.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list := got.(*v1.List)
	if list.ResourceVersion != "0" || list.Items == nil || len(list.Items) != 0 {
		t.Fatalf("got rv=%q items=%#v, want rv 0 and a non-nil empty slice", list.ResourceVersion, list.Items)
	}
}

func TestListReturnsListErrorWhenSet(t *testing.T) {
	f := newSource(t)
	f.Add(pod("a"))
	boom := errors.New("list failed")
	f.ListError = boom
	got, err := f.List(metav1.ListOptions{})
	if got != nil || err != boom {
		t.Fatalf("List = (%v, %v), want (nil, %v)", got, err, boom)
	}
}

func TestWatchReplaysTheChangesAfterTheRequestedResourceVersion(t *testing.T) {
	// History: a@1 added, b@2 added, a@3 modified, b@4 deleted.
	cases := []struct {
		rv      string
		want    []string
		wantErr func(error) bool
	}{
		{rv: "1", want: []string{"ADDED b@2", "MODIFIED a@3", "DELETED b@4"}},
		{rv: "3", want: []string{"DELETED b@4"}},
		{rv: "4", want: nil},
		{rv: "0", wantErr: func(err error) bool {
			return apierrors.IsResourceExpired(err) && err.Error() == "too old resource version: 0 (1)"
		}},
		{rv: "-3", wantErr: func(err error) bool { return err.Error() == "too old resource version: -3 (1)" }},
		{rv: "5", wantErr: func(err error) bool { return err == errFutureResourceVersion }},
		{rv: "", wantErr: func(err error) bool { return err.Error() == `strconv.Atoi: parsing "": invalid syntax` }},
		{rv: "abc", wantErr: func(err error) bool { return strings.Contains(err.Error(), "invalid syntax") }},
	}
	for _, tc := range cases {
		t.Run("rv "+tc.rv, func(t *testing.T) {
			f := NewFakeControllerSource()
			f.Add(pod("a"))
			f.Add(pod("b"))
			f.Modify(pod("a"))
			f.Delete(pod("b"))
			w, err := f.Watch(metav1.ListOptions{ResourceVersion: tc.rv})
			if tc.wantErr != nil {
				f.Shutdown()
				if err == nil || w != nil || !tc.wantErr(err) {
					t.Fatalf("Watch = (%v, %v), want an error", w, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := drainAfterShutdown(f, w); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("events = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWatchReplaysCopiesOfDroppedChangesButLiveWatchersMissThem(t *testing.T) {
	f := NewFakeControllerSource()
	live, err := f.Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	f.Add(pod("a"))
	f.AddDropWatch(pod("b"))
	f.ModifyDropWatch(pod("a"))
	f.Change(watch.Event{Type: watch.Modified, Object: pod("a")}, 0)
	f.Change(watch.Event{Type: watch.Modified, Object: pod("a")}, 1)
	f.DeleteDropWatch(pod("b"))
	replay, err := f.Watch(metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	f.Delete(pod("a"))

	f.Shutdown()
	var gotLive, gotReplay []string
	for e := range live.ResultChan() {
		gotLive = append(gotLive, describe(e))
	}
	for e := range replay.ResultChan() {
		gotReplay = append(gotReplay, describe(e))
	}
	wantLive := []string{"ADDED a@1", "MODIFIED a@5", "DELETED a@7"}
	wantReplay := []string{"ADDED b@2", "MODIFIED a@3", "MODIFIED a@4", "MODIFIED a@5", "DELETED b@6", "DELETED a@7"}
	if fmt.Sprint(gotLive) != fmt.Sprint(wantLive) {
		t.Errorf("live watcher got %v, want %v", gotLive, wantLive)
	}
	if fmt.Sprint(gotReplay) != fmt.Sprint(wantReplay) {
		t.Errorf("replaying watcher got %v, want %v", gotReplay, wantReplay)
	}
}

func TestReplayedEventsAreCopiesTakenAtWatchTime(t *testing.T) {
	f := newSource(t)
	f.Add(pod("x"))
	p := pod("a")
	f.Add(p)
	f.Modify(p) // the same object again: its RV is now 3 in both changes
	w, err := f.Watch(metav1.ListOptions{ResourceVersion: "2"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e := <-w.ResultChan()
	if e.Object == runtime.Object(p) {
		t.Fatal("replayed event carries the stored object, want a copy")
	}
	if got := e.Object.(*v1.Pod).ResourceVersion; got != "3" {
		t.Fatalf("replayed rv = %s, want 3", got)
	}
}

func TestLiveEventsCarryTheObjectPassedIn(t *testing.T) {
	f := newSource(t)
	w, err := f.Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	p := pod("a")
	f.Add(p)
	if e := <-w.ResultChan(); e.Object != runtime.Object(p) {
		t.Fatal("live event does not carry the added object")
	}
}

func TestChangeOfOtherEventTypesTakesAResourceVersionWithoutTouchingItems(t *testing.T) {
	f := NewFakeControllerSource()
	w, err := f.Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	f.Add(pod("a"))
	f.Change(watch.Event{Type: watch.Bookmark, Object: pod("bookmark")}, 1)
	f.Change(watch.Event{Type: watch.Error, Object: pod("error")}, 1)
	if got := itemNames(f); fmt.Sprint(got) != "[a]" {
		t.Fatalf("items = %v, want [a]", got)
	}
	want := []string{"ADDED a@1", "BOOKMARK bookmark@2", "ERROR error@3"}
	if got := drainAfterShutdown(f, w); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
}

func TestChangePanicsForAnObjectWithoutMetadata(t *testing.T) {
	f := newSource(t)
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || err.Error() != "object does not implement the Object interfaces" {
			t.Fatalf("recovered %#v", r)
		}
	}()
	f.Add(&metav1.Status{})
}

func TestResetWatchClosesWatchersAndForgetsHistory(t *testing.T) {
	f := NewFakeControllerSource()
	old, err := f.Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	f.Add(pod("a"))
	f.Add(pod("b"))
	f.ResetWatch()
	var gotOld []string
	for e := range old.ResultChan() {
		gotOld = append(gotOld, describe(e))
	}
	if fmt.Sprint(gotOld) != "[ADDED a@1 ADDED b@2]" {
		t.Fatalf("old watcher got %v before closing", gotOld)
	}
	if _, err := f.Watch(metav1.ListOptions{ResourceVersion: "1"}); err == nil || err.Error() != "too old resource version: 1 (2)" {
		t.Fatalf("watch from before the reset: %v", err)
	}
	w, err := f.Watch(metav1.ListOptions{ResourceVersion: "2"})
	if err != nil {
		t.Fatalf("watch from the current rv after reset: %v", err)
	}
	f.Add(pod("c"))
	if _, err := f.Watch(metav1.ListOptions{ResourceVersion: "2"}); err == nil || err.Error() != "too old resource version: 2 (3)" {
		t.Fatalf("watch from before the first kept change: %v", err)
	}
	if got := drainAfterShutdown(f, w); fmt.Sprint(got) != "[ADDED c@3]" {
		t.Fatalf("new watcher got %v", got)
	}
}

func TestShutdownDeliversQueuedEventsClosesWatchersAndStaysLocked(t *testing.T) {
	f := NewFakeControllerSource()
	w, err := f.Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	f.Add(pod("a"))
	if got := drainAfterShutdown(f, w); fmt.Sprint(got) != "[ADDED a@1]" {
		t.Fatalf("got %v", got)
	}
	if f.lock.TryLock() {
		t.Fatal("source is usable after Shutdown")
	}
}

func TestWatchProbabilityZeroNeverAndOneAlwaysBroadcasts(t *testing.T) {
	f := NewFakeControllerSource()
	w, err := f.Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		f.Change(watch.Event{Type: watch.Added, Object: pod(fmt.Sprint("never", i))}, 0)
		f.Change(watch.Event{Type: watch.Added, Object: pod(fmt.Sprint("always", i))}, 1)
	}
	got := drainAfterShutdown(f, w)
	if len(got) != 20 {
		t.Fatalf("got %d events, want 20", len(got))
	}
	for _, e := range got {
		if !strings.Contains(e, "always") {
			t.Fatalf("dropped change delivered: %s", e)
		}
	}
}
