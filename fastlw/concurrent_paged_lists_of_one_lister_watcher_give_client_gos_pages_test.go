package fastlw_test

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// transformedAfter is client-go's ListWatch over c whose pages' items
// then go through transform, as an informer's TransformFunc takes them
// after the list returned.
type transformedAfter struct {
	cache.ListerWatcherWithContext
	transform func(interface{}) (interface{}, error)
}

// ListWithContext lists, then transforms each item of the page in place.
func (l transformedAfter) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	obj, err := l.ListerWatcherWithContext.ListWithContext(ctx, options)
	if err != nil {
		return obj, err
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, err
	}
	for _, item := range items {
		if _, err := l.transform(item); err != nil {
			return nil, err
		}
	}
	return obj, meta.SetList(obj, items)
}

// TestConcurrentPagedListsOfOneListerWatcherGiveClientGosPages runs eight
// paged lists at once on one fastlw ListerWatcher (small runs, two
// workers, an early transform) against the fake apiserver: each must get
// client-go's pages, with the early transform applied, whatever the
// others' prefetches did to its own; once a watch dropped the last
// prefetch, no goroutine is left.
func TestConcurrentPagedListsOfOneListerWatcherGiveClientGosPages(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	env := startEnv(scenario{pods: newPods(40)})
	defer env.close()
	client := env.client(t, "json")
	options := metav1.ListOptions{Limit: 3}
	plain := listAll(t.Context(), transformedAfter{clientGoPlain(client), labelSeen}, options)
	lw := fastlw.New(fastlw.Config{Client: client, Resource: "pods", Namespace: "ns", Transform: labelSeen, Workers: 2, MaxInFlight: 2,
		OptionsModifier: func(o *metav1.ListOptions) { o.FieldSelector = fields.Everything().String() }})
	const lists = 8
	fast := make([][]listOutcome, lists)
	var wg sync.WaitGroup
	for i := range lists {
		wg.Go(func() { fast[i] = listAll(t.Context(), lw, options) })
	}
	wg.Wait()
	for i := range lists {
		requireSameOutcomes(t, plain, fast[i])
	}
	dropPrefetchByAWatch(t, lw)
}

// TestAPagedListWhoseCallerCanceledWhileThePrefetchStreamedGetsClientGosNextPage
// cancels the context of a first page's call while the request of the
// second page, sent ahead, is at the server: the next call, with a live
// context, must get client-go's second page (not the cancellation), and
// no goroutine is left.
func TestAPagedListWhoseCallerCanceledWhileThePrefetchStreamedGetsClientGosNextPage(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	list := func(lw cache.ListerWatcherWithContext, atServer chan struct{}, release chan struct{}) []listOutcome {
		first, cancel := context.WithCancel(t.Context())
		defer cancel()
		options := metav1.ListOptions{Limit: 3}
		page, err := lw.ListWithContext(first, options)
		out := []listOutcome{{page, err}}
		if atServer != nil {
			<-atServer
		}
		cancel()
		close(release)
		options.Continue = continueOf(t, page)
		page, err = lw.ListWithContext(t.Context(), options)
		return append(out, listOutcome{page, err})
	}
	run := func(fast bool) []listOutcome {
		atServer, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		env := startEnv(scenario{pods: newPods(7), onContinue: func(string) {
			once.Do(func() { close(atServer); <-release })
		}})
		defer env.close()
		client := env.client(t, "json")
		if !fast {
			return list(clientGoPlain(client), nil, release)
		}
		lw := fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
		defer dropPrefetchByAWatch(t, lw)
		return list(lw, atServer, release)
	}
	requireSameOutcomes(t, run(false), run(true))
}

// continueOf returns the continue token of a page.
func continueOf(t *testing.T, page any) string {
	t.Helper()
	list, ok := page.(metav1.ListInterface)
	if !ok || list.GetContinue() == "" {
		t.Fatalf("page %T has no continue token", page)
	}
	return list.GetContinue()
}

// dropPrefetchByAWatch drops lw's page requested ahead, if any, by opening
// a watch under a canceled context (which sends nothing).
func dropPrefetchByAWatch(t *testing.T, lw *fastlw.ListerWatcher) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if w, err := lw.WatchWithContext(ctx, metav1.ListOptions{}); err == nil {
		w.Stop()
	}
}

// TestAPagedListCallUnderAContextAlreadyEndedFailsAsOnClientGo lists a
// first page, ends the context, and asks for the second page under it:
// client-go's call fails with the context's error, and so must fastlw's,
// although the page requested ahead (under that context) may have
// arrived before the context ended.
func TestAPagedListCallUnderAContextAlreadyEndedFailsAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	list := func(lw cache.ListerWatcherWithContext, prefetched chan struct{}) []listOutcome {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		options := metav1.ListOptions{Limit: 3}
		page, err := lw.ListWithContext(ctx, options)
		out := []listOutcome{{page, err}}
		<-prefetched
		cancel()
		options.Continue = continueOf(t, page)
		page, err = lw.ListWithContext(ctx, options)
		return append(out, listOutcome{page, err})
	}
	run := func(fast bool) []listOutcome {
		prefetched := make(chan struct{})
		var once sync.Once
		env := startEnv(scenario{pods: newPods(7), onContinue: func(string) { once.Do(func() { close(prefetched) }) }})
		defer env.close()
		client := env.client(t, "json")
		if !fast {
			close(prefetched)
			return list(clientGoPlain(client), prefetched)
		}
		lw := fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
		defer dropPrefetchByAWatch(t, lw)
		return list(lw, prefetched)
	}
	plain := run(false)
	if plain[1].err == nil {
		t.Fatalf("client-go's second call gave %T, want an error", plain[1].obj)
	}
	requireSameOutcomes(t, plain, run(true))
}

// TestAPrefetchDroppedByAWatchWhileAtTheServerLeavesNothingAndTheNextPageIsClientGos
// opens a watch while the second page, requested ahead, is held at the
// server: the watch drops it (no goroutine is left once it returned), and
// a later call for the second page gets client-go's page.
func TestAPrefetchDroppedByAWatchWhileAtTheServerLeavesNothingAndTheNextPageIsClientGos(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	run := func(fast bool) []listOutcome {
		atServer, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		env := startEnv(scenario{pods: newPods(7), onContinue: func(string) { once.Do(func() { close(atServer); <-release }) }})
		defer env.close()
		client := env.client(t, "json")
		var lw cache.ListerWatcherWithContext = clientGoPlain(client)
		if fast {
			lw = fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
		} else {
			close(atServer)
		}
		options := metav1.ListOptions{Limit: 3}
		page, err := lw.ListWithContext(t.Context(), options)
		out := []listOutcome{{page, err}}
		<-atServer
		if fast {
			dropPrefetchByAWatch(t, lw.(*fastlw.ListerWatcher))
		}
		close(release)
		options.Continue = continueOf(t, page)
		return append(out, listAll(t.Context(), lw, options)...)
	}
	requireSameOutcomes(t, run(false), run(true))
}
