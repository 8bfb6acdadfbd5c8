package conformance

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/reflectortest"
	"k8s.io/client-go/tools/cache"
)

// This file builds the real queues a Reflector scenario may ask for
// (Scenario.Queue) in both libraries, and drains them into comparable lines.

// reflectorDrained is a Reflector built on a queue; Drain pops the queue.
type reflectorDrained struct {
	reflectortest.Reflector
	drain func() []string
}

// Drain implements reflectortest.Drainer.
func (r reflectorDrained) Drain() []string { return r.drain() }

// reflectorQueueWith builds the scenario's queue of one library, Q, and
// its drain: over a known store (newKnown) holding the scenario's known
// objects, a DeltaFIFO or RealFIFO, by default an atomic RealFIFO without
// known objects; each is built by newQueue from the queue's name.
func reflectorQueueWith[S interface{ Add(interface{}) error }, Q any](s reflectortest.Setup, newKnown func() S,
	newQueue func(name string, known S) Q, drain func(Q) []string) (Q, func() []string) {
	known := newKnown()
	for _, o := range s.Scenario.Known {
		_ = known.Add(o.Build())
	}
	q := newQueue(s.Scenario.Queue, known)
	return q, func() []string { return drain(q) }
}

// reflectorClientGoQueue builds the scenario's client-go queue.
func reflectorClientGoQueue(s reflectortest.Setup) (cache.ReflectorStore, func() []string) {
	return reflectorQueueWith(s, func() cache.Store { return cache.NewStore(cache.MetaNamespaceKeyFunc) }, func(name string, known cache.Store) cache.Queue {
		switch name {
		case "deltafifo":
			return cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		case "realfifo":
			return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		}
		return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{AtomicEvents: true, Transformer: s.Store.Transform})
	}, func(q cache.Queue) []string {
		return reflectorDrain(q, cache.ErrFIFOClosed, func(obj interface{}) (out []string) {
			for _, d := range obj.(cache.Deltas) {
				out = append(out, string(d.Type)+":"+reflectorDescribeClientGo(d.Object))
			}
			return out
		})
	})
}

// reflectorKcacheQueue builds the scenario's kcache queue.
func reflectorKcacheQueue(s reflectortest.Setup) (kcache.ReflectorStore, func() []string) {
	return reflectorQueueWith(s, func() kcache.Store { return kcache.NewStore(kcache.MetaNamespaceKeyFunc) }, func(name string, known kcache.Store) kcache.Queue {
		switch name {
		case "deltafifo":
			return kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		case "realfifo":
			return kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		}
		return kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{AtomicEvents: true, Transformer: s.Store.Transform})
	}, func(q kcache.Queue) []string {
		return reflectorDrain(q, kcache.ErrFIFOClosed, func(obj interface{}) (out []string) {
			for _, d := range obj.(kcache.Deltas) {
				out = append(out, string(d.Type)+":"+reflectorDescribeKcache(d.Object))
			}
			return out
		})
	})
}

// reflectorDrain closes q, a queue of either library (F is its
// PopProcessFunc), and pops every item, rendered by render, until Pop
// returns an error; an error other than closed is rendered too.
func reflectorDrain[F ~func(interface{}, bool) error](q interface {
	Close()
	Pop(F) (interface{}, error)
}, closed error, render func(obj interface{}) []string) []string {
	q.Close()
	var out []string
	for {
		_, err := q.Pop(func(obj interface{}, _ bool) error {
			out = append(out, render(obj)...)
			return nil
		})
		if err != nil {
			if !errors.Is(err, closed) {
				out = append(out, "pop error: "+err.Error())
			}
			return out
		}
	}
}

func reflectorDescribeClientGo(obj interface{}) string {
	switch o := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		return fmt.Sprintf("tombstone(%s %s)", o.Key, reflectortest.Describe(o.Obj))
	case cache.ReplacedAllInfo:
		return "all@" + o.ResourceVersion + reflectorDescribeList(o.Objects)
	}
	return reflectortest.Describe(obj)
}

func reflectorDescribeKcache(obj interface{}) string {
	switch o := obj.(type) {
	case kcache.DeletedFinalStateUnknown:
		return fmt.Sprintf("tombstone(%s %s)", o.Key, reflectortest.Describe(o.Obj))
	case kcache.ReplacedAllInfo:
		return "all@" + o.ResourceVersion + reflectorDescribeList(o.Objects)
	}
	return reflectortest.Describe(obj)
}

// reflectorDescribeList renders objects sorted.
func reflectorDescribeList(objs []interface{}) string {
	d := make([]string, 0, len(objs))
	for _, o := range objs {
		d = append(d, reflectortest.Describe(o))
	}
	sort.Strings(d)
	return "[" + strings.Join(d, " ") + "]"
}
