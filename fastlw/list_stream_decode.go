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
// The reader never waits for a worker: the body arrives as fast as on the
// plain path, so the request's deadlines (the caller's context, the
// client's Timeout) cover its transfer only, as on client-go, not the
// decoding. A run that finds Workers runs already waiting is deferred: its
// bytes are let go, and it is cut again from the whole body and decoded
// once Request.Do returned (decodeDeferred: right away for a page
// requested ahead, else by assemble).
//
// Memory: at most Workers runs wait for a worker, so about MaxInFlight
// items are in flight; a deferred run keeps only its place in the body;
// the decoded runs are held until assemble.
//
// feed, end, stop and discard are serialized by mu, and called by the
// goroutine that reads the body (the first three) and the one that takes
// the page (discard, decodeDeferred, assemble, after the read). The workers read only a
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
	like      runtime.Object
	itemsType reflect.Type // the type of like's Items
	head      []byte
	run       *decodedRun   // the run being filled, nil for none; guarded by mu
	runs      []*decodedRun // the runs sent, in page order; guarded by mu
	// queue takes runs to the workers; nil until the first run, closed
	// (once: closed) by end, stop or discard. Guarded by mu.
	queue  chan *decodedRun
	closed bool
	whole  bool // end found the page whole; guarded by mu
	// abandoned tells the workers to skip the runs left.
	abandoned atomic.Bool
	wg        sync.WaitGroup // the workers
}

// decodedRun is one run of a page's items: data, count, from, to and
// deferred are set by the reader before it is sent, items and ok by the
// worker that decodes it (for a deferred run, in assemble).
type decodedRun struct {
	data  []byte
	count int
	// from and to delimit the run's items in the page: the first one's
	// start, the last one's end.
	from, to int
	deferred bool          // no worker took it: data is nil until assemble
	items    reflect.Value // the run's decoded items
	ok       bool          // decoded to a list of like's type holding count items
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
	s.itemsType = reflect.ValueOf(like).Elem().FieldByName("Items").Type()
	s.head = jsonChunkHead(s.cut.kind, s.cut.apiVersion)
	return true
}

// addItemLocked adds an item's bytes, at offset at of the page, to the
// run being filled, and sends the run once it is full.
//
// NB: a run that starts while Workers runs wait is deferred at once, so
// that its bytes are never copied: when the page arrives faster than the
// workers decode, most of it is decoded from the whole body anyway.
func (s *streamedPage) addItemLocked(item []byte, at int) bool {
	switch {
	case s.run == nil && s.queue != nil && len(s.queue) == cap(s.queue):
		s.run = &decodedRun{from: at, deferred: true}
	case s.run == nil:
		var buf []byte
		if s.reuse {
			buf = takeChunkBuffer()
		}
		s.run = &decodedRun{data: append(buf, s.head...), from: at}
	case !s.run.deferred:
		s.run.data = append(s.run.data, ',')
	}
	if !s.run.deferred {
		s.run.data = append(s.run.data, item...)
	}
	s.run.to = at + len(item)
	s.run.count++
	if s.run.count == s.runSize {
		s.sendLocked()
	}
	return true
}

// sendLocked closes the run being filled and hands it to the workers,
// starting them with the first run; it never blocks: a run that finds
// Workers runs waiting is deferred (its bytes let go).
func (s *streamedPage) sendLocked() {
	run := s.run
	s.run = nil
	if run.deferred {
		s.runs = append(s.runs, run)
		return
	}
	run.data = append(run.data, "]}"...)
	if s.queue == nil {
		s.queue = make(chan *decodedRun, s.workers)
		for range s.workers {
			s.wg.Go(s.work)
		}
	}
	s.runs = append(s.runs, run)
	select {
	case s.queue <- run:
	default:
		run.deferred = true
		s.letGo(run)
	}
}

// work decodes the runs sent until the queue closes.
func (s *streamedPage) work() {
	for run := range s.queue {
		s.decodeRun(run)
	}
}

// decodeRun decodes run into its items, unless the page is abandoned
// (abandoning it when the run fails), and lets its bytes go.
func (s *streamedPage) decodeRun(run *decodedRun) {
	if !s.abandoned.Load() {
		into := reflect.MakeSlice(s.itemsType, run.count, run.count)
		if run.ok = decodeChunk(s.decoder, run.data, into, s.like, s.reuse); run.ok {
			s.transform.items(into)
			run.items = into
		} else {
			s.abandoned.Store(true)
		}
	}
	s.letGo(run)
}

// letGo gives run's bytes back.
func (s *streamedPage) letGo(run *decodedRun) {
	if s.reuse {
		giveChunkBuffer(run.data)
	}
	run.data = nil
}

// decodeDeferred decodes the deferred runs, each cut again from body (the
// page, whole, as Request.Do read it), on up to Workers goroutines, once
// the workers are done (it waits for them); a run still deferred when stop
// is closed (nil: never) is left for a later call. It reports false when
// a run failed to decode (before or now) or a deferred run does not lie
// within body. Called by the goroutine that takes the page.
func (s *streamedPage) decodeDeferred(stop <-chan struct{}, body []byte) bool {
	s.wg.Wait()
	var deferred []*decodedRun
	for _, run := range s.runs {
		switch {
		case run.deferred && run.to <= len(body):
			deferred = append(deferred, run)
		case run.deferred || !run.ok:
			return false
		}
	}
	next := make(chan *decodedRun, len(deferred))
	for _, run := range deferred {
		next <- run
	}
	close(next)
	var wg sync.WaitGroup
	for range min(s.workers, len(deferred)) {
		wg.Go(func() {
			for run := range next {
				select {
				case <-stop:
					continue
				default:
				}
				var buf []byte
				if s.reuse {
					buf = takeChunkBuffer()
				}
				run.data = appendJSONChunk(buf, s.head, body[run.from:run.to])
				run.deferred = false
				s.decodeRun(run)
			}
		})
	}
	wg.Wait()
	return !s.abandoned.Load()
}

// assemble sets list's items to the page's, in page order, once the page
// ended whole (body is the page as Request.Do read it) and the workers are
// done (it waits for them), after the deferred runs decoded; false,
// leaving list as it was, when a run failed to decode or list is not of
// the type the runs decoded to.
func (s *streamedPage) assemble(list runtime.Object, body []byte) bool {
	s.wg.Wait()
	if reflect.TypeOf(list) != reflect.TypeOf(s.like) {
		return false
	}
	items, ok := itemsField(list)
	if !ok || !s.decodeDeferred(nil, body) {
		return false
	}
	n := 0
	for _, run := range s.runs {
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
