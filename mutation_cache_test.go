package cache

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
)

// mutatedPod returns pod ns/name at rv, labelled l=label when label is set.
func mutatedPod(name, rv, label string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)}}
	if label != "" {
		p.Labels = map[string]string{"l": label}
	}
	return p
}

// byLabelL indexes pods by their "l" label; other objects fail.
func byLabelL(obj interface{}) ([]string, error) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return nil, errors.New("not a pod")
	}
	if v, ok := p.Labels["l"]; ok {
		return []string{v}, nil
	}
	return nil, nil
}

// mutationFixture is a backing indexer, a mutation cache over it with a
// one-minute TTL on a fake clock, and that clock.
type mutationFixture struct {
	backing Indexer
	cache   *mutationCache
	clock   *clocktesting.FakeClock
}

func newMutationFixture(includeAdds bool) *mutationFixture {
	clk := clocktesting.NewFakeClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	backing := NewIndexer(MetaNamespaceKeyFunc, Indexers{"by": byLabelL})
	recent := utilcache.NewLRUExpireCacheWithClock(mutationCacheCapacity, clk)
	return &mutationFixture{
		backing: backing,
		cache:   newMutationCache(klog.Background(), backing, backing, time.Minute, includeAdds, recent),
		clock:   clk,
	}
}

// describe renders a lookup result as "name@rv", "absent" or the error.
func describeLookup(obj interface{}, exists bool, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case !exists:
		return "absent"
	}
	if p, ok := obj.(*v1.Pod); ok {
		return p.Name + "@" + p.ResourceVersion
	}
	return fmt.Sprintf("%T", obj)
}

