package conformance

import (
	"strings"
	"testing"
)

// pairSteps numbers and records the operations a differential store pair
// has run on client-go and kcache alike, for its failure messages. It has
// no lock: a pair drives both sides from the test goroutine only.
type pairSteps struct {
	step int      // operations run so far
	log  []string // their descriptions, oldest first
}

// next records desc as the next operation.
func (s *pairSteps) next(desc string) {
	s.step++
	s.log = append(s.log, desc)
}

// tail is the last n descriptions joined by "; ", led by "..." when older
// ones are left out.
func (s *pairSteps) tail(n int) string {
	if len(s.log) > n {
		return strings.Join(append([]string{"..."}, s.log[len(s.log)-n:]...), "; ")
	}
	return strings.Join(s.log, "; ")
}

// samePanics reports whether client-go's outcome a and kcache's b of the
// current step are equal, failing t with the last n operations if not.
func (s *pairSteps) samePanics(t *testing.T, n int, desc, a, b string) bool {
	t.Helper()
	if a != b {
		t.Errorf("step %d %s: client-go %q, kcache %q\nops: %s", s.step, desc, a, b, s.tail(n))
		return false
	}
	return true
}

// sameState reports whether client-go's rendered state ra and kcache's rb
// after the current step are equal, failing t with the last n operations
// and a line diff if not.
func (s *pairSteps) sameState(t *testing.T, n int, desc, ra, rb string) bool {
	t.Helper()
	if ra != rb {
		t.Errorf("step %d %s: state differs\nops: %s\n%s", s.step, desc, s.tail(n), layoutDiff(ra, rb))
		return false
	}
	return true
}
