package synctrack

import (
	"sync"
	"testing"
)

// step is one call on a tracker followed by the expected sync state.
type step struct {
	call       string // "start", "finished" or "upstream"; key for async trackers
	key        string
	wantSynced bool
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestSingleFileTrackerBecomesSyncedOnlyWhenUpstreamSyncedAndNothingInFlight(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"empty initial list syncs at upstream", []step{{call: "upstream", wantSynced: true}}},
		{"items finished before upstream sync at upstream", []step{
			{call: "start"}, {call: "finished"}, {call: "upstream", wantSynced: true},
		}},
		{"pending item delays sync until finished", []step{
			{call: "start"}, {call: "start"}, {call: "upstream"},
			{call: "finished"}, {call: "finished", wantSynced: true},
		}},
		{"synced stays synced after later starts", []step{
			{call: "upstream", wantSynced: true}, {call: "start", wantSynced: true},
			{call: "start", wantSynced: true}, {call: "finished", wantSynced: true},
		}},
		{"repeated upstream is harmless", []step{
			{call: "start"}, {call: "upstream"}, {call: "upstream"}, {call: "finished", wantSynced: true},
			{call: "upstream", wantSynced: true},
		}},
		{"start alone never syncs even at zero", []step{
			{call: "start"}, {call: "upstream"}, {call: "start"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewSingleFileTracker("tracker")
			done := tr.Done()
			for i, s := range tc.steps {
				switch s.call {
				case "start":
					tr.Start()
				case "finished":
					tr.Finished()
				case "upstream":
					tr.UpstreamHasSynced()
				}
				if got := tr.HasSynced(); got != s.wantSynced {
					t.Fatalf("step %d (%s): HasSynced = %v, want %v", i, s.call, got, s.wantSynced)
				}
				if got := isClosed(done); got != s.wantSynced {
					t.Fatalf("step %d (%s): Done closed = %v, want %v", i, s.call, got, s.wantSynced)
				}
			}
			if tr.Done() != done {
				t.Fatal("Done returned a different channel on a later call")
			}
		})
	}
}

func TestSingleFileTrackerNameIsTheConstructorArgument(t *testing.T) {
	for _, name := range []string{"", "pods", "ns/handler-1"} {
		if got := NewSingleFileTracker(name).Name(); got != name {
			t.Errorf("Name() = %q, want %q", got, name)
		}
	}
}

func TestSingleFileTrackerFinishedWithoutStartPanicsAndKeepsTheNegativeCount(t *testing.T) {
	tr := NewSingleFileTracker("t")
	func() {
		defer func() {
			r := recover()
			if r != negativeCounterPanic {
				t.Fatalf("recovered %#v, want %q", r, negativeCounterPanic)
			}
		}()
		tr.Finished()
	}()
	// The counter is now -1: upstream sync does not mark synced, and one
	// Start brings it to zero without syncing either.
	tr.UpstreamHasSynced()
	tr.Start()
	if tr.HasSynced() {
		t.Fatal("synced although the counter went negative")
	}
	// A matched Start/Finished pair ends on zero and syncs.
	tr.Start()
	tr.Finished()
	if !tr.HasSynced() {
		t.Fatal("not synced after the counter returned to zero in Finished")
	}
}

func TestSingleFileTrackerFinishedAfterSyncPanicsButStaysSynced(t *testing.T) {
	tr := NewSingleFileTracker("t")
	tr.UpstreamHasSynced()
	defer func() {
		if recover() != negativeCounterPanic {
			t.Fatal("expected the negative counter panic")
		}
		if !tr.HasSynced() {
			t.Fatal("tracker stopped being synced")
		}
	}()
	tr.Finished()
}

func TestSingleFileTrackerConcurrentFinishAndUpstreamCloseDoneExactlyOnce(t *testing.T) {
	for round := 0; round < 200; round++ {
		tr := NewSingleFileTracker("race")
		const items = 8
		for i := 0; i < items; i++ {
			tr.Start()
		}
		var wg sync.WaitGroup
		for i := 0; i < items; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); tr.Finished() }()
		}
		wg.Add(1)
		go func() { defer wg.Done(); tr.UpstreamHasSynced() }()
		wg.Wait()
		<-tr.Done()
		if !tr.HasSynced() {
			t.Fatalf("round %d: not synced", round)
		}
	}
}
