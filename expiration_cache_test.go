package cache

import (
	"errors"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	clocktesting "k8s.io/utils/clock/testing"
)

var expiryEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func expiringPod(name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// newFakeTTLStore returns a fake expiration store with a 10s TTL on a fake
// clock, its clock and its (buffered) deleted-keys channel.
func newFakeTTLStore() (Store, *clocktesting.FakeClock, chan string) {
	clk := clocktesting.NewFakeClock(expiryEpoch)
	deleted := make(chan string, 100)
	store := NewFakeExpirationStore(MetaNamespaceKeyFunc, deleted, &TTLPolicy{TTL: 10 * time.Second, Clock: clk}, clk)
	return store, clk, deleted
}

// receivedKeys returns what is buffered in ch, without waiting.
func receivedKeys(ch chan string) []string {
	var keys []string
	for {
		select {
		case k := <-ch:
			keys = append(keys, k)
		default:
			return keys
		}
	}
}

func sortedKeys(keys []string) []string {
	out := append([]string(nil), keys...)
	sort.Strings(out)
	return out
}

func TestTTLPolicyExpiresOnlyEntriesStrictlyOlderThanThePositiveTTL(t *testing.T) {
	clk := clocktesting.NewFakeClock(expiryEpoch)
	cases := []struct {
		name string
		ttl  time.Duration
		age  time.Duration
		want bool
	}{
		{"fresh", 10 * time.Second, 0, false},
		{"younger than ttl", 10 * time.Second, 9 * time.Second, false},
		{"exactly ttl", 10 * time.Second, 10 * time.Second, false},
		{"one nanosecond past ttl", 10 * time.Second, 10*time.Second + 1, true},
		{"timestamp in the future", 10 * time.Second, -time.Minute, false},
		{"zero ttl never expires", 0, time.Hour, false},
		{"negative ttl never expires", -time.Second, time.Hour, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &TTLPolicy{TTL: tc.ttl, Clock: clk}
			if got := p.IsExpired(&TimestampedEntry{Obj: 1, Timestamp: expiryEpoch.Add(-tc.age)}); got != tc.want {
				t.Fatalf("IsExpired = %v, want %v", got, tc.want)
			}
		})
	}
	if !(&TTLPolicy{TTL: time.Second, Clock: clk}).IsExpired(&TimestampedEntry{}) {
		t.Fatal("an entry with a zero timestamp is not expired")
	}
}

func TestFakeExpirationPolicyExpiresEverythingOutsideNeverExpire(t *testing.T) {
	entryKey := func(obj interface{}) (string, error) {
		return MetaNamespaceKeyFunc(obj.(*TimestampedEntry).Obj)
	}
	failingKey := func(obj interface{}) (string, error) { return "ns/keep", errors.New("ignored") }
	cases := []struct {
		name   string
		never  sets.Set[string]
		keyFn  KeyFunc
		obj    interface{}
		expect bool
	}{
		{"kept key", sets.New("ns/keep"), entryKey, expiringPod("keep", "1"), false},
		{"other key", sets.New("ns/keep"), entryKey, expiringPod("other", "1"), true},
		{"nil set expires all", nil, entryKey, expiringPod("keep", "1"), true},
		{"key error is ignored, the key still used", sets.New("ns/keep"), failingKey, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &FakeExpirationPolicy{NeverExpire: tc.never, RetrieveKeyFunc: tc.keyFn}
			if got := p.IsExpired(&TimestampedEntry{Obj: tc.obj}); got != tc.expect {
				t.Fatalf("IsExpired = %v, want %v", got, tc.expect)
			}
		})
	}
}

