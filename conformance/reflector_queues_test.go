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

// reflectorClientGoQueue builds the scenario's client-go queue.
func reflectorClientGoQueue(s reflectortest.Setup) (cache.ReflectorStore, func() []string) {
	known := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, o := range s.Scenario.Known {
		_ = known.Add(o.Build())
	}
	switch s.Scenario.Queue {
	case "deltafifo":
		q := cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		return q, func() []string { return reflectorDrainClientGo(q) }
	case "realfifo":
		q := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		return q, func() []string { return reflectorDrainClientGo(q) }
	}
	q := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{AtomicEvents: true, Transformer: s.Store.Transform})
	return q, func() []string { return reflectorDrainClientGo(q) }
}

// reflectorKcacheQueue builds the scenario's kcache queue.
func reflectorKcacheQueue(s reflectortest.Setup) (kcache.ReflectorStore, func() []string) {
	known := kcache.NewStore(kcache.MetaNamespaceKeyFunc)
	for _, o := range s.Scenario.Known {
		_ = known.Add(o.Build())
	}
	switch s.Scenario.Queue {
	case "deltafifo":
		q := kcache.NewDeltaFIFOWithOptions(kcache.DeltaFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		return q, func() []string { return reflectorDrainKcache(q) }
	case "realfifo":
		q := kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{KnownObjects: known, Transformer: s.Store.Transform})
		return q, func() []string { return reflectorDrainKcache(q) }
	}
	q := kcache.NewRealFIFOWithOptions(kcache.RealFIFOOptions{AtomicEvents: true, Transformer: s.Store.Transform})
	return q, func() []string { return reflectorDrainKcache(q) }
}

// reflectorDrainClientGo closes q and pops every delta.
func reflectorDrainClientGo(q cache.Queue) []string {
	q.Close()
	var out []string
	for {
		_, err := q.Pop(func(obj interface{}, _ bool) error {
			for _, d := range obj.(cache.Deltas) {
				out = append(out, string(d.Type)+":"+reflectorDescribeClientGo(d.Object))
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, cache.ErrFIFOClosed) {
				out = append(out, "pop error: "+err.Error())
			}
			return out
		}
	}
}

// reflectorDrainKcache closes q and pops every delta.
func reflectorDrainKcache(q kcache.Queue) []string {
	q.Close()
	var out []string
	for {
		_, err := q.Pop(func(obj interface{}, _ bool) error {
			for _, d := range obj.(kcache.Deltas) {
				out = append(out, string(d.Type)+":"+reflectorDescribeKcache(d.Object))
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, kcache.ErrFIFOClosed) {
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
