package synctrack

import (
	"fmt"
	"sync"
	"testing"
)

func TestAsyncTrackerBecomesSyncedWhenUpstreamSyncedAndEveryStartedKeyFinished(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"empty initial list syncs at upstream", []step{{call: "upstream", wantSynced: true}}},
		{"keys finished before upstream sync at upstream", []step{
			{call: "start", key: "a"}, {call: "finished", key: "a"}, {call: "upstream", wantSynced: true},
		}},
		{"keys finish in any order", []step{
			{call: "start", key: "a"}, {call: "start", key: "b"}, {call: "upstream"},
			{call: "finished", key: "b"}, {call: "finished", key: "a", wantSynced: true},
		}},
		{"a key started twice is cleared by one finish", []step{
			{call: "start", key: "a"}, {call: "start", key: "a"}, {call: "upstream"},
			{call: "finished", key: "a", wantSynced: true},
		}},
		{"finishing an unknown key changes nothing", []step{
			{call: "start", key: "a"}, {call: "upstream"}, {call: "finished", key: "zzz"},
			{call: "finished", key: "a", wantSynced: true},
		}},
		{"finish before start does not cancel the later start", []step{
			{call: "finished", key: "a"}, {call: "start", key: "a"}, {call: "upstream"},
		}},
		{"synced stays synced after later starts", []step{
			{call: "upstream", wantSynced: true}, {call: "start", key: "late", wantSynced: true},
			{call: "finished", key: "late", wantSynced: true},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewAsyncTracker[string]("tracker")
			done := tr.Done()
			for i, s := range tc.steps {
				switch s.call {
				case "start":
					tr.Start(s.key)
				case "finished":
					tr.Finished(s.key)
				case "upstream":
					tr.UpstreamHasSynced()
				}
				if got := tr.HasSynced(); got != s.wantSynced {
					t.Fatalf("step %d (%s %q): HasSynced = %v, want %v", i, s.call, s.key, got, s.wantSynced)
				}
				if got := isClosed(done); got != s.wantSynced {
					t.Fatalf("step %d (%s %q): Done closed = %v, want %v", i, s.call, s.key, got, s.wantSynced)
				}
			}
		})
	}
}

func TestAsyncTrackerNameIsTheConstructorArgument(t *testing.T) {
	if got := NewAsyncTracker[int]("workers").Name(); got != "workers" {
		t.Fatalf("Name() = %q", got)
	}
}

func TestAsyncTrackerParallelWorkersSyncOnlyAfterTheLastKey(t *testing.T) {
	tr := NewAsyncTracker[string]("parallel")
	const keys = 64
	for i := 0; i < keys; i++ {
		tr.Start(fmt.Sprint(i))
	}
	tr.UpstreamHasSynced()
	var wg sync.WaitGroup
	for i := 0; i < keys-1; i++ {
		wg.Add(1)
		go func(k string) { defer wg.Done(); tr.Finished(k) }(fmt.Sprint(i))
	}
	wg.Wait()
	if tr.HasSynced() {
		t.Fatal("synced with one key still pending")
	}
	tr.Finished(fmt.Sprint(keys - 1))
	<-tr.Done()
}
