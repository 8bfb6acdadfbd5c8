package extras

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	cgcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// storeLike is the part of Store both implementations share.
type storeLike interface {
	Add(obj interface{}) error
	Update(obj interface{}) error
	Delete(obj interface{}) error
	List() []interface{}
	ListKeys() []string
	Get(obj interface{}) (interface{}, bool, error)
	GetByKey(key string) (interface{}, bool, error)
	Replace(list []interface{}, rv string) error
	Resync() error
	Bookmark(rv string)
	LastStoreSyncResourceVersion() string
}

// cacheKit builds one implementation's caches.
type cacheKit struct {
	fakeTTLStore     func(deleted chan<- string, ttl time.Duration, clk clock.Clock) storeLike
	fakePolicyStore  func(deleted chan<- string, never sets.Set[string], clk clock.Clock) storeLike
	policyStore      func(never sets.Set[string]) storeLike
	undeltaStore     func(push func([]interface{})) storeLike
	mutationCache    func(includeAdds, noIndexer bool, ttl time.Duration, logger klog.Logger) (mutable storeLike, mc mutationCacheLike)
	deletedTombstone func(key string, obj interface{}) interface{}
}

// mutationCacheLike is MutationCache of either implementation.
type mutationCacheLike interface {
	GetByKey(key string) (interface{}, bool, error)
	ByIndex(indexName, indexKey string) ([]interface{}, error)
	Mutation(interface{})
}

// labelL indexes pods by their "l" label; other values fail.
func labelL(obj interface{}) ([]string, error) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return nil, errors.New("not a pod")
	}
	if v, ok := p.Labels["l"]; ok {
		return []string{v}, nil
	}
	return nil, nil
}

var clientGoCaches = cacheKit{
	fakeTTLStore: func(deleted chan<- string, ttl time.Duration, clk clock.Clock) storeLike {
		return cgcache.NewFakeExpirationStore(cgcache.MetaNamespaceKeyFunc, deleted, &cgcache.TTLPolicy{TTL: ttl, Clock: clk}, clk)
	},
	fakePolicyStore: func(deleted chan<- string, never sets.Set[string], clk clock.Clock) storeLike {
		return cgcache.NewFakeExpirationStore(cgcache.MetaNamespaceKeyFunc, deleted, cgcacheNeverExpire(never), clk)
	},
	policyStore: func(never sets.Set[string]) storeLike {
		return cgcache.NewExpirationStore(cgcache.MetaNamespaceKeyFunc, cgcacheNeverExpire(never))
	},
	undeltaStore: func(push func([]interface{})) storeLike {
		return cgcache.NewUndeltaStore(push, cgcache.MetaNamespaceKeyFunc)
	},
	mutationCache: func(includeAdds, noIndexer bool, ttl time.Duration, logger klog.Logger) (storeLike, mutationCacheLike) {
		backing := cgcache.NewIndexer(cgcache.MetaNamespaceKeyFunc, cgcache.Indexers{"by": labelL})
		var indexer cgcache.Indexer = backing
		if noIndexer {
			indexer = nil
		}
		return backing, cgcache.NewIntegerResourceVersionMutationCache(logger, backing, indexer, ttl, includeAdds)
	},
	deletedTombstone: func(key string, obj interface{}) interface{} {
		return cgcache.DeletedFinalStateUnknown{Key: key, Obj: obj}
	},
}

var kcacheCaches = cacheKit{
	fakeTTLStore: func(deleted chan<- string, ttl time.Duration, clk clock.Clock) storeLike {
		return kcache.NewFakeExpirationStore(kcache.MetaNamespaceKeyFunc, deleted, &kcache.TTLPolicy{TTL: ttl, Clock: clk}, clk)
	},
	fakePolicyStore: func(deleted chan<- string, never sets.Set[string], clk clock.Clock) storeLike {
		return kcache.NewFakeExpirationStore(kcache.MetaNamespaceKeyFunc, deleted, kcacheNeverExpire(never), clk)
	},
	policyStore: func(never sets.Set[string]) storeLike {
		return kcache.NewExpirationStore(kcache.MetaNamespaceKeyFunc, kcacheNeverExpire(never))
	},
	undeltaStore: func(push func([]interface{})) storeLike {
		return kcache.NewUndeltaStore(push, kcache.MetaNamespaceKeyFunc)
	},
	mutationCache: func(includeAdds, noIndexer bool, ttl time.Duration, logger klog.Logger) (storeLike, mutationCacheLike) {
		backing := kcache.NewIndexer(kcache.MetaNamespaceKeyFunc, kcache.Indexers{"by": labelL})
		var indexer kcache.Indexer = backing
		if noIndexer {
			indexer = nil
		}
		return backing, kcache.NewIntegerResourceVersionMutationCache(logger, backing, indexer, ttl, includeAdds)
	},
	deletedTombstone: func(key string, obj interface{}) interface{} {
		return kcache.DeletedFinalStateUnknown{Key: key, Obj: obj}
	},
}

