package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	kcache "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// reflectorStreamStep is one step of a scripted WatchList stream played in
// a synctest bubble: "sleep <d>", "add <name>" (a Pod), "node <name>" (a
// wrong type), "bookmark" (a plain one), "unknown" (an event of an unknown
// type), "end" (the initial-events-end bookmark) or "close". A first step
// "open <d>" makes the first Watch call take that long.
type reflectorStreamStep string

// reflectorPlayStream runs the reflector start builds in a synctest bubble
// with WatchList on, plays steps on its first stream and returns every log
// line with the bubble time it was logged at.
func reflectorPlayStream(t *testing.T, steps []reflectorStreamStep, start func(ctx context.Context, lw *cache.ListWatch)) []string {
	t.Helper()
	var out []string
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		begin := time.Now()
		logger := funcr.New(func(prefix, args string) {
			mu.Lock()
			defer mu.Unlock()
			out = append(out, fmt.Sprintf("%v %s", time.Since(begin), strings.TrimSpace(prefix+" "+args)))
		}, funcr.Options{Verbosity: 10})
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
		fw := watch.NewFake()
		var watches int
		lw := &cache.ListWatch{
			ListFunc: func(metav1.ListOptions) (kruntime.Object, error) {
				return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
			},
			WatchFunc: func(metav1.ListOptions) (watch.Interface, error) {
				watches++
				if watches == 1 {
					if verb, arg, _ := strings.Cut(string(steps[0]), " "); verb == "open" {
						d, _ := time.ParseDuration(arg)
						time.Sleep(d)
					}
					return fw, nil
				}
				return watch.NewFake(), nil
			},
		}
		start(ctx, lw)
		synctest.Wait()
		rv := 10
		for _, step := range steps {
			verb, arg, _ := strings.Cut(string(step), " ")
			rv++
			switch verb {
			case "sleep":
				d, err := time.ParseDuration(arg)
				if err != nil {
					t.Fatal(err)
				}
				time.Sleep(d)
			case "add":
				fw.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: arg, ResourceVersion: fmt.Sprint(rv)}})
			case "node":
				fw.Add(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: arg, ResourceVersion: fmt.Sprint(rv)}})
			case "bookmark":
				fw.Action(watch.Bookmark, &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: fmt.Sprint(rv)}})
			case "unknown":
				fw.Action("SURPRISE", &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "u", ResourceVersion: fmt.Sprint(rv)}})
			case "end":
				fw.Action(watch.Bookmark, &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: fmt.Sprint(rv), Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}})
			case "close":
				fw.Stop()
			}
			synctest.Wait()
		}
		cancel()
		time.Sleep(time.Minute)
		synctest.Wait()
	})
	return out
}

func TestWatchListBookmarkWarningsMatchClientGoInTextAndTiming(t *testing.T) {
	informerSetGates(t, map[features.Feature]bool{features.WatchListClient: true})
	// NB: HandleError's global rate limit sleeps relative to the real time
	// of its last call, which a synctest bubble's clock cannot order.
	saved := utilruntime.ErrorHandlers
	utilruntime.ErrorHandlers = saved[:1]
	t.Cleanup(func() { utilruntime.ErrorHandlers = saved })
	cases := map[string][]reflectorStreamStep{
		"no events for 35s":                          {"sleep 35s"},
		"one event at once, then 35s of silence":     {"add a", "sleep 35s"},
		"an event every 4s for 24s, then 25s silent": {"add a", "sleep 4s", "add b", "sleep 4s", "add c", "sleep 4s", "add d", "sleep 4s", "add e", "sleep 4s", "add f", "sleep 4s", "add g", "sleep 25s"},
		"an event after 15s, then 20s of silence":    {"sleep 15s", "add a", "sleep 20s"},
		"a wrong-type event after 5s":                {"sleep 5s", "node n", "sleep 30s"},
		"only wrong-type events every 4s":            {"node n1", "sleep 4s", "node n2", "sleep 4s", "node n3", "sleep 4s", "node n4", "sleep 4s", "sleep 20s"},
		"the end bookmark after 25s, then 30s":       {"add a", "sleep 25s", "end", "sleep 30s"},
		"the stream closing after 15s":               {"add a", "sleep 15s", "close", "sleep 30s"},
		"the end bookmark at 9.5s":                   {"add a", "sleep 9500ms", "end", "sleep 30s"},
		"an event at exactly 10s":                    {"sleep 10s", "add a", "sleep 10s", "sleep 10s"},
		"a plain bookmark after 15s":                 {"sleep 15s", "bookmark", "sleep 20s"},
		"an unknown event type after 15s":            {"sleep 15s", "unknown", "sleep 20s"},
		"a watch taking 3s to open":                  {"open 3s", "sleep 25s", "add a", "sleep 25s"},
		"a watch taking 12s to open":                 {"open 12s", "sleep 30s"},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			want := reflectorPlayStream(t, steps, func(ctx context.Context, lw *cache.ListWatch) {
				r := cache.NewReflectorWithOptions(lw, &v1.Pod{}, cache.NewStore(cache.MetaNamespaceKeyFunc), cache.ReflectorOptions{Name: "stream", Backoff: reflectorTestBackoff()})
				go r.RunWithContext(ctx)
			})
			got := reflectorPlayStream(t, steps, func(ctx context.Context, lw *cache.ListWatch) {
				klw := &kcache.ListWatch{ListFunc: kcache.ListFunc(lw.ListFunc), WatchFunc: kcache.WatchFunc(lw.WatchFunc)}
				r := kcache.NewReflectorWithOptions(klw, &v1.Pod{}, kcache.NewStore(kcache.MetaNamespaceKeyFunc), kcache.ReflectorOptions{Name: "stream", Backoff: reflectorTestBackoff()})
				go r.RunWithContext(ctx)
			})
			reflectorCompare(t, "logs", want, got)
			if testing.Verbose() {
				t.Logf("client-go:\n%s", strings.Join(want, "\n"))
			}
		})
	}
}