func describeItems(items []interface{}, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var out []string
	for _, o := range items {
		out = append(out, describeLookup(o, true, nil))
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

func TestMutationCacheGetByKeyPrefersStrictlyNewerMutations(t *testing.T) {
	type op struct {
		kind string // backing-add, backing-delete, mutate, get, step
		obj  *v1.Pod
		want string
	}
	cases := []struct {
		name        string
		includeAdds bool
		ops         []op
	}{
		{"newer mutation wins", false, []op{
			{kind: "backing-add", obj: mutatedPod("a", "5", "")},
			{kind: "mutate", obj: mutatedPod("a", "6", "")},
			{kind: "get", want: "a@6"},
		}},
		{"older mutation loses", false, []op{
			{kind: "backing-add", obj: mutatedPod("a", "5", "")},
			{kind: "mutate", obj: mutatedPod("a", "4", "")},
			{kind: "get", want: "a@5"},
		}},
		{"equal version: backing wins", false, []op{
			{kind: "backing-add", obj: mutatedPod("a", "5", "")},
			{kind: "mutate", obj: mutatedPod("a", "5", "")},
			{kind: "get", want: "a@5"},
		}},
		{"a later older mutation does not replace a newer one", false, []op{
			{kind: "backing-add", obj: mutatedPod("a", "5", "")},
			{kind: "mutate", obj: mutatedPod("a", "7", "")},
			{kind: "mutate", obj: mutatedPod("a", "6", "")},
			{kind: "get", want: "a@7"},
		}},
		{"empty version counts as zero", false, []op{
			{kind: "backing-add", obj: mutatedPod("a", "", "")},
			{kind: "mutate", obj: mutatedPod("a", "1", "")},
			{kind: "get", want: "a@1"},
		}},
		{"mutation expires after the ttl", false, []op{
			{kind: "backing-add", obj: mutatedPod("a", "5", "")},
			{kind: "mutate", obj: mutatedPod("a", "6", "")},
			{kind: "step"},
			{kind: "get", want: "a@5"},
		}},
		{"without includeAdds a key missing from backing is absent", false, []op{
			{kind: "mutate", obj: mutatedPod("a", "6", "")},
			{kind: "get", want: "absent"},
		}},
		{"with includeAdds a key missing from backing is returned once", true, []op{
			{kind: "mutate", obj: mutatedPod("a", "6", "")},
			{kind: "get", want: "a@6"},
			{kind: "get", want: "absent"},
		}},
		{"a newer backing object evicts the mutation", true, []op{
			{kind: "backing-add", obj: mutatedPod("a", "5", "")},
			{kind: "mutate", obj: mutatedPod("a", "6", "")},
			{kind: "backing-add", obj: mutatedPod("a", "7", "")},
			{kind: "get", want: "a@7"},
			{kind: "backing-delete", obj: mutatedPod("a", "7", "")},
			{kind: "get", want: "absent"},
		}},
		{"an unread older mutation survives a backing delete with includeAdds", true, []op{
			{kind: "backing-add", obj: mutatedPod("a", "9", "")},
			{kind: "mutate", obj: mutatedPod("a", "5", "")},
			{kind: "backing-delete", obj: mutatedPod("a", "9", "")},
			{kind: "get", want: "a@5"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newMutationFixture(tc.includeAdds)
			for i, o := range tc.ops {
				switch o.kind {
				case "backing-add":
					_ = fx.backing.Add(o.obj)
				case "backing-delete":
					_ = fx.backing.Delete(o.obj)
				case "mutate":
					fx.cache.Mutation(o.obj)
				case "step":
					fx.clock.Step(time.Minute + time.Nanosecond)
				case "get":
					if got := describeLookup(fx.cache.GetByKey("ns/a")); got != o.want {
						t.Fatalf("op %d: GetByKey = %s, want %s", i, got, o.want)
					}
				}
			}
		})
	}
}

func TestMutationCacheReturnsTheRecordedObjectItself(t *testing.T) {
	fx := newMutationFixture(false)
	_ = fx.backing.Add(mutatedPod("a", "1", ""))
	written := mutatedPod("a", "2", "")
	fx.cache.Mutation(written)
	if obj, _, _ := fx.cache.GetByKey("ns/a"); obj != written {
		t.Fatal("GetByKey did not return the recorded pointer")
	}
}

func TestMutationCacheKeysMutationsByNamespaceAndNameRegardlessOfUID(t *testing.T) {
	fx := newMutationFixture(false)
	_ = fx.backing.Add(mutatedPod("a", "1", ""))
	other := mutatedPod("a", "2", "")
	other.UID = "someone-else"
	fx.cache.Mutation(other)
	if got := describeLookup(fx.cache.GetByKey("ns/a")); got != "a@2" {
		t.Fatalf("GetByKey = %s", got)
	}
}

func TestMutationCacheTombstonesAreReturnedOnlyWhenBackingLacksTheKey(t *testing.T) {
	fx := newMutationFixture(true)
	fx.cache.Mutation(DeletedFinalStateUnknown{Key: "ns/a", Obj: mutatedPod("a", "100", "")})
	for i := 0; i < 2; i++ {
		if got := describeLookup(fx.cache.GetByKey("ns/a")); got != "cache.DeletedFinalStateUnknown" {
			t.Fatalf("lookup %d without backing = %s, want the tombstone (kept)", i, got)
		}
	}
	_ = fx.backing.Add(mutatedPod("a", "1", ""))
	if got := describeLookup(fx.cache.GetByKey("ns/a")); got != "a@1" {
		t.Fatalf("with backing = %s, want the backing object", got)
	}
	_ = fx.backing.Delete(mutatedPod("a", "1", ""))
	if got := describeLookup(fx.cache.GetByKey("ns/a")); got != "cache.DeletedFinalStateUnknown" {
		t.Fatalf("after backing delete = %s, want the tombstone again", got)
	}
}

func TestMutationCachePanicsOnNonIntegerResourceVersions(t *testing.T) {
	cases := []struct {
		name       string
		backingRV  string
		mutations  []string
		wantParsed string
	}{
		{"backing version", "abc", []string{"10"}, "abc"},
		{"mutation version", "10", []string{"zz"}, "zz"},
		{"negative version", "1", []string{"-1"}, "-1"},
		{"mutation over a bad recorded one", "", []string{"x", "5"}, "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newMutationFixture(false)
			if tc.backingRV != "" {
				_ = fx.backing.Add(mutatedPod("a", tc.backingRV, ""))
			}
			defer func() {
				err, ok := recover().(*strconv.NumError)
				if !ok || err.Num != tc.wantParsed {
					t.Fatalf("recovered %#v, want a *strconv.NumError for %q", err, tc.wantParsed)
				}
			}()
			for _, rv := range tc.mutations {
				fx.cache.Mutation(mutatedPod("a", rv, ""))
			}
			_, _, _ = fx.cache.GetByKey("ns/a")
		})
	}
}

func TestMutationCacheAcceptsTheLargestUnsignedVersion(t *testing.T) {
	fx := newMutationFixture(false)
	_ = fx.backing.Add(mutatedPod("a", "1", ""))
	fx.cache.Mutation(mutatedPod("a", "18446744073709551615", ""))
	if got := describeLookup(fx.cache.GetByKey("ns/a")); got != "a@18446744073709551615" {
		t.Fatalf("GetByKey = %s", got)
	}
}

func TestMutationCacheIgnoresObjectsWithoutAKey(t *testing.T) {
	fx := newMutationFixture(true)
	fx.cache.Mutation("no metadata")
	fx.cache.Mutation(nil)
	if keys := fx.cache.recent.Keys(); len(keys) != 0 {
		t.Fatalf("recorded keys %v", keys)
	}
}

func TestMutationCacheKeepsTheHundredMostRecentMutations(t *testing.T) {
	fx := newMutationFixture(true)
	for i := 0; i <= mutationCacheCapacity; i++ {
		fx.cache.Mutation(mutatedPod(fmt.Sprint("p", i), "1", ""))
	}
	if _, ok, _ := fx.cache.GetByKey("ns/p0"); ok {
		t.Fatal("the least recently used mutation was kept beyond the capacity")
	}
	if _, ok, _ := fx.cache.GetByKey("ns/p1"); !ok {
		t.Fatal("a mutation within the capacity was dropped")
	}
}

func TestMutationCacheGetByKeyReturnsBackingErrors(t *testing.T) {
	boom := errors.New("backing failed")
	backing := &erroringStore{Store: NewStore(MetaNamespaceKeyFunc), err: boom}
	mc := NewIntegerResourceVersionMutationCache(klog.Background(), backing, nil, time.Minute, true)
	mc.Mutation(mutatedPod("a", "5", ""))
	obj, exists, err := mc.GetByKey("ns/a")
	if obj != nil || exists || err != boom {
		t.Fatalf("GetByKey = (%v, %v, %v), want (nil, false, %v)", obj, exists, err, boom)
	}
}

// erroringStore fails every GetByKey with err.
type erroringStore struct {
	Store
	err error
}

func (s *erroringStore) GetByKey(string) (interface{}, bool, error) {
	return mutatedPod("a", "1", ""), true, s.err
}

func TestMutationCacheByIndexMergesBackingAndMutations(t *testing.T) {
	type setup struct {
		backing   []*v1.Pod
		mutations []interface{}
	}
	cases := []struct {
		name        string
		includeAdds bool
		setup       setup
		queries     []string // index values queried in order
		want        []string
	}{
		{"newer mutation replaces the indexed backing object, even if its label moved", false,
			setup{[]*v1.Pod{mutatedPod("a", "5", "x")}, []interface{}{mutatedPod("a", "6", "y")}},
			[]string{"x", "y"}, []string{"[a@6]", "[]"}},
		{"includeAdds adds mutations the index function maps to the value", true,
			setup{[]*v1.Pod{mutatedPod("a", "5", "x")}, []interface{}{mutatedPod("a", "6", "y"), mutatedPod("b", "3", "y"), mutatedPod("c", "3", "")}},
			[]string{"y", "x"}, []string{"[a@6 b@3]", "[a@6]"}},
		{"a key already indexed is not added twice", true,
			setup{[]*v1.Pod{mutatedPod("a", "1", "x")}, []interface{}{mutatedPod("a", "2", "x")}},
			[]string{"x"}, []string{"[a@2]"}},
		{"includeAdds does not consult backing versions, but replacement evicts older mutations", true,
			setup{[]*v1.Pod{mutatedPod("a", "9", "x")}, []interface{}{mutatedPod("a", "5", "y")}},
			[]string{"y", "x", "y"}, []string{"[a@5]", "[a@9]", "[]"}},
		{"mutations failing the index function are skipped", true,
			setup{[]*v1.Pod{mutatedPod("a", "1", "x")}, []interface{}{DeletedFinalStateUnknown{Key: "ns/t", Obj: mutatedPod("t", "1", "x")}}},
			[]string{"x"}, []string{"[a@1]"}},
		{"nothing matches: empty", true, setup{}, []string{"x"}, []string{"[]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newMutationFixture(tc.includeAdds)
			for _, p := range tc.setup.backing {
				_ = fx.backing.Add(p)
			}
			for _, m := range tc.setup.mutations {
				fx.cache.Mutation(m)
			}
			for i, q := range tc.queries {
				if got := describeItems(fx.cache.ByIndex("by", q)); got != tc.want[i] {
					t.Fatalf("ByIndex(by, %s) #%d = %s, want %s", q, i, got, tc.want[i])
				}
			}
		})
	}
}

func TestMutationCacheByIndexListsBackingFirstThenMutationsLeastRecentFirst(t *testing.T) {
	fx := newMutationFixture(true)
	_ = fx.backing.Add(mutatedPod("b", "1", "x"))
	for _, name := range []string{"m1", "m2", "m3"} {
		fx.cache.Mutation(mutatedPod(name, "1", "x"))
	}
	items, err := fx.cache.ByIndex("by", "x")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, o := range items {
		order = append(order, o.(*v1.Pod).Name)
	}
	if fmt.Sprint(order) != "[b m1 m2 m3]" {
		t.Fatalf("order = %v", order)
	}
}

func TestMutationCacheByIndexErrors(t *testing.T) {
	fx := newMutationFixture(true)
	if items, err := fx.cache.ByIndex("missing", "x"); items != nil || err == nil {
		t.Fatalf("unknown index: (%v, %v)", items, err)
	}
	noIndexer := NewIntegerResourceVersionMutationCache(klog.Background(), NewStore(MetaNamespaceKeyFunc), nil, time.Minute, true)
	items, err := noIndexer.ByIndex("by", "x")
	if items != nil || err == nil || err.Error() != "no indexer has been provided to the mutation cache" {
		t.Fatalf("nil indexer: (%v, %v)", items, err)
	}
}

func TestMutationCacheByIndexReturnsNilWhenNothingMatches(t *testing.T) {
	fx := newMutationFixture(false)
	items, err := fx.cache.ByIndex("by", "x")
	if err != nil || items != nil {
		t.Fatalf("ByIndex = (%#v, %v), want (nil, nil)", items, err)
	}
}
