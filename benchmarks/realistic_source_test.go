package benchmarks

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kcache-go/cache/internal/realisticpods"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// realisticSource serves the generator's pods as a kube-apiserver would: a
// paged List (reflectorBenchPage pods a page, the next index as continue
// token) or, when the client asks for initial events, a watch streaming
// one ADDED event per pod and then the initial-events-end bookmark. It
// renders and decodes each page or event when asked and keeps neither the
// JSON nor the decoded objects: once the client drops them, they are
// garbage. Later watches stay silent until stopped.
type realisticSource struct {
	// gen renders the pods.
	gen *realisticpods.Generator
	// peak is sampled every sampleEvery pods served and before the last
	// page or the bookmark; a disabled peak makes that free.
	peak        *reflectorBenchPeak
	sampleEvery int
	// streams counts watches that asked for initial events; only the
	// first one streams.
	streams atomic.Int64
	// feeders tracks streaming goroutines.
	feeders sync.WaitGroup
	// stop ends streaming goroutines.
	stop chan struct{}
}

func newRealisticSource(gen *realisticpods.Generator, peak *reflectorBenchPeak, sampleEvery int) *realisticSource {
	return &realisticSource{gen: gen, peak: peak, sampleEvery: sampleEvery, stop: make(chan struct{})}
}

// List decodes page [start, start+500) from freshly rendered JSON.
func (s *realisticSource) List(options metav1.ListOptions) (kruntime.Object, error) {
	start := 0
	if options.Continue != "" {
		var err error
		if start, err = strconv.Atoi(options.Continue); err != nil {
			return nil, fmt.Errorf("bad continue token %q", options.Continue)
		}
	}
	n := s.gen.N()
	end := min(start+reflectorBenchPage, n)
	if start%s.sampleEvery == 0 || end == n {
		s.peak.sample()
	}
	cont := ""
	if end < n {
		cont = strconv.Itoa(end)
	}
	return realisticpods.DecodeList(s.gen.AppendList(nil, start, end, s.gen.ListResourceVersion(), cont))
}

// Watch streams the initial events when asked to, the first time.
func (s *realisticSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	w := &informerBenchWatch{ch: make(chan watch.Event), stopped: make(chan struct{})}
	if options.SendInitialEvents != nil && *options.SendInitialEvents && s.streams.Add(1) == 1 {
		s.feeders.Add(1)
		go s.feed(w)
	}
	return w, nil
}

// feed decodes and sends every pod as an ADDED event (one JSON document
// each, as a watch stream frames them), then the bookmark that ends the
// initial events.
func (s *realisticSource) feed(w *informerBenchWatch) {
	defer s.feeders.Done()
	var buf []byte
	for i := 0; i < s.gen.N(); i++ {
		if i%s.sampleEvery == 0 {
			s.peak.sample()
		}
		buf = s.gen.AppendPod(buf[:0], i, true)
		pod, err := realisticpods.DecodePod(buf)
		if err != nil {
			panic(fmt.Sprintf("realistic pod %d: %v", i, err))
		}
		if !s.send(w, watch.Event{Type: watch.Added, Object: pod}) {
			return
		}
	}
	s.peak.sample()
	end := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		ResourceVersion: s.gen.ListResourceVersion(),
		Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
	}}
	s.send(w, watch.Event{Type: watch.Bookmark, Object: end})
}

// send delivers ev unless the watch or the source stopped first.
func (s *realisticSource) send(w *informerBenchWatch, ev watch.Event) bool {
	select {
	case w.ch <- ev:
		return true
	case <-w.stopped:
		return false
	case <-s.stop:
		return false
	}
}

// shutdown stops streaming and waits for the feeders.
func (s *realisticSource) shutdown() {
	close(s.stop)
	s.feeders.Wait()
}

// realisticListOnly hides WatchList support: the informer lists in pages.
type realisticListOnly struct{ *realisticSource }

func (realisticListOnly) IsWatchListSemanticsUnSupported() bool { return true }
