package fastlw_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// coreClientOf returns a typed clientset's core/v1 REST client of srv
// (JSON), on its own transport, whose idle connections close when the test
// ends.
func coreClientOf(t *testing.T, srv *httptest.Server) rest.Interface {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: srv.URL, QPS: -1}, &http.Client{Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	return cs.CoreV1().RESTClient()
}

// TestStopReturnsWhileTheRelayedPlainWatchIsStillOpening answers a watch
// with a stream fastlw cannot read (HTML), so that it relays a plain watch,
// and holds that second request unanswered: Stop must return at once, as a
// plain StreamWatcher's does, not wait for the server or the caller's
// context. (The 30 s bound only turns a hang into a failure with a dump.)
func TestStopReturnsWhileTheRelayedPlainWatchIsStillOpening(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var requests atomic.Int32
	relaying := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>sign in</html>\n"))
			return
		}
		once.Do(func() { close(relaying) })
		<-r.Context().Done()
	}))
	defer srv.Close()
	lw := fastlw.NewFromClient(coreClientOf(t, srv), "pods", "ns", fields.Everything(), nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "100"})
	if err != nil {
		t.Fatal(err)
	}
	<-relaying
	stopped := make(chan struct{})
	go func() { defer close(stopped); w.Stop() }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		cancel()
		<-stopped
		t.Fatal("Stop did not return while the relayed watch was opening")
	}
	for range w.ResultChan() {
	}
}
