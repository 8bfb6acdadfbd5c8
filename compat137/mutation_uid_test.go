package compat137

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// uidPod is pod with a UID.
func uidPod(name, rv, uid string) *v1.Pod {
	p := pod("ns", name, rv)
	p.UID = types.UID(uid)
	return p
}

// describeWithUID renders what a MutationCache read returned, with the UID
// of a pod (describe shows a record's UID already).
func describeWithUID(obj any) string {
	if p, ok := obj.(*v1.Pod); ok && p != nil {
		return fmt.Sprintf("%s uid=%s", describe(p), p.UID)
	}
	return describeRecorded(obj)
}

// mutationUIDOp is one random operation of TestMutationCacheWeighsUIDsAndVersionsAsClientGo.
type mutationUIDOp struct {
	kind, name, rv, uid string
}

// String renders the operation for the trace.
func (op mutationUIDOp) String() string {
	return fmt.Sprintf("%s %s rv=%q uid=%q", op.kind, op.name, op.rv, op.uid)
}

// randomMutationUIDOps draws n operations on two names, three UIDs (one
// empty) and resource versions 1 to 5 (and "").
func randomMutationUIDOps(rng *rand.Rand, n int) []mutationUIDOp {
	kinds := []string{"backing-add", "backing-delete", "mutation", "on-add", "on-delete", "on-delete", "mutation"}
	names := []string{"a", "a", "b"}
	rvs := []string{"1", "2", "3", "4", "5", ""}
	uids := []string{"uid-1", "uid-1", "uid-2", ""}
	ops := make([]mutationUIDOp, n)
	for i := range ops {
		ops[i] = mutationUIDOp{
			kind: kinds[rng.Intn(len(kinds))], name: names[rng.Intn(len(names))],
			rv: rvs[rng.Intn(len(rvs))], uid: uids[rng.Intn(len(uids))],
		}
	}
	return ops
}

// playMutationUIDOps applies ops to side and, after each, reads both names
// and the index.
func playMutationUIDOps(side *mutationSide, ops []mutationUIDOp) []string {
	var r recorder
	for _, op := range ops {
		p := uidPod(op.name, op.rv, op.uid)
		out := capture(func() {
			switch op.kind {
			case "backing-add":
				side.backing.Add(p)
			case "backing-delete":
				side.backing.Delete(p)
			case "mutation":
				side.cache.Mutation(p)
			case "on-add":
				side.cache.OnAddOrUpdate(p)
			case "on-delete":
				side.cache.OnDelete(p)
			}
		})
		r.logf("%s: %s", op, out)
		for _, name := range []string{"a", "b"} {
			var line string
			if msg := capture(func() {
				obj, exists, err := side.cache.GetByKey("ns/" + name)
				line = fmt.Sprintf("%s exists=%v err=%v", describeWithUID(obj), exists, err)
			}); msg != "" {
				line = msg
			}
			r.logf("  get %s: %s", name, line)
		}
		var line string
		if msg := capture(func() {
			items, err := side.cache.ByIndex("ns", "ns")
			out := make([]string, len(items))
			for i, it := range items {
				out[i] = describeWithUID(it)
			}
			line = fmt.Sprintf("%d err=%v [%s]", len(items), err, strings.Join(out, "; "))
		}); msg != "" {
			line = msg
		}
		r.logf("  index: %s", line)
	}
	return r.lines
}

// TestMutationCacheWeighsUIDsAndVersionsAsClientGo plays seeded random
// sequences of backing writes, Mutation, OnAddOrUpdate and OnDelete of pods
// of several UIDs and resource versions on client-go v0.37.2's and
// kcache's MutationCache, reading after every step: which of a recorded
// object, a recorded deletion and the backing object a read returns, and
// which write replaces which record, must be client-go's.
func TestMutationCacheWeighsUIDsAndVersionsAsClientGo(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		for _, includeAdds := range []string{"false", "true"} {
			options := map[string]string{"ttl": "hour", "indexer": "true", "includeAdds": includeAdds}
			ops := randomMutationUIDOps(rand.New(rand.NewSource(seed)), 12)
			t.Run(fmt.Sprintf("seed=%d/includeAdds=%s", seed, includeAdds), func(t *testing.T) {
				compareTraces(t, playMutationUIDOps(newMutationSideCG(options), ops), playMutationUIDOps(newMutationSideKC(options), ops))
			})
		}
	}
}
