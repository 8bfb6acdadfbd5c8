package fastlw_test

import (
	"context"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/rest"
	cg "k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/fastlw"
)

// These tests compare fastlw with client-go's own plain path,
// cg.NewListWatchFromClient, rather than kcache's copy of it.

// clientGoPlain is client-go's ListWatch over client.
func clientGoPlain(client rest.Interface) cg.ListerWatcherWithContext {
	return cg.ToListerWatcherWithContext(cg.NewListWatchFromClient(client, "pods", "ns", fields.Everything()))
}

// reflectorRun is what a client-go Reflector did over one ListerWatcher:
// the queries the server saw up to its first watch and the store's keys.
type reflectorRun struct {
	queries []url.Values
	keys    []string
}

// runClientGoReflector runs a client-go Reflector (pages of pageSize) over
// lw until it opens its watch, then stops it.
func runClientGoReflector(t *testing.T, sc scenario, format string, pageSize int64, lw func(rest.Interface) cg.ListerWatcher) reflectorRun {
	watching := make(chan struct{}, 1)
	sc.onWatch = func() {
		select {
		case watching <- struct{}{}:
		default:
		}
	}
	sc.watchEnd = endHang
	env := startEnv(sc)
	defer env.close()
	store := cg.NewStore(cg.MetaNamespaceKeyFunc)
	r := cg.NewReflectorWithOptions(lw(env.client(t, format)), &corev1.Pod{}, store, cg.ReflectorOptions{})
	r.WatchListPageSize = pageSize
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); r.RunWithContext(ctx) }()
	<-watching
	cancel()
	<-done
	var queries []url.Values
	for _, q := range env.server.requestLog() {
		if q.Get("watch") != "true" {
			queries = append(queries, q)
		}
	}
	keys := store.ListKeys()
	slices.Sort(keys)
	return reflectorRun{queries: queries, keys: keys}
}

// TestAReflectorFallsBackToAFullListWhenPageTwosContinueTokenExpiredAsOnClientGosListWatch
// runs client-go's Reflector over client-go's ListWatch and over fastlw
// (paged lists, WatchList off): the continue token of page one answers 410
// on page two, and both must send the same list requests (the fallback to
// a full list included) and end with the same store.
func TestAReflectorFallsBackToAFullListWhenPageTwosContinueTokenExpiredAsOnClientGosListWatch(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	for _, tt := range []struct {
		name string
		sc   scenario
	}{
		{name: "the token expires", sc: scenario{pods: newPods(7), expireTokens: true}},
		{name: "the tokens are good", sc: scenario{pods: newPods(7)}},
	} {
		for _, format := range []string{"json", "protobuf"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				plain := runClientGoReflector(t, tt.sc, format, 3, func(c rest.Interface) cg.ListerWatcher {
					return cg.NewListWatchFromClient(c, "pods", "ns", fields.Everything())
				})
				fast := runClientGoReflector(t, tt.sc, format, 3, func(c rest.Interface) cg.ListerWatcher {
					return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
				})
				if !reflect.DeepEqual(plain.queries, fast.queries) {
					t.Errorf("list requests differ:\nclient-go %v\nfastlw    %v", plain.queries, fast.queries)
				}
				if !reflect.DeepEqual(plain.keys, fast.keys) || len(fast.keys) != 7 {
					t.Errorf("stores differ:\nclient-go %v\nfastlw    %v", plain.keys, fast.keys)
				}
			})
		}
	}
}

// clientGoListCase is a list scenario (formats nil: JSON and protobuf).
type clientGoListCase struct {
	name    string
	formats []string
	sc      scenario
	options metav1.ListOptions
}

// TestListsGiveClientGosPagesAndErrors lists through client-go's ListWatch
// and through fastlw and requires the same pages and errors: paged and
// resource version 0 lists, a 410 on page two, a Table.
func TestListsGiveClientGosPagesAndErrors(t *testing.T) {
	tests := []clientGoListCase{
		{name: "a paged list", sc: scenario{pods: newPods(7)}, options: metav1.ListOptions{Limit: 3}},
		{name: "a list at resource version 0 (the watch cache) with a limit", sc: scenario{pods: newPods(7)},
			options: metav1.ListOptions{ResourceVersion: "0", Limit: 3}},
		{name: "a list at resource version 0 with NotOlderThan", sc: scenario{pods: newPods(4)},
			options: metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 2}},
		{name: "page two's continue token expired", sc: scenario{pods: newPods(7), expireTokens: true}, options: metav1.ListOptions{Limit: 3}},
		{name: "a Table answer", formats: []string{"table"}, sc: scenario{pods: newPods(2), tableList: true}},
	}
	for _, tt := range tests {
		inEachFormat(t, tt.name, tt.formats, tt.sc, func(t *testing.T, client rest.Interface) {
			plain := listAll(t.Context(), clientGoPlain(client), tt.options)
			fast := listAll(t.Context(), fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil), tt.options)
			requireSameOutcomes(t, plain, fast)
		})
	}
}

