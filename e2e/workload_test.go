package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// filler pads every object's data to a realistic size.
var filler = strings.Repeat("0123456789abcdef", 8)

// dataFor is the data of version v of an object.
func dataFor(v int) map[string]string {
	return map[string]string{"payload": fmt.Sprintf("v%d", v), "filler": filler}
}

// populate creates n objects named prefix-00000… with `writers` concurrent
// writers and returns them as the server stored them.
func populate(ctx context.Context, o objects, prefix string, n, writers int) ([]runtime.Object, error) {
	out := make([]runtime.Object, n)
	var next atomic.Int64
	return out, parallel(writers, func(int) error {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			obj, err := o.create(ctx, o.kind.build(fmt.Sprintf("%s-%05d", prefix, i), dataFor(0)))
			if err != nil {
				return fmt.Errorf("creating object %d: %w", i, err)
			}
			out[i] = obj
		}
		return nil
	})
}

// churnSpec describes a burst of concurrent creates, updates and deletes.
type churnSpec struct {
	// writers is the number of concurrent writers; each owns its own keys,
	// so no write conflicts with another.
	writers int
	// keysPerWriter is the size of each writer's key space.
	keysPerWriter int
	// ops is the total number of writes over all writers.
	ops int
	// seed makes the sequence of writes reproducible.
	seed uint64
}

// churnResult counts the writes a churn made.
type churnResult struct {
	// creates, updates and deletes count successful writes.
	creates, updates, deletes atomic.Int64
}

func (r *churnResult) String() string {
	return fmt.Sprintf("%d creates, %d updates, %d deletes", r.creates.Load(), r.updates.Load(), r.deletes.Load())
}

// churn runs spec against o: each writer picks one of its keys at random
// and creates it if absent, else updates it (60%) or deletes it (40%).
func churn(ctx context.Context, o objects, spec churnSpec) (*churnResult, error) {
	res := &churnResult{}
	perWriter := spec.ops / spec.writers
	err := parallel(spec.writers, func(writer int) error {
		rng := rand.New(rand.NewPCG(spec.seed, uint64(writer)))
		live := make([]runtime.Object, spec.keysPerWriter)
		versions := make([]int, spec.keysPerWriter)
		for op := 0; op < perWriter; op++ {
			k := rng.IntN(spec.keysPerWriter)
			name := fmt.Sprintf("churn-w%02d-k%04d", writer, k)
			versions[k]++
			var err error
			switch {
			case live[k] == nil:
				live[k], err = o.create(ctx, o.kind.build(name, dataFor(versions[k])))
				res.creates.Add(1)
			case rng.IntN(10) < 6:
				next := o.kind.build(name, dataFor(versions[k]))
				mustMeta(next).SetResourceVersion(mustMeta(live[k]).GetResourceVersion())
				live[k], err = o.update(ctx, next)
				res.updates.Add(1)
			default:
				err = o.delete(ctx, name)
				live[k] = nil
				res.deletes.Add(1)
			}
			if err != nil {
				return fmt.Errorf("writer %d, op %d on %s: %w", writer, op, name, err)
			}
		}
		return nil
	})
	return res, err
}

// mutate changes a populated set the way a recovering informer must catch
// up with: it updates the first third of live, deletes the second third and
// creates `creates` new objects named prefix-new-…. Every key is written at
// most once, so every watcher, however it catches up, must end with the
// same last notification per key.
func mutate(ctx context.Context, o objects, live []runtime.Object, prefix string, creates int) (*churnResult, error) {
	res := &churnResult{}
	third := len(live) / 3
	for i, obj := range live[:2*third] {
		m := mustMeta(obj)
		if i < third {
			next := o.kind.build(m.GetName(), dataFor(1000))
			mustMeta(next).SetResourceVersion(m.GetResourceVersion())
			if _, err := o.update(ctx, next); err != nil {
				return res, err
			}
			res.updates.Add(1)
			continue
		}
		if err := o.delete(ctx, m.GetName()); err != nil {
			return res, err
		}
		res.deletes.Add(1)
	}
	for i := 0; i < creates; i++ {
		if _, err := o.create(ctx, o.kind.build(fmt.Sprintf("%s-new-%04d", prefix, i), dataFor(0))); err != nil {
			return res, err
		}
		res.creates.Add(1)
	}
	return res, nil
}

// parallel runs f(0..n-1) concurrently and returns the first error.
func parallel(n int, f func(i int) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := f(i); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	return <-errs
}
