package fastlw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kcache-go/cache/fastlw"
)

// TestAWatchOfAClientWithATimeoutStreamsEveryEventAsOnClientGo watches
// through a REST client whose http.Client has a Timeout (rest.Config's
// Timeout, as many callers set): net/http then ends a request's context
// as soon as the body it handed out reaches EOF or is closed. The server
// sends the first event, and the rest only once the watcher received it;
// client-go's watch and fastlw's must both deliver all three events.
// (fastlw once handed Request.Watch an empty stand-in body, whose EOF
// ended the context of the real body fastlw was reading: every later
// event was lost to "context canceled".)
func TestAWatchOfAClientWithATimeoutStreamsEveryEventAsOnClientGo(t *testing.T) {
	events := threeEvents()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", runtime.ContentTypeJSON)
		w.WriteHeader(http.StatusOK)
		for i, event := range events {
			if i == 1 {
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
			}
			_, _ = w.Write(watchStream(runtime.ContentTypeJSON, event))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	client, err := rest.RESTClientFor(&rest.Config{Host: srv.URL, APIPath: "/api", QPS: -1, Timeout: time.Minute,
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: scheme.Codecs.WithoutConversion()}})
	if err != nil {
		t.Fatal(err)
	}
	options := metav1.ListOptions{ResourceVersion: "100"}
	plain := watchReleasingAfterTheFirstEvent(t, cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), options, release)
	release = make(chan struct{})
	fast := watchReleasingAfterTheFirstEvent(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), fastlw.ClientsetSerializer()), options, release)
	requireSameWatch(t, plain, fast)
	if len(fast.events) != len(events) {
		t.Fatalf("fastlw delivered %d events, want %d: %v", len(fast.events), len(events), summary(fast.events))
	}
}

// watchReleasingAfterTheFirstEvent watches with options, closes release
// once the first event arrived, and reads until the result channel closes.
func watchReleasingAfterTheFirstEvent(t *testing.T, lw cache.ListerWatcherWithContext, options metav1.ListOptions, release chan struct{}) watchOutcome {
	t.Helper()
	w, err := lw.WatchWithContext(t.Context(), options)
	if err != nil {
		return watchOutcome{err: err}
	}
	defer w.Stop()
	var out watchOutcome
	for event := range w.ResultChan() {
		if len(out.events) == 0 {
			close(release)
		}
		out.events = append(out.events, event)
	}
	return out
}
