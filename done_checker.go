package cache

// DoneChecker is something that finishes once, such as an informer's initial
// sync, that can be waited for on a channel instead of by polling (compare
// InformerSynced), and that can say what it is.
//
// IsDone asks without blocking.
type DoneChecker interface {
	// Done returns a channel that is closed once the activity has finished.
	Done() <-chan struct{}

	// Name describes what is being waited for. It may be computed on every
	// call: keep it off hot paths.
	Name() string
}

// IsDone reports whether checker has finished. It never blocks.
func IsDone(checker DoneChecker) bool {
	done := checker.Done()
	select {
	case <-done:
	default:
		return false
	}
	return true
}
