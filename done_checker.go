package cache

// DoneChecker, in contrast to InformerSynced, supports waiting for some
// activity to finish without polling and has a name that describes itself.
//
// To check for completion without blocking, use IsDone.
type DoneChecker interface {
	// Name returns a string describing the entity that is being waited for.
	//
	// Note that this name might be computed, so callers should only
	// get the name outside of a hot code path.
	Name() string

	// Done returns a channel that will be closed on completion
	// of the activity.
	Done() <-chan struct{}
}

// IsDone returns true if the activity is done, false otherwise. It never
// blocks.
func IsDone(checker DoneChecker) bool {
	select {
	case <-checker.Done():
		return true
	default:
		return false
	}
}
