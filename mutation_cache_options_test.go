package cache

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"
)

// describeMutationRead renders a GetByKey result; deletion records show as
// "deleted ns/name@rv".
func describeMutationRead(obj interface{}, exists bool, err error) string {
	switch o := obj.(type) {
	case *v1.Pod:
		return fmt.Sprintf("%s %v %v", describeTestPod(o), exists, err)
	case *mutationTombstone:
		return fmt.Sprintf("deleted %s/%s@%s %v %v", o.Namespace, o.Name, o.ResourceVersion, exists, err)
	}
	return fmt.Sprintf("%v %v %v", obj, exists, err)
}

func TestMutationCacheFeedbackFromTheInformer(t *testing.T) {
	cases := []struct {
		name    string
		backing string // resource version of ns/a in the backing store, "" for none
		steps   func(mc MutationCache)
		want    string
	}{
		{"an update at least as new drops the mutation", "3",
			func(mc MutationCache) {
				mc.Mutation(testPod("ns", "a", "5"))
				mc.OnAddOrUpdate(testPod("ns", "a", "5"))
			}, "ns/a@3 true <nil>"},
		{"an older update keeps it", "3",
			func(mc MutationCache) {
				mc.Mutation(testPod("ns", "a", "5"))
				mc.OnAddOrUpdate(testPod("ns", "a", "4"))
			}, "ns/a@5 true <nil>"},
		{"a deletion hides the older backing copy", "3",
			func(mc MutationCache) { mc.OnDelete(testPod("ns", "a", "4")) }, "deleted ns/a@4 true <nil>"},
		{"a deletion is not replaced by a mutation", "3",
			func(mc MutationCache) { mc.OnDelete(testPod("ns", "a", "4")); mc.Mutation(testPod("ns", "a", "9")) }, "deleted ns/a@4 true <nil>"},
		{"a deletion loses against a newer backing copy", "9",
			func(mc MutationCache) { mc.OnDelete(testPod("ns", "a", "4")) }, "ns/a@9 true <nil>"},
		{"a deletion without a backing copy is not returned", "",
			func(mc MutationCache) { mc.OnDelete(testPod("ns", "a", "4")) }, "<nil> false <nil>"},
		{"nil objects are ignored", "3",
			func(mc MutationCache) { mc.OnDelete(nil); mc.OnAddOrUpdate(nil) }, "ns/a@3 true <nil>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			backing := NewStore(MetaNamespaceKeyFunc)
			if tc.backing != "" {
				_ = backing.Add(testPod("ns", "a", tc.backing))
			}
			mc := NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), backing, MutationCacheOptions{TTL: time.Hour, IncludeAdds: true})
			tc.steps(mc)
			if got := describeMutationRead(mc.GetByKey("ns/a")); got != tc.want {
				t.Fatalf("GetByKey = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestMutationCacheOptionsDefaultsAndLimits(t *testing.T) {
	cases := []struct {
		name    string
		options MutationCacheOptions
		add     int
		kept    int
	}{
		{"zero size keeps one hundred", MutationCacheOptions{TTL: time.Hour, IncludeAdds: true}, 101, 100},
		{"size two keeps two", MutationCacheOptions{TTL: time.Hour, IncludeAdds: true, MaxCacheSize: 2}, 5, 2},
		{"zero TTL keeps mutations for five minutes", MutationCacheOptions{IncludeAdds: true}, 3, 3},
		{"negative TTL keeps nothing", MutationCacheOptions{TTL: -time.Second, IncludeAdds: true}, 3, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mc := NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), NewStore(MetaNamespaceKeyFunc), tc.options)
			for i := 0; i < tc.add; i++ {
				mc.Mutation(testPod("ns", fmt.Sprint("p", i), "1"))
			}
			kept := 0
			for i := 0; i < tc.add; i++ {
				if _, ok, _ := mc.GetByKey(fmt.Sprint("ns/p", i)); ok {
					kept++
				}
			}
			if kept != tc.kept {
				t.Fatalf("kept %d, want %d", kept, tc.kept)
			}
		})
	}
	defer func() {
		if r := recover(); fmt.Sprint(r) != "maxSize must be > 0" {
			t.Fatalf("negative size: recovered %v", r)
		}
	}()
	NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), NewStore(MetaNamespaceKeyFunc), MutationCacheOptions{MaxCacheSize: -1})
}

func TestMutationTombstoneCarriesIdentityAndCopiesDeeply(t *testing.T) {
	p := testPod("ns", "a", "4")
	p.UID = "uid-1"
	mc := NewIntegerResourceVersionMutationCacheWithOptions(klog.Background(), NewStore(MetaNamespaceKeyFunc), MutationCacheOptions{}).(*mutationCache)
	mc.OnDelete(p)
	recorded, ok := mc.recent.Get("ns/a")
	if !ok {
		t.Fatal("nothing recorded")
	}
	tomb := recorded.(*mutationTombstone)
	cp := tomb.DeepCopyObject().(*mutationTombstone)
	cp.Name = "changed"
	accessor, err := meta.Accessor(tomb)
	if err != nil || accessor.GetName() != "a" || accessor.GetNamespace() != "ns" || accessor.GetResourceVersion() != "4" || accessor.GetUID() != "uid-1" {
		t.Fatalf("accessor = %v %v", accessor, err)
	}
	if !tomb.GetObjectKind().GroupVersionKind().Empty() {
		t.Fatal("a deletion record has a kind")
	}
}