// bigPod is a pod with an annotation of size bytes.
func bigPod(name, rv string, size int) *corev1.Pod {
	pod := podAt(name, rv)
	pod.Annotations["big"] = strings.Repeat("x", size)
	return pod
}

// TestWatchesGiveClientGosEventsAndErrors watches through client-go's
// ListWatch and through fastlw and requires the same events and errors.
func TestWatchesGiveClientGosEventsAndErrors(t *testing.T) {
	internal := &metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "etcd is sad"}
	forbidden := &metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden, Message: "no"}
	protobufOnly := []string{"protobuf"} // a length prefix over 16 MiB; JSON would only be slow
	tests := []struct {
		name    string
		formats []string
		sc      scenario
		cfg     fastlw.Config
	}{
		{name: "an ERROR event of a 500 Status, then more events", sc: scenario{watchSteps: append(changes()[:2],
			scriptEvent(watch.Error, internal), scriptEvent(watch.Modified, podAt("pod-000", "150")))}},
		{name: "the stream ends with an ERROR event of a 403 Status", sc: scenario{watchSteps: append(changes()[:1],
			scriptEvent(watch.Error, forbidden))}},
		{name: "frames of 256 KiB and more through an in-flight bound of one", cfg: fastlw.Config{Workers: 1, MaxInFlight: 1},
			sc: scenario{watchSteps: []watchStep{scriptEvent(watch.Added, bigPod("a", "101", 256<<10)),
				scriptEvent(watch.Modified, bigPod("a", "102", 512<<10)), scriptEvent(watch.Deleted, podAt("a", "103"))}}},
		{name: "a first frame over 16 MiB", formats: protobufOnly, sc: scenario{watchSteps: []watchStep{scriptEvent(watch.Added, bigPod("a", "101", 17<<20)),
			scriptEvent(watch.Deleted, podAt("a", "103"))}}},
		{name: "a frame over 16 MiB after a small one", formats: protobufOnly, sc: scenario{watchSteps: []watchStep{scriptEvent(watch.Added, podAt("b", "100")),
			scriptEvent(watch.Added, bigPod("a", "101", 17<<20)), scriptEvent(watch.Deleted, podAt("a", "103"))}}},
		{name: "a frame that is not a WatchEvent", sc: scenario{watchSteps: append(changes()[:2],
			watchStep{raw: map[string][]byte{runtime.ContentTypeJSON: []byte(`[1,2]`), runtime.ContentTypeProtobuf: []byte("\xff\xfe\x01")}},
			scriptEvent(watch.Modified, podAt("pod-000", "150")))}},
	}
	for _, tt := range tests {
		inEachFormat(t, tt.name, tt.formats, tt.sc, func(t *testing.T, client rest.Interface) {
			cfg := tt.cfg
			cfg.Client, cfg.Resource, cfg.Namespace = client, "pods", "ns"
			plain := watchAll(t, clientGoPlain(client), metav1.ListOptions{ResourceVersion: "100"})
			requireSameWatch(t, plain, watchAll(t, fastlw.New(cfg), metav1.ListOptions{ResourceVersion: "100"}))
		})
	}
}

// TestCancellingTheListContextEndsAPrefetchStillInFlight lists a first
// page, whose prefetch of page two the server holds unanswered, and
// cancels the list's context: the prefetch's goroutine ends while the
// server still holds the request (only the HTTP machinery's goroutines
// remain), and the next page, asked for under a live context, is client-go's.
func TestCancellingTheListContextEndsAPrefetchStillInFlight(t *testing.T) {
	for _, format := range []string{"json", "protobuf"} {
		t.Run(format, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			asked, release := make(chan struct{}, 1), make(chan struct{})
			var once sync.Once
			env := startEnv(scenario{pods: newPods(7), onContinue: func(string) {
				once.Do(func() { asked <- struct{}{}; <-release })
			}})
			defer env.close()
			client := env.client(t, format)
			fast := fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)
			before := goleak.IgnoreCurrent()
			ctx, cancel := context.WithCancel(t.Context())
			if _, err := fast.ListWithContext(ctx, metav1.ListOptions{Limit: 3}); err != nil {
				t.Fatal(err)
			}
			<-asked
			cancel()
			if err := goleak.Find(before, goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
				goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"), goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
				goleak.IgnoreAnyFunction("net/http.(*connReader).backgroundRead")); err != nil {
				close(release)
				t.Fatalf("a goroutine outlived the cancelled list: %v", err)
			}
			close(release)
			second := metav1.ListOptions{Limit: 3, Continue: "c3"}
			requireSameOutcomes(t, listAll(t.Context(), clientGoPlain(client), second), listAll(t.Context(), fast, second))
		})
	}
}
