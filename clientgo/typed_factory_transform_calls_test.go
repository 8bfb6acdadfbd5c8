package clientgo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"
)

// podsServer answers every pods list with pods p0..p(n-1) in JSON and the
// first watch with the MODIFIED event of p0 and the ADDED event of "last",
// then holds every watch open until its request ends.
type podsServer struct {
	n       int
	watched sync.Once
}

func (s *podsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") != "true" {
		items := ""
		for i := range s.n {
			if i > 0 {
				items += ","
			}
			items += fmt.Sprintf(`{"metadata":{"name":"p%d","namespace":"ns","resourceVersion":"%d","labels":{"a":"b"}}}`, i, 10+i)
		}
		_, _ = w.Write([]byte(podListJSON("[" + items + "]")))
		return
	}
	w.WriteHeader(http.StatusOK)
	s.watched.Do(func() {
		for _, e := range []string{`"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p0","namespace":"ns","resourceVersion":"90"}}`,
			`"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"last","namespace":"ns","resourceVersion":"91"}}`} {
			_, _ = w.Write([]byte(`{"type":` + e + "}\n"))
		}
	})
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// transformCalls records the calls of a transform that drops labels: how
// many per object name, and whether two ever overlapped.
type transformCalls struct {
	mu       sync.Mutex // guards the fields below
	inFlight int
	overlap  bool
	perName  map[string]int
}

func (c *transformCalls) transform(obj interface{}) (interface{}, error) {
	c.mu.Lock()
	c.inFlight++
	c.overlap = c.overlap || c.inFlight > 1
	if m, err := meta.Accessor(obj); err == nil {
		c.perName[m.GetName()+"@"+m.GetResourceVersion()]++
		m.SetLabels(nil)
	}
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.inFlight--; c.mu.Unlock() }()
	return obj, nil
}

// TestTheTypedFactorysTransformIsCalledOnceAtATimeWithoutWithConcurrentTransform
// runs a pods informer of the typed factory (on fastlw) with a transform,
// without and with WithConcurrentTransform, on a list of many pods then
// two watch events: without the option the transform is never called
// concurrently and once per object version, as client-go's informer calls
// it; with it, what the cache stores is the same.
func TestTheTypedFactorysTransformIsCalledOnceAtATimeWithoutWithConcurrentTransform(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	var stored [2][]string
	for i, concurrent := range []bool{false, true} {
		t.Run(fmt.Sprintf("WithConcurrentTransform=%v", concurrent), func(t *testing.T) {
			calls := &transformCalls{perName: map[string]int{}}
			stored[i] = runPodsInformer(t, NewSharedInformerFactoryWithOptions, calls, concurrent, nil)
			if concurrent {
				if calls.perName["p1@11"] != 2 {
					t.Errorf("p1 transformed %d times, want twice (early and in the informer)", calls.perName["p1@11"])
				}
				return
			}
			if calls.overlap {
				t.Error("the transform was called concurrently")
			}
			for name, n := range calls.perName {
				if n != 1 {
					t.Errorf("%s transformed %d times, want once", name, n)
				}
			}
		})
	}
	if !reflect.DeepEqual(stored[0], stored[1]) {
		t.Errorf("stored:\n without %v\n with    %v", stored[0], stored[1])
	}
}

// runPodsInformer syncs a pods informer of newFactory (this package's
// typed factory, or client-go's) with calls' transform (and
// WithConcurrentTransform when concurrent), then setTransform set on the
// informer when not nil, and returns what its cache holds after the watch's
// "last" pod arrived.
func runPodsInformer(t *testing.T, newFactory typedFactoryConstructor, calls *transformCalls, concurrent bool, setTransform clientgocache.TransformFunc) []string {
	srv := httptest.NewServer(&podsServer{n: 300})
	defer srv.Close()
	defer srv.CloseClientConnections()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	options := []informers.SharedInformerOption{informers.WithTransform(calls.transform)}
	if concurrent {
		options = append(options, WithConcurrentTransform())
	}
	f := newFactory(cs, 0, options...)
	inf := f.Core().V1().Pods().Informer()
	if setTransform != nil {
		_ = inf.SetTransform(setTransform)
	}
	arrived := make(chan struct{})
	var once sync.Once
	_, _ = inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) {
		if obj.(*corev1.Pod).Name == "last" {
			once.Do(func() { close(arrived) })
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.Start(ctx.Done())
	defer f.Shutdown()
	defer cancel()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the watch's last pod never arrived")
	}
	var out []string
	for _, obj := range inf.GetStore().List() {
		p := obj.(*corev1.Pod)
		out = append(out, fmt.Sprintf("%s/%s@%s labels=%v", p.Namespace, p.Name, p.ResourceVersion, p.Labels))
	}
	sort.Strings(out)
	return out
}
