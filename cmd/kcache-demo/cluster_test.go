package main

import (
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// nextEvent reads one event or fails after a generous deadline.
func nextEvent(t *testing.T, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(30 * time.Second):
		t.Fatal("no event")
		return watch.Event{}, false
	}
}

func TestSimulatedClusterResumesWatchesFromAResourceVersion(t *testing.T) {
	c := newSimulatedCluster(5)
	list, err := c.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods := list.(*v1.PodList)
	if len(pods.Items) != 5 || pods.ResourceVersion != "5" {
		t.Fatalf("list has %d pods at %q", len(pods.Items), pods.ResourceVersion)
	}
	c.churn(3)
	w, err := c.Watch(metav1.ListOptions{ResourceVersion: pods.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rv := func(ev watch.Event) int {
		n, _ := strconv.Atoi(ev.Object.(*v1.Pod).ResourceVersion)
		return n
	}
	c.mu.Lock()
	last := int(c.rv)
	c.mu.Unlock()
	for want := 6; want <= last; want++ {
		if ev, _ := nextEvent(t, w); rv(ev) != want {
			t.Fatalf("replayed event at %d, want %d", rv(ev), want)
		}
	}
	c.churn(1)
	if ev, _ := nextEvent(t, w); rv(ev) != last+1 {
		t.Fatalf("live event at %d, want %d", rv(ev), last+1)
	}
	if n, _ := c.snapshot(); n != 5 {
		t.Fatalf("churn changed the pod count to %d", n)
	}
}

func TestSimulatedClusterDisruptionsEndWatches(t *testing.T) {
	c := newSimulatedCluster(3)
	dropped, _ := c.Watch(metav1.ListOptions{ResourceVersion: "3"})
	c.dropWatches()
	if _, ok := nextEvent(t, dropped); ok {
		t.Fatal("dropped watch still open")
	}
	expired, _ := c.Watch(metav1.ListOptions{ResourceVersion: "3"})
	defer expired.Stop()
	c.expireHistory()
	ev, _ := nextEvent(t, expired)
	if ev.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
		t.Fatalf("got %v, want a 410 error event", ev.Type)
	}
	stale, _ := c.Watch(metav1.ListOptions{ResourceVersion: "1"})
	defer stale.Stop()
	if ev, _ := nextEvent(t, stale); ev.Type != watch.Error {
		t.Fatalf("watch from a compacted version got %v, want an error event", ev.Type)
	}
}