func TestExpiredEntriesArePurgedOnReadAndReportedToTheFake(t *testing.T) {
	type read struct {
		name        string
		do          func(s Store) bool // reports whether pod "a" was seen
		wantDeleted []string
	}
	reads := []read{
		{"GetByKey", func(s Store) bool { _, ok, _ := s.GetByKey("ns/a"); return ok }, []string{"ns/a"}},
		{"Get", func(s Store) bool { _, ok, _ := s.Get(expiringPod("a", "")); return ok }, []string{"ns/a"}},
		{"List", func(s Store) bool { return len(s.List()) != 0 }, []string{"ns/a"}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			store, clk, deleted := newFakeTTLStore()
			if err := store.Add(expiringPod("a", "1")); err != nil {
				t.Fatal(err)
			}
			clk.Step(10 * time.Second)
			if !r.do(store) {
				t.Fatal("entry of age == TTL not returned")
			}
			clk.Step(time.Nanosecond)
			if got := store.ListKeys(); len(got) != 1 {
				t.Fatalf("ListKeys purged or lost the entry: %v", got)
			}
			if r.do(store) {
				t.Fatal("expired entry returned")
			}
			if got := receivedKeys(deleted); len(got) != 1 || got[0] != r.wantDeleted[0] {
				t.Fatalf("deleted keys = %v, want %v", got, r.wantDeleted)
			}
			if got := store.ListKeys(); len(got) != 0 {
				t.Fatalf("expired entry still stored: %v", got)
			}
		})
	}
}

func TestListReturnsOnlyLiveObjectsUnwrapped(t *testing.T) {
	store, clk, deleted := newFakeTTLStore()
	mustAdd := func(name string) {
		if err := store.Add(expiringPod(name, "1")); err != nil {
			t.Fatal(err)
		}
	}
	mustAdd("old")
	clk.Step(6 * time.Second)
	mustAdd("young")
	clk.Step(6 * time.Second)
	if got := names(store.List()); len(got) != 1 || got[0] != "young" {
		t.Fatalf("List = %v, want [young]", got)
	}
	if got := receivedKeys(deleted); len(got) != 1 || got[0] != "ns/old" {
		t.Fatalf("deleted = %v, want [ns/old]", got)
	}
}

func TestUpdateRefreshesTheTimestamp(t *testing.T) {
	store, clk, _ := newFakeTTLStore()
	_ = store.Add(expiringPod("a", "1"))
	clk.Step(8 * time.Second)
	_ = store.Update(expiringPod("a", "2"))
	clk.Step(8 * time.Second)
	obj, ok, err := store.GetByKey("ns/a")
	if err != nil || !ok || obj.(*v1.Pod).ResourceVersion != "2" {
		t.Fatalf("GetByKey = (%v, %v, %v), want the updated pod", obj, ok, err)
	}
}

func TestExplicitDeleteIsNotReportedAsExpiry(t *testing.T) {
	store, _, deleted := newFakeTTLStore()
	_ = store.Add(expiringPod("a", "1"))
	if err := store.Delete(expiringPod("a", "1")); err != nil {
		t.Fatal(err)
	}
	if got := receivedKeys(deleted); len(got) != 0 {
		t.Fatalf("explicit delete reported: %v", got)
	}
	if _, ok, _ := store.GetByKey("ns/a"); ok {
		t.Fatal("deleted entry still there")
	}
}

func TestExpirationCacheResourceVersionComesFromReplaceBookmarkAndDeleteOnly(t *testing.T) {
	store, clk, _ := newFakeTTLStore()
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"empty", func() {}, ""},
		{"add does not record (entries are wrappers)", func() { _ = store.Add(expiringPod("a", "5")) }, ""},
		{"bookmark", func() { store.Bookmark("7") }, "7"},
		{"expiry does not record", func() { clk.Step(time.Minute); store.List() }, "7"},
		{"delete of an absent key records", func() { _ = store.Delete(expiringPod("zz", "9")) }, "9"},
		{"replace records its version", func() { _ = store.Replace([]interface{}{expiringPod("b", "1")}, "42") }, "42"},
		{"resync changes nothing", func() { _ = store.Resync() }, "42"},
	}
	for _, st := range steps {
		st.do()
		if got := store.LastStoreSyncResourceVersion(); got != st.want {
			t.Fatalf("%s: LastStoreSyncResourceVersion = %q, want %q", st.name, got, st.want)
		}
	}
}

