package synctrack

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// counter returns an Evaluate that yields 1, 2, 3... and its call counter.
func counter() (func() (int, error), *atomic.Int32) {
	var calls atomic.Int32
	return func() (int, error) { return int(calls.Add(1)), nil }, &calls
}

func TestLazyEvaluatesOncePerNotify(t *testing.T) {
	cases := []struct {
		name      string
		ops       []string // "get" or "notify"
		wantGets  []int
		wantCalls int32
	}{
		{"first get evaluates", []string{"get"}, []int{1}, 1},
		{"repeated gets reuse the value", []string{"get", "get", "get"}, []int{1, 1, 1}, 1},
		{"notify makes the next get evaluate", []string{"get", "notify", "get", "get"}, []int{1, 2, 2}, 2},
		{"several notifies cost one evaluation", []string{"get", "notify", "notify", "get"}, []int{1, 2}, 2},
		{"notify before any get is harmless", []string{"notify", "get"}, []int{1}, 1},
		{"no get no evaluation", []string{"notify"}, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eval, calls := counter()
			z := &Lazy[int]{Evaluate: eval}
			var got []int
			for _, op := range tc.ops {
				if op == "notify" {
					z.Notify()
					continue
				}
				v, err := z.Get()
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				got = append(got, v)
			}
			if len(got) != len(tc.wantGets) {
				t.Fatalf("gets = %v, want %v", got, tc.wantGets)
			}
			for i := range got {
				if got[i] != tc.wantGets[i] {
					t.Fatalf("gets = %v, want %v", got, tc.wantGets)
				}
			}
			if c := calls.Load(); c != tc.wantCalls {
				t.Fatalf("Evaluate called %d times, want %d", c, tc.wantCalls)
			}
		})
	}
}

func TestLazyDoesNotCacheErrorsButReturnsTheValueGivenWithThem(t *testing.T) {
	var calls atomic.Int32
	z := &Lazy[string]{Evaluate: func() (string, error) {
		if calls.Add(1) <= 2 {
			return "partial", errors.New("boom")
		}
		return "ok", nil
	}}
	for i, want := range []struct {
		val string
		err bool
	}{{"partial", true}, {"partial", true}, {"ok", false}, {"ok", false}} {
		v, err := z.Get()
		if (err != nil) != want.err || v != want.val {
			t.Fatalf("Get #%d = (%q, %v), want (%q, err=%v)", i, v, err, want.val, want.err)
		}
	}
	if calls.Load() != 3 {
		t.Fatalf("Evaluate called %d times, want 3", calls.Load())
	}
}

// stalledLazy is a Lazy whose first Evaluate call signals entered, waits
// for release and then returns (0, firstErr) if firstErr is set, else 1;
// later calls return their call number at once.
type stalledLazy struct {
	lazy    *Lazy[int]
	entered chan struct{}
	release chan struct{}
	calls   atomic.Int32
}

func newStalledLazy(firstErr error) *stalledLazy {
	s := &stalledLazy{entered: make(chan struct{}), release: make(chan struct{})}
	s.lazy = &Lazy[int]{Evaluate: func() (int, error) {
		n := s.calls.Add(1)
		if n != 1 {
			return int(n), nil
		}
		close(s.entered)
		<-s.release
		if firstErr != nil {
			return 0, firstErr
		}
		return 1, nil
	}}
	return s
}

func TestLazyConcurrentGetsShareOneEvaluation(t *testing.T) {
	s := newStalledLazy(nil)
	const getters = 8
	results := make([]int, getters)
	var wg sync.WaitGroup
	for i := 0; i < getters; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); results[i], _ = s.lazy.Get() }(i)
	}
	<-s.entered
	close(s.release)
	wg.Wait()
	for i, r := range results {
		if r != 1 {
			t.Fatalf("getter %d got %d, want 1", i, r)
		}
	}
	if s.calls.Load() != 1 {
		t.Fatalf("Evaluate called %d times, want 1", s.calls.Load())
	}
}

func TestLazyNotifyDuringEvaluationStartsANewerRoundThatTheOldOneCannotOverwrite(t *testing.T) {
	s := newStalledLazy(nil)
	z := s.lazy
	first := make(chan int)
	go func() { v, _ := z.Get(); first <- v }()
	<-s.entered
	z.Notify()
	if v, _ := z.Get(); v != 2 {
		t.Fatalf("Get after Notify = %d, want 2 (a fresh evaluation)", v)
	}
	close(s.release)
	if v := <-first; v != 1 {
		t.Fatalf("stale round returned %d to its caller, want 1", v)
	}
	if v, _ := z.Get(); v != 2 {
		t.Fatalf("cached value = %d after the stale round finished, want 2", v)
	}
	if s.calls.Load() != 2 {
		t.Fatalf("Evaluate called %d times, want 2", s.calls.Load())
	}
}

func TestLazyGetWaitingOnAFailedRoundRetriesItself(t *testing.T) {
	s := newStalledLazy(errors.New("first round fails"))
	owner := make(chan error)
	go func() { _, err := s.lazy.Get(); owner <- err }()
	<-s.entered
	waiter := make(chan int)
	go func() { v, _ := s.lazy.Get(); waiter <- v }()
	close(s.release)
	if err := <-owner; err == nil {
		t.Fatal("the Get that ran the failing Evaluate got no error")
	}
	if v := <-waiter; v != 2 {
		t.Fatalf("the other Get returned %d, want 2 from a retried evaluation", v)
	}
}

func TestLazyPanickingEvaluateIsRetriedByTheNextGet(t *testing.T) {
	var calls atomic.Int32
	z := &Lazy[int]{Evaluate: func() (int, error) {
		if calls.Add(1) == 1 {
			panic("evaluate exploded")
		}
		return 7, nil
	}}
	func() {
		defer func() {
			if r := recover(); r != "evaluate exploded" {
				t.Fatalf("recovered %v", r)
			}
		}()
		_, _ = z.Get()
	}()
	if v, err := z.Get(); v != 7 || err != nil {
		t.Fatalf("Get after panic = (%d, %v), want (7, nil)", v, err)
	}
}
