package cache

import (
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// snapshotPod is pod ns/name at resource version rv.
func snapshotPod(ns, name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// describeSnapshotItems renders items as ns/name@rv.
func describeSnapshotItems(items []interface{}) string {
	out := make([]string, 0, len(items))
	for _, obj := range items {
		p := obj.(*v1.Pod)
		out = append(out, p.Namespace+"/"+p.Name+"@"+p.ResourceVersion)
	}
	return strings.Join(out, " ")
}

func TestWatchListSnapshotKeepsTheLatestObjectPerKeyInFirstArrivalOrder(t *testing.T) {
	type op struct {
		verb string
		pod  *v1.Pod
	}
	cases := []struct {
		name string
		ops  []op
		want string
	}{
		{"adds in order", []op{{"add", snapshotPod("a", "x", "1")}, {"add", snapshotPod("b", "x", "2")}}, "a/x@1 b/x@2"},
		{"an update replaces in place", []op{{"add", snapshotPod("a", "x", "1")}, {"add", snapshotPod("a", "y", "2")}, {"update", snapshotPod("a", "x", "3")}}, "a/x@3 a/y@2"},
		{"a delete removes", []op{{"add", snapshotPod("a", "x", "1")}, {"add", snapshotPod("a", "y", "2")}, {"delete", snapshotPod("a", "x", "3")}}, "a/y@2"},
		{"a re-add after a delete keeps the first position", []op{{"add", snapshotPod("a", "x", "1")}, {"add", snapshotPod("a", "y", "2")}, {"delete", snapshotPod("a", "x", "3")}, {"add", snapshotPod("a", "x", "4")}}, "a/x@4 a/y@2"},
		{"deleting an unknown key does nothing", []op{{"delete", snapshotPod("a", "x", "1")}}, ""},
		{"same name in two namespaces", []op{{"add", snapshotPod("a", "x", "1")}, {"add", snapshotPod("b", "x", "2")}, {"delete", snapshotPod("a", "x", "3")}}, "b/x@2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newWatchListSnapshot(nil)
			for _, o := range tc.ops {
				var err error
				switch o.verb {
				case "add":
					err = s.Add(o.pod)
				case "update":
					err = s.Update(o.pod)
				case "delete":
					err = s.Delete(o.pod)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			items, transformed := s.release()
			if transformed {
				t.Fatal("no transform was given")
			}
			if got := describeSnapshotItems(items); got != tc.want {
				t.Fatalf("snapshot = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWatchListSnapshotGrowsAcrossChunksWithoutLosingObjects(t *testing.T) {
	s := newWatchListSnapshot(func(obj interface{}) (interface{}, error) {
		obj.(*v1.Pod).Labels = map[string]string{"seen": "yes"}
		return obj, nil
	})
	const n = 3*snapshotChunk + 5
	for i := 0; i < n; i++ {
		if err := s.Add(snapshotPod("ns", strconv.Itoa(i), strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(snapshotPod("ns", "7", "")); err != nil {
		t.Fatal(err)
	}
	if s.len() != n-1 {
		t.Fatalf("len = %d, want %d", s.len(), n-1)
	}
	items, transformed := s.release()
	if !transformed || len(items) != n-1 {
		t.Fatalf("released %d items (transformed %v), want %d transformed", len(items), transformed, n-1)
	}
	want := 0
	for _, obj := range items {
		if want == 7 {
			want++
		}
		p := obj.(*v1.Pod)
		if p.Name != strconv.Itoa(want) || p.Labels["seen"] != "yes" {
			t.Fatalf("item for %d is %s with labels %v", want, p.Name, p.Labels)
		}
		want++
	}
}

func TestWatchListSnapshotRejectsObjectsWithoutMetadata(t *testing.T) {
	s := newWatchListSnapshot(nil)
	err := s.Add(42)
	if _, ok := err.(KeyError); !ok {
		t.Fatalf("Add(42) returned %v, want a KeyError", err)
	}
	if err := s.Replace(nil, ""); err == nil {
		t.Fatal("Replace must be refused")
	}
}
