package fastlw

import (
	"reflect"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// streamedPage decodes the items of a JSON list page on workers while the
// page arrives: its jsonListCut gathers the items into runs (a list of the
// page's kind holding runSize consecutive items, as decodeItems' chunks),
// which up to Workers goroutines decode, each into its own slice, while the
// reader goes on. Once the page has arrived whole, assemble puts the runs'
// items into the list decoded from the skeleton. A page the cut gives up,
// or whose body fails, is discarded, and its list is the whole-body path's
// (decodeWhole).
//
// Memory: at most Workers runs wait for a worker (the reader blocks, and
// with it the body's transfer, while they do), so about MaxInFlight items
// are in flight; the decoded runs are held until assemble.
//
// feed, end, stop and discard are serialized by mu, and called by the
// goroutine that reads the body (the first three) and the one that takes
// the page (discard, assemble, after the read). The workers read only a
// run and the immutable fields, and write only their run.
type streamedPage struct {
	decoder   runtime.Decoder // decodes a run; immutable
	reuse     bool            // decoder copiesInput: run buffers are reused
	transform earlyTransform  // applied to each decoded run
	workers   int             // the most runs decoding at once
	runSize   int             // items per run

	mu  sync.Mutex
	cut jsonListCut // guarded by mu
	// like is the page's list as the skeleton decodes before the items
	// (the list type runs decode to); head opens each run. Both are set
	// before the first run is sent, never after.
	like runtime.Object
	head []byte
	run  *decodedRun   // the run being filled, nil for none; guarded by mu
	runs []*decodedRun // the runs sent, in page order; guarded by mu
	// queue takes runs to the workers; nil until the first run, closed
	// (once: closed) by end, stop or discard. Guarded by mu.
	queue  chan *decodedRun
	closed bool
	whole  bool // end found the page whole; guarded by mu
	// abandoned tells the workers to skip the runs left.
	abandoned atomic.Bool
	wg        sync.WaitGroup // the workers
}

// decodedRun is one run of a page's items: data and count are set by the
// reader before it is sent, items and ok by the worker that decodes it.
type decodedRun struct {
	data  []byte
	count int
	items reflect.Value // the run's decoded items
	ok    bool          // decoded to a list of like's type holding count items
}

// newStreamedPage returns a streamedPage decoding with decoder.
func newStreamedPage(decoder runtime.Decoder, workers, maxInFlight int, transform earlyTransform) *streamedPage {
	s := &streamedPage{decoder: decoder, reuse: copiesInput(decoder), transform: transform,
		workers: workers, runSize: max(1, maxInFlight/(2*workers))}
	s.cut.beforeItems = s.beforeItemsLocked
	s.cut.items = s.addItemLocked
	return s
}

// feed takes the page's next bytes.
func (s *streamedPage) feed(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.cut.feed(p)
	}
}

// end takes the end of the page's body: the last run is sent when the
// page was cut whole, and the page is discarded when it was not.
func (s *streamedPage) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.whole = s.cut.end(); s.whole {
		if s.run != nil {
			s.sendLocked()
		}
	} else {
		s.abandoned.Store(true)
	}
	s.closeQueueLocked()
}

// stop takes a body that failed or was closed before its end: unless the
// page ended whole, it is discarded.
func (s *streamedPage) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.abandoned.Store(true)
		s.cut.fail()
		s.closeQueueLocked()
	}
}

// discard gives the page up, whatever it came to: the workers skip the
// runs left, and are waited for.
func (s *streamedPage) discard() {
	s.mu.Lock()
	s.abandoned.Store(true)
	s.whole = false
	s.cut.fail()
	s.closeQueueLocked()
	s.mu.Unlock()
	s.wg.Wait()
}

// skeleton returns the page without its items once it ended whole; false
// before, or when it did not.
func (s *streamedPage) skeleton() ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut.skeleton, s.whole
}

// closeQueueLocked ends the workers' queue, once. Called with mu held.
func (s *streamedPage) closeQueueLocked() {
	if s.closed {
		return
	}
	s.closed = true
	if s.queue != nil {
		close(s.queue)
	}
}

// beforeItemsLocked runs when the page's items open: it decodes the
// skeleton so far (with an empty items array) for the list type, and
// builds the runs' head; false, giving the cut up, when the page's kind or
// apiVersion has not come yet or that skeleton does not decode to a list.
func (s *streamedPage) beforeItemsLocked() bool {
	if s.cut.kind == nil || s.cut.apiVersion == nil {
		return false
	}
	partial := append(append([]byte(nil), s.cut.skeleton...), "[]}"...)
	like, err := runtime.Decode(s.decoder, partial)
	if err != nil {
		return false
	}
	if _, ok := itemsField(like); !ok {
		return false
	}
	s.like = like
	s.head = jsonChunkHead(s.cut.kind, s.cut.apiVersion)
	return true
}

// addItemLocked adds an item's bytes to the run being filled, and sends
// the run once it is full.
func (s *streamedPage) addItemLocked(item []byte) bool {
	if s.run == nil {
		var buf []byte
		if s.reuse {
			buf = takeChunkBuffer()
		}
		s.run = &decodedRun{data: append(buf, s.head...)}
	} else {
		s.run.data = append(s.run.data, ',')
	}
	s.run.data = append(s.run.data, item...)
	s.run.count++
	if s.run.count == s.runSize {
		s.sendLocked()
	}
	return true
}

// sendLocked closes the run being filled and hands it to the workers,
// starting them with the first run; it blocks while Workers runs wait.
func (s *streamedPage) sendLocked() {
	run := s.run
	s.run = nil
	run.data = append(run.data, "]}"...)
	if s.queue == nil {
		s.queue = make(chan *decodedRun, s.workers)
		for range s.workers {
			s.wg.Go(s.work)
		}
	}
	s.runs = append(s.runs, run)
	s.queue <- run
}

// work decodes the runs sent until the queue closes, skipping them once
// the page is abandoned.
func (s *streamedPage) work() {
	itemsType := reflect.ValueOf(s.like).Elem().FieldByName("Items").Type()
	for run := range s.queue {
		if !s.abandoned.Load() {
			into := reflect.MakeSlice(itemsType, run.count, run.count)
			if run.ok = decodeChunk(s.decoder, run.data, into, s.like, s.reuse); run.ok {
				s.transform.items(into)
				run.items = into
			} else {
				s.abandoned.Store(true)
			}
		}
		if s.reuse {
			giveChunkBuffer(run.data)
		}
		run.data = nil
	}
}

// assemble sets list's items to the page's, in page order, once the page
// ended whole and the workers are done (it waits for them); false, leaving
// list as it was, when a run failed to decode or list is not of the type
// the runs decoded to.
func (s *streamedPage) assemble(list runtime.Object) bool {
	s.wg.Wait()
	if reflect.TypeOf(list) != reflect.TypeOf(s.like) {
		return false
	}
	items, ok := itemsField(list)
	if !ok {
		return false
	}
	n := 0
	for _, run := range s.runs {
		if !run.ok {
			return false
		}
		n += run.count
	}
	all := reflect.MakeSlice(items.Type(), n, n)
	at := 0
	for _, run := range s.runs {
		at += reflect.Copy(all.Slice(at, at+run.count), run.items)
		run.items = reflect.Value{}
	}
	items.Set(all)
	return true
}