func TestReplaceSwapsTheContentWithOneTimestamp(t *testing.T) {
	store, clk, deleted := newFakeTTLStore()
	_ = store.Add(expiringPod("old", "1"))
	clk.Step(5 * time.Second)
	if err := store.Replace([]interface{}{expiringPod("x", "1"), expiringPod("y", "1"), expiringPod("y", "2")}, "3"); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(store.ListKeys()); len(got) != 2 || got[0] != "ns/x" || got[1] != "ns/y" {
		t.Fatalf("keys after Replace = %v", got)
	}
	obj, _, _ := store.GetByKey("ns/y")
	if obj.(*v1.Pod).ResourceVersion != "2" {
		t.Fatal("the last duplicate of a key does not win")
	}
	clk.Step(10*time.Second + 1)
	if got := store.List(); len(got) != 0 {
		t.Fatalf("replaced items did not expire together: %v", names(got))
	}
	if got := sortedKeys(receivedKeys(deleted)); len(got) != 2 {
		t.Fatalf("deleted = %v", got)
	}
}

func TestExpirationCacheReportsKeyErrorsAndChangesNothing(t *testing.T) {
	store, _, _ := newFakeTTLStore()
	_ = store.Add(expiringPod("a", "1"))
	ops := map[string]func() error{
		"Add":     func() error { return store.Add("no metadata") },
		"Update":  func() error { return store.Update("no metadata") },
		"Delete":  func() error { return store.Delete("no metadata") },
		"Get":     func() error { _, _, err := store.Get("no metadata"); return err },
		"Replace": func() error { return store.Replace([]interface{}{expiringPod("b", "1"), "no metadata"}, "9") },
	}
	for name, op := range ops {
		err := op()
		var keyErr KeyError
		if !errors.As(err, &keyErr) || keyErr.Obj != "no metadata" {
			t.Errorf("%s: error %v, want a KeyError for the object", name, err)
		}
	}
	if got := store.ListKeys(); len(got) != 1 || got[0] != "ns/a" {
		t.Fatalf("content changed: %v", got)
	}
}

func TestFakeStoreWithoutChannelDoesNotBlockOnExpiry(t *testing.T) {
	clk := clocktesting.NewFakeClock(expiryEpoch)
	store := NewFakeExpirationStore(MetaNamespaceKeyFunc, nil, &TTLPolicy{TTL: time.Second, Clock: clk}, clk)
	_ = store.Add(expiringPod("a", "1"))
	clk.Step(2 * time.Second)
	if _, ok, _ := store.GetByKey("ns/a"); ok {
		t.Fatal("expired entry returned")
	}
}

func TestTTLStoreWithZeroTTLKeepsEntries(t *testing.T) {
	store := NewTTLStore(MetaNamespaceKeyFunc, 0)
	if _, ok := store.(*ExpirationCache); !ok {
		t.Fatalf("NewTTLStore returned %T", store)
	}
	_ = store.Add(expiringPod("a", "1"))
	if got := store.List(); len(got) != 1 {
		t.Fatalf("List = %v", got)
	}
}

func TestExpirationStorePolicySeesEntriesWithTheirKey(t *testing.T) {
	store := NewExpirationStore(MetaNamespaceKeyFunc, &FakeExpirationPolicy{
		NeverExpire: sets.New("ns/keep"),
		RetrieveKeyFunc: func(obj interface{}) (string, error) {
			entry := obj.(*TimestampedEntry)
			if entry.key == "" {
				return "", errors.New("entry without key")
			}
			return entry.key, nil
		},
	})
	_ = store.Add(expiringPod("keep", "1"))
	_ = store.Add(expiringPod("gone", "1"))
	if got := names(store.List()); len(got) != 1 || got[0] != "keep" {
		t.Fatalf("List = %v, want [keep]", got)
	}
}
