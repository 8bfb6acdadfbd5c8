package cache

import (
	"errors"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestTypedIndexerConvertsResultsAndPassesErrorsThrough(t *testing.T) {
	ix := typedIndexer[*v1.Pod]{Indexer: NewIndexer(MetaNamespaceKeyFunc, Indexers{})}
	if err := ix.AddTypedIndexers(TypedIndexers[*v1.Pod]{"ns": func(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil }}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*v1.Pod{testPod("a", "1", "1"), testPod("a", "2", "1"), testPod("b", "3", "1")} {
		if err := ix.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		read    func() ([]*v1.Pod, error)
		wantLen int
		wantNil bool
		wantErr bool
	}{
		{"by typed index", func() ([]*v1.Pod, error) { return ix.ByTypedIndex("ns", "a") }, 2, false, false},
		{"by typed index without match is empty, not nil", func() ([]*v1.Pod, error) { return ix.ByTypedIndex("ns", "z") }, 0, false, false},
		{"typed index", func() ([]*v1.Pod, error) { return ix.TypedIndex("ns", testPod("b", "x", "")) }, 1, false, false},
		{"unknown index", func() ([]*v1.Pod, error) { return ix.ByTypedIndex("nope", "a") }, 0, true, true},
		{"unknown index for TypedIndex", func() ([]*v1.Pod, error) { return ix.TypedIndex("nope", testPod("a", "x", "")) }, 0, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := tc.read()
			if (err != nil) != tc.wantErr || len(pods) != tc.wantLen || (pods == nil) != tc.wantNil {
				t.Fatalf("got %d pods (nil=%v), err %v", len(pods), pods == nil, err)
			}
		})
	}
}

func TestTypedIndexFuncConversionCallsTheTypedFunction(t *testing.T) {
	boom := errors.New("boom")
	converted := TypedIndexersToIndexers(TypedIndexers[*v1.Pod]{
		"name": func(p *v1.Pod) ([]string, error) { return []string{p.Name}, nil },
		"fail": func(*v1.Pod) ([]string, error) { return nil, boom },
	})
	if len(converted) != 2 {
		t.Fatalf("converted %d functions", len(converted))
	}
	if values, err := converted["name"](testPod("ns", "a", "")); err != nil || fmt.Sprint(values) != "[a]" {
		t.Fatalf("name = %v %v", values, err)
	}
	if _, err := converted["fail"](testPod("ns", "a", "")); err != boom {
		t.Fatalf("fail = %v", err)
	}
	if TypedIndexersToIndexers[*v1.Pod](nil) == nil {
		t.Fatal("nil typed indexers convert to nil, want an empty map")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an object of another type did not panic")
		}
	}()
	_, _ = converted["name"]("not a pod")
}
