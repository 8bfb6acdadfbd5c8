package synctrack

// doneSignal holds the channel a tracker closes once it is synced. Trackers
// keep it behind a pointer made by their constructor, so that a tracker used
// without its constructor panics (nil pointer dereference) in HasSynced,
// Done and whenever it would become synced, as client-go's do, instead of
// silently never syncing.
type doneSignal struct {
	// ch is closed exactly once, when the tracker becomes synced.
	ch chan struct{}
}

// newDoneSignal returns an open signal.
func newDoneSignal() *doneSignal { return &doneSignal{ch: make(chan struct{})} }

// isClosed reports without blocking whether s was closed. It panics when s
// is nil.
func (s *doneSignal) isClosed() bool {
	select {
	case <-s.ch:
		return true
	default:
		return false
	}
}
