package fastlw_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kcache-go/cache/fastlw"
)

// concurrentWatches is how many watches run at once; a third of them is
// answered with each of the kinds of answer of rendezvousServer.
const concurrentWatches = 9

// rendezvousServer answers the watch selecting w=<i> only once n watch
// requests are in flight together, with an answer of its own: i%3 == 0 a
// 200 JSON stream (fastlw decodes it), i%3 == 1 the same stream without a
// Content-Type (handed to Request.Watch), i%3 == 2 a 403 Status naming i.
// The objects are pods named p<i>.
func rendezvousServer(t *testing.T, n int) *httptest.Server {
	var arrived sync.WaitGroup
	arrived.Add(n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("labelSelector"), "w="))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		arrived.Done()
		arrived.Wait()
		name := fmt.Sprintf("p%d", i)
		stream := watchStream(runtime.ContentTypeJSON,
			watch.Event{Type: watch.Added, Object: podAt(name, strconv.Itoa(100+i))},
			watch.Event{Type: watch.Deleted, Object: podAt(name, strconv.Itoa(200+i))})
		switch i % 3 {
		case 0:
			w.Header().Set("Content-Type", "application/json")
		case 1:
			w.Header()["Content-Type"] = nil
		case 2:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			stream = encode(runtime.ContentTypeJSON, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
				Reason: metav1.StatusReasonForbidden, Message: "watch " + name + " forbidden"})
		}
		w.Write(stream)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)
	return srv
}

// watchAllAtOnce opens the watches w=0 ... w=n-1 through lw at the same
// time and returns their outcomes, by i.
func watchAllAtOnce(t *testing.T, lw watcher, n int) []watchOutcome {
	outcomes := make([]watchOutcome, n)
	var done sync.WaitGroup
	for i := range n {
		done.Go(func() {
			outcomes[i] = watchAllIn(t.Context(), lw, metav1.ListOptions{ResourceVersion: "1", LabelSelector: fmt.Sprintf("w=%d", i)})
		})
	}
	done.Wait()
	return outcomes
}

// TestWatchesOfOneListerWatcherAllInFlightTogetherEachGetClientGosAnswer opens nine
// watches of one fastlw ListerWatcher at once, all in flight together,
// each answered differently (a stream fastlw decodes, a stream handed to
// Request.Watch, a 403): each gets what client-go's watch with the same
// options gets, so the siblings the watches share their client's parts
// with keep their answers apart; fastlw decodes the objects of exactly
// the streams it reads.
func TestWatchesOfOneListerWatcherAllInFlightTogetherEachGetClientGosAnswer(t *testing.T) {
	// NB: checked after the servers and transports close (Cleanup order).
	running := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, running) })
	plain := watchAllAtOnce(t, clientGoPlain(coreClientOf(t, rendezvousServer(t, concurrentWatches))), concurrentWatches)
	serializer := newObservedSerializer(nil)
	lw := fastlw.NewFromClient(coreClientOf(t, rendezvousServer(t, concurrentWatches)), "pods", "ns", fields.Everything(), serializer)
	fast := watchAllAtOnce(t, lw, concurrentWatches)
	for i := range concurrentWatches {
		t.Run(fmt.Sprintf("w=%d", i), func(t *testing.T) {
			requireSameWatch(t, plain[i], fast[i])
			if i%3 != 2 && len(plain[i].events) != 2 {
				t.Errorf("client-go gave %v, want the two events of p%d", summary(plain[i].events), i)
			}
		})
	}
	if want := int64(2 * concurrentWatches / 3); serializer.decodes.Load() != want {
		t.Errorf("fastlw decoded %d objects, want the %d of the streams it reads", serializer.decodes.Load(), want)
	}
}
