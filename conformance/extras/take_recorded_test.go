package extras

import "sync"

// takeRecorded returns what *recorded holds and empties it, holding mu, the
// mutex that guards *recorded: how the recorders hand over what they saw
// since the last take.
func takeRecorded(mu *sync.Mutex, recorded *[]string) []string {
	mu.Lock()
	defer mu.Unlock()
	out := *recorded
	*recorded = nil
	return out
}
