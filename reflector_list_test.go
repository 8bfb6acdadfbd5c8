package cache

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/internal/reflectortest"
)

func TestCollectedObjectsKeepOrderAcrossChunksAndHandOverAnExactSlice(t *testing.T) {
	cases := []struct {
		name  string
		pages []int
	}{
		{"nothing listed", nil},
		{"an empty page", []int{0}},
		{"one page", []int{7}},
		{"pages that fill several growing chunks", []int{500, 500, 500, 500, 500, 500, 500, 500, 500, 17}},
		{"more than the chunk limit", []int{5000, 5000, 5000, 5000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c collectedObjects
			next := 0
			for _, n := range tc.pages {
				c.expect(n)
				for i := 0; i < n; i++ {
					c.add(next)
					next++
				}
			}
			for _, chunk := range c.chunks {
				if cap(chunk) > collectedChunkLimit && len(c.chunks) > 1 {
					t.Fatalf("a chunk of capacity %d exceeds the limit %d", cap(chunk), collectedChunkLimit)
				}
			}
			chunks := len(c.chunks)
			got := c.take()
			if got == nil || len(got) != next {
				t.Fatalf("took %d objects (nil: %v), want %d", len(got), got == nil, next)
			}
			if chunks > 1 && cap(got) != len(got) {
				t.Fatalf("the joined slice has capacity %d for %d objects", cap(got), len(got))
			}
			for i, obj := range got {
				if obj.(int) != i {
					t.Fatalf("object %d is %v: order lost", i, obj)
				}
			}
			if c.count != 0 || c.chunks != nil {
				t.Fatal("take must empty the collector")
			}
		})
	}
}

// failingTransformStore is a kcache-style store whose transform fails on
// the object named "b"; it records what replacePartlyTransformed receives.
type failingTransformStore struct {
	*reflectortest.Recorder
	replaces *int
	refusal  *string
}

func (s failingTransformStore) Transformer() TransformFunc {
	return func(obj interface{}) (interface{}, error) {
		if obj.(*v1.Pod).Name == "b" {
			return nil, errors.New("cannot shrink b")
		}
		return obj, nil
	}
}

func (s failingTransformStore) replaceTransformed(list []interface{}, rv string) error {
	*s.replaces++
	return s.Recorder.ReplaceTransformed(list, rv)
}

func (s failingTransformStore) replacePartlyTransformed(list []interface{}, rv string, failAt int, failure error) error {
	*s.refusal = fmt.Sprintf("%d objects at %s, refused #%d: %v", len(list), rv, failAt, failure)
	return fmt.Errorf("couldn't enqueue object: %w", failure)
}

func TestTransformErrorDuringAPagedListFetchesEveryPageAndHandsTheStoreTheRefusal(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	sc := reflectortest.Scenario{
		Name: "transform-error",
		Lists: []reflectortest.ListStep{
			{ResourceVersion: "10", Continue: "t1", Items: []reflectortest.Object{{Name: "a", ResourceVersion: "1"}}},
			{ResourceVersion: "10", Continue: "t2", Items: []reflectortest.Object{{Name: "b", ResourceVersion: "2"}}},
			{ResourceVersion: "10", Items: []reflectortest.Object{{Name: "c", ResourceVersion: "3"}}},
		},
		Rounds: 1,
	}
	var replaces int
	var refusal string
	wrap := func(r *reflectortest.Recorder) ReflectorStore {
		return failingTransformStore{Recorder: r, replaces: &replaces, refusal: &refusal}
	}
	got := reflectortest.Play(sc, false, buildReflector(false, wrap))
	lists := 0
	for _, line := range got.Trace {
		if strings.HasPrefix(line, "LIST") {
			lists++
		}
	}
	if lists != 3 {
		t.Errorf("made %d list requests, want all 3 pages", lists)
	}
	if replaces != 0 || len(got.Final) != 0 {
		t.Errorf("the store was replaced %d times and holds %v, want nothing", replaces, got.Final)
	}
	if want := "3 objects at 10, refused #1: cannot shrink b"; refusal != want {
		t.Errorf("the store was told %q, want %q", refusal, want)
	}
	last := got.Trace[len(got.Trace)-1]
	if !strings.Contains(last, "unable to sync list result: couldn't enqueue object: cannot shrink b") {
		t.Errorf("round ended with %q, want the store's error", last)
	}
}

func (s failingTransformStore) checkReplaceKey(interface{}) error { return nil }

func (s failingTransformStore) keysBeforeTransform() bool { return false }

func TestExpiredContinueTransformsOnlyPagesBeforeTheLastGoodOne(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	page := func(cont string, names ...string) reflectortest.ListStep {
		step := reflectortest.ListStep{ResourceVersion: "10", Continue: cont}
		for _, n := range names {
			step.Items = append(step.Items, reflectortest.Object{Name: n, ResourceVersion: "1"})
		}
		return step
	}
	full := page("", "a", "b", "c")
	expired := reflectortest.ListStep{Error: "expired"}
	cases := []struct {
		name  string
		lists []reflectortest.ListStep
		want  int
	}{
		// As client-go: only the full list is transformed.
		{"page 2 expires", []reflectortest.ListStep{page("t1", "a"), expired, full}, 3},
		// Deliberate difference: page 1 was transformed when page 2 arrived.
		{"page 3 expires", []reflectortest.ListStep{page("t1", "a"), page("t2", "b"), expired, full}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := reflectortest.Scenario{Name: tc.name, Lists: tc.lists, Rounds: 1}
			var replaces, transformedReplaces int
			wrap := func(r *reflectortest.Recorder) ReflectorStore {
				return kcacheTransformingStore{Recorder: r, replaces: &replaces, transformedReplaces: &transformedReplaces}
			}
			got := reflectortest.Play(sc, false, buildReflector(false, wrap))
			if got.TransformCalls != tc.want {
				t.Errorf("transform ran %d times, want %d", got.TransformCalls, tc.want)
			}
			if want := []string{"ns/a@1", "ns/b@1", "ns/c@1"}; strings.Join(got.Final, " ") != strings.Join(want, " ") {
				t.Errorf("store holds %v, want %v", got.Final, want)
			}
		})
	}
}
