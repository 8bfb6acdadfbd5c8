// Package obstest provides a scripted pod source for the observability
// tests (metrics/prometheus, debug): the test lists, then drives each watch
// the Reflector opens, event by event, and can end one with 410 Gone.
package obstest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Source is a ListerWatcher of pods. Every Watch call hands its watcher to
// the test through NextWatch. mu guards pods, rv and lists.
type Source struct {
	mu sync.Mutex
	// pods are the current pods, in creation order.
	pods []*v1.Pod
	// rv is the resource version of the last change.
	rv int
	// lists counts List calls.
	lists int
	// watches receives the watcher of every Watch call.
	watches chan *watch.FakeWatcher
}

// NewSource returns a source holding n pods named pod-0..pod-(n-1) in
// namespace ns.
func NewSource(ns string, n int) *Source {
	s := &Source{watches: make(chan *watch.FakeWatcher, 16)}
	for i := 0; i < n; i++ {
		s.rv++
		s.pods = append(s.pods, &v1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: fmt.Sprintf("pod-%d", i), ResourceVersion: strconv.Itoa(s.rv),
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%2)},
		}})
	}
	return s
}

// List returns every pod at the current resource version.
func (s *Source) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	list := &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	for _, p := range s.pods {
		list.Items = append(list.Items, *p.DeepCopy())
	}
	return list, nil
}

// Watch returns a new fake watcher and hands it to NextWatch.
func (s *Source) Watch(metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFakeWithChanSize(64, false)
	s.watches <- w
	return w, nil
}

// IsWatchListSemanticsUnSupported makes the Reflector use List then Watch.
func (s *Source) IsWatchListSemanticsUnSupported() bool { return true }

// Lists returns how many lists were served.
func (s *Source) Lists() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

// RV returns the resource version of the last change.
func (s *Source) RV() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.Itoa(s.rv)
}

// NextWatch returns the watcher of the next Watch call, failing the test if
// none comes within a minute.
func (s *Source) NextWatch(t testing.TB) *watch.FakeWatcher {
	t.Helper()
	select {
	case w := <-s.watches:
		return w
	case <-time.After(time.Minute):
		t.Fatal("the Reflector opened no watch")
		return nil
	}
}

// Relabel changes the label "gen" of pod i, sends the update on w and
// returns the new resource version.
func (s *Source) Relabel(w *watch.FakeWatcher, i int) string {
	s.mu.Lock()
	s.rv++
	p := s.pods[i].DeepCopy()
	p.ResourceVersion = strconv.Itoa(s.rv)
	p.Labels["gen"] = p.ResourceVersion
	s.pods[i] = p
	s.mu.Unlock()
	w.Modify(p.DeepCopy())
	return p.ResourceVersion
}

// Expire ends w with a 410 Gone error event, as after a compaction.
func Expire(w *watch.FakeWatcher) {
	status := apierrors.NewResourceExpired("too old resource version").Status()
	w.Error(&status)
}

// Eventually polls cond until it holds, failing the test after a minute.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-tick.C:
		}
	}
}

// Counter is an event handler that counts the notifications it finished.
// mu guards n.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) inc() { c.mu.Lock(); c.n++; c.mu.Unlock() }

// Count returns the notifications handled so far.
func (c *Counter) Count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

func (c *Counter) OnAdd(interface{}, bool)           { c.inc() }
func (c *Counter) OnUpdate(interface{}, interface{}) { c.inc() }
func (c *Counter) OnDelete(interface{})              { c.inc() }