// cgcacheNeverExpire is client-go's FakeExpirationPolicy keeping the
// objects whose key is in never, keyed by MetaNamespaceKeyFunc.
func cgcacheNeverExpire(never sets.Set[string]) *cgcache.FakeExpirationPolicy {
	return &cgcache.FakeExpirationPolicy{NeverExpire: never, RetrieveKeyFunc: func(obj interface{}) (string, error) {
		return cgcache.MetaNamespaceKeyFunc(obj.(*cgcache.TimestampedEntry).Obj)
	}}
}

// kcacheNeverExpire is kcache's FakeExpirationPolicy keeping the objects
// whose key is in never, keyed by MetaNamespaceKeyFunc.
func kcacheNeverExpire(never sets.Set[string]) *kcache.FakeExpirationPolicy {
	return &kcache.FakeExpirationPolicy{NeverExpire: never, RetrieveKeyFunc: func(obj interface{}) (string, error) {
		return kcache.MetaNamespaceKeyFunc(obj.(*kcache.TimestampedEntry).Obj)
	}}
}

// stepPod parses "name@rv" or "name@rv:label" into a pod in namespace ns.
func stepPod(ref string) *v1.Pod {
	name, rest, _ := strings.Cut(ref, "@")
	rv, label, _ := strings.Cut(rest, ":")
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	if label != "" {
		p.Labels = map[string]string{"l": label}
	}
	return p
}

// stepObject parses an object reference of a step: "nil", "nilpod" (a nil
// *v1.Pod), "nometa" (a string), "value:REF" (a v1.Pod value),
// "tombstone:KEY" (a tombstone of pod KEY's name at rv 1),
// "tombstone-nil:KEY" (a tombstone without object), or a stepPod REF.
func (kit cacheKit) stepObject(ref string) interface{} {
	kind, rest, _ := strings.Cut(ref, ":")
	switch kind {
	case "nil":
		return nil
	case "nilpod":
		return (*v1.Pod)(nil)
	case "nometa":
		return "no metadata"
	case "value":
		return *stepPod(rest)
	case "tombstone":
		_, name, _ := strings.Cut(rest, "/")
		return kit.deletedTombstone(rest, stepPod(name+"@1"))
	case "tombstone-nil":
		return kit.deletedTombstone(rest, nil)
	}
	return stepPod(ref)
}

// describeValue renders a stored value independently of the implementation.
func describeValue(obj interface{}) string {
	switch v := obj.(type) {
	case nil:
		return "nil"
	case *v1.Pod:
		if v == nil {
			return "nilpod"
		}
		return v.Name + "@" + v.ResourceVersion
	case v1.Pod:
		return "value " + v.Name + "@" + v.ResourceVersion
	case string:
		return fmt.Sprintf("string %q", v)
	case cgcache.DeletedFinalStateUnknown:
		return "tombstone " + v.Key + " of " + describeValue(v.Obj)
	case kcache.DeletedFinalStateUnknown:
		return "tombstone " + v.Key + " of " + describeValue(v.Obj)
	}
	return fmt.Sprintf("%T", obj)
}

func describeValues(objs []interface{}) string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, describeValue(o))
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

func describeGet(obj interface{}, exists bool, err error) string {
	return fmt.Sprintf("%s exists=%v err=%v", describeValue(obj), exists, err)
}

// drain returns the keys buffered in ch.
func drain(ch chan string) []string {
	var keys []string
	for {
		select {
		case k := <-ch:
			keys = append(keys, k)
		default:
			sort.Strings(keys)
			return keys
		}
	}
}

// storeStep performs a Store step common to the expiration and undelta
// stores.
func (kit cacheKit) storeStep(s storeLike, step []string) string {
	switch step[0] {
	case "add":
		return fmt.Sprint(s.Add(kit.stepObject(step[1])))
	case "update":
		return fmt.Sprint(s.Update(kit.stepObject(step[1])))
	case "delete":
		return fmt.Sprint(s.Delete(kit.stepObject(step[1])))
	case "get":
		return describeGet(s.Get(kit.stepObject(step[1])))
	case "getbykey":
		return describeGet(s.GetByKey(step[1]))
	case "list":
		return describeValues(s.List())
	case "listkeys":
		keys := s.ListKeys()
		sort.Strings(keys)
		return fmt.Sprint(keys)
	case "replace":
		var objs []interface{}
		for _, ref := range step[2:] {
			objs = append(objs, kit.stepObject(ref))
		}
		return fmt.Sprint(s.Replace(objs, step[1]))
	case "bookmark":
		s.Bookmark(step[1])
		return "ok"
	case "rv":
		return s.LastStoreSyncResourceVersion()
	case "resync":
		return fmt.Sprint(s.Resync())
	}
	return "unknown step"
}

// playExpiration returns the player of expiration.txt.
func playExpiration(kit cacheKit) player {
	return func(t *testing.T, sc scenario) []string {
		clk := clocktesting.NewFakeClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		deleted := make(chan string, 1000)
		if sc.options["channel"] == "nil" {
			deleted = nil
		}
		var s storeLike
		if never, ok := sc.options["real-never"]; ok {
			s = kit.policyStore(sets.New(strings.Split(never, ",")...))
		} else if never, ok := sc.options["never"]; ok {
			s = kit.fakePolicyStore(deleted, sets.New(strings.Split(never, ",")...), clk)
		} else {
			ttl, err := time.ParseDuration(sc.options["ttl"])
			if err != nil {
				t.Fatal(err)
			}
			s = kit.fakeTTLStore(deleted, ttl, clk)
		}
		var trace []string
		for _, step := range sc.steps {
			result := capturePanic(func() string {
				if step[0] == "step" {
					d, _ := time.ParseDuration(step[1])
					clk.Step(d)
					return "ok"
				}
				return kit.storeStep(s, step)
			})
			trace = append(trace, fmt.Sprintf("%s -> %s expired=%v", strings.Join(step, " "), result, drain(deleted)))
		}
		return trace
	}
}

func TestExpirationCacheMatchesClientGo(t *testing.T) {
	compareTraces(t, "expiration.txt", klogged(playExpiration(clientGoCaches)), klogged(playExpiration(kcacheCaches)))
}

// playUndelta returns the player of undelta.txt (option push=nil: no
// PushFunc).
func playUndelta(kit cacheKit) player {
	return func(t *testing.T, sc scenario) []string {
		var pushes []string
		push := func(objs []interface{}) { pushes = append(pushes, describeValues(objs)) }
		if sc.options["push"] == "nil" {
			push = nil
		}
		s := kit.undeltaStore(push)
		var trace []string
		for _, step := range sc.steps {
			pushes = nil
			result := capturePanic(func() string { return kit.storeStep(s, step) })
			trace = append(trace, fmt.Sprintf("%s -> %s pushed=%v", strings.Join(step, " "), result, pushes))
		}
		return trace
	}
}

func TestUndeltaStoreMatchesClientGo(t *testing.T) {
	compareTraces(t, "undelta.txt", klogged(playUndelta(clientGoCaches)), klogged(playUndelta(kcacheCaches)))
}

// playMutation returns the player of mutation.txt; the trace shows what
// the cache logged through the logger it was given.
func playMutation(kit cacheKit) player {
	return func(t *testing.T, sc scenario) []string {
		logger, rec := newCaptureLogger()
		ttl := time.Hour
		if v, ok := sc.options["ttl"]; ok {
			var err error
			if ttl, err = time.ParseDuration(v); err != nil {
				t.Fatal(err)
			}
		}
		backing, mc := kit.mutationCache(sc.options["includeAdds"] == "true", sc.options["indexer"] == "nil", ttl, logger)
		var trace []string
		for _, step := range sc.steps {
			result := capturePanic(func() string {
				switch step[0] {
				case "backing-add":
					return fmt.Sprint(backing.Add(kit.stepObject(step[1])))
				case "backing-delete":
					return fmt.Sprint(backing.Delete(stepPod(step[1])))
				case "mutate":
					mc.Mutation(kit.stepObject(step[1]))
					return "ok"
				case "mutate-tombstone":
					mc.Mutation(kit.deletedTombstone("ns/"+step[1], stepPod(step[1]+"@1")))
					return "ok"
				case "get":
					return describeGet(mc.GetByKey(step[1]))
				case "mutate-many":
					var n int
					fmt.Sscan(step[2], &n)
					for i := 0; i < n; i++ {
						mc.Mutation(stepPod(fmt.Sprintf("%s%d@1:%s", step[1], i, step[3])))
					}
					return "ok"
				case "byindex-ordered":
					items, err := mc.ByIndex(step[1], step[2])
					out := make([]string, 0, len(items))
					for _, o := range items {
						out = append(out, describeValue(o))
					}
					return fmt.Sprintf("%v err=%v", out, err)
				case "byindex":
					items, err := mc.ByIndex(step[1], step[2])
					return fmt.Sprintf("%s nil=%v err=%v", describeValues(items), items == nil, err)
				}
				return "unknown step"
			})
			trace = append(trace, strings.Join(step, " ")+" -> "+result)
			for _, line := range rec.take() {
				trace = append(trace, "  log: "+line)
			}
		}
		return trace
	}
}

func TestMutationCacheMatchesClientGo(t *testing.T) {
	compareTraces(t, "mutation.txt", klogged(playMutation(clientGoCaches)), klogged(playMutation(kcacheCaches)))
}
