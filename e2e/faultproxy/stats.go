package faultproxy

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Stats are a proxy's counters.
type Stats struct {
	// Requests counts the requests that arrived, per class.
	Requests map[Class]int64
	// Injected counts the faults that took effect, per kind. A planned
	// mid-stream fault whose stream ended before its position is not
	// counted.
	Injected map[Fault]int64
	// Failed counts requests that ended in a failure: an injected fault,
	// or an error status from upstream.
	Failed int64
	// BackoffWaits counts the times the client came back at least
	// MinBackoff after a failed request ended; BackoffTotal sums those gaps.
	BackoffWaits int64
	// BackoffTotal is the total time of the backoff waits.
	BackoffTotal time.Duration
	// Log lists the injections in the order they took effect.
	Log []Injection
	// Sequence has one letter per request, in arrival order: l (list), s
	// (WatchList stream), w (watch), o (other). It shows where two clients'
	// requests diverge; Log says which of them met faults.
	Sequence string
	// Trace has one line per request when Config.Trace is set: index,
	// class, the list options that tell requests apart, the status and
	// when it arrived (since the proxy's first request).
	Trace []string
}

// Injection is one fault that took effect.
type Injection struct {
	// Index is the request's index (0 for the proxy's first request).
	Index uint64
	// Class is the request's class.
	Class Class
	// Fault is what was injected.
	Fault Fault
	// At is the planned position (events let through, or percent of a
	// LIST body).
	At int
}

func (i Injection) String() string {
	return fmt.Sprintf("#%d %s %s@%d", i.Index, i.Class, i.Fault, i.At)
}

// classLetters abbreviate the classes in Stats.Sequence.
var classLetters = [numClasses]string{"o", "l", "s", "w"}

func newStats() Stats {
	return Stats{Requests: map[Class]int64{}, Injected: map[Fault]int64{}}
}

// TotalRequests is the number of requests of every class.
func (s Stats) TotalRequests() int64 {
	var n int64
	for _, v := range s.Requests {
		n += v
	}
	return n
}

// TotalInjected is the number of faults that took effect.
func (s Stats) TotalInjected() int64 {
	var n int64
	for _, v := range s.Injected {
		n += v
	}
	return n
}

// Add sums o into s (to total several proxies).
func (s *Stats) Add(o Stats) {
	if s.Requests == nil {
		*s = newStats()
	}
	for k, v := range o.Requests {
		s.Requests[k] += v
	}
	for k, v := range o.Injected {
		s.Injected[k] += v
	}
	s.Failed += o.Failed
	s.BackoffWaits += o.BackoffWaits
	s.BackoffTotal += o.BackoffTotal
	s.Log = append(s.Log, o.Log...)
	s.Sequence += o.Sequence
	s.Trace = append(s.Trace, o.Trace...)
}

// Stats returns a copy of the counters so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := newStats()
	out.Add(p.stats)
	return out
}

// arrived counts a request and, when the one before it failed, measures the
// client's wait since.
func (p *Proxy) arrived(c Class) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Requests[c]++
	p.stats.Sequence += classLetters[c]
	if !p.lastFailure.IsZero() {
		if gap := now.Sub(p.lastFailure); gap >= p.cfg.MinBackoff {
			p.stats.BackoffWaits++
			p.stats.BackoffTotal += gap
		}
		p.lastFailure = time.Time{}
	}
}

// trace records one request's line when tracing is on.
func (p *Proxy) trace(index uint64, r *http.Request, status int) {
	if !p.cfg.Trace {
		return
	}
	q := r.URL.Query()
	var opts []string
	for _, k := range []string{"resourceVersion", "resourceVersionMatch", "limit", "sendInitialEvents"} {
		if v := q.Get(k); v != "" {
			opts = append(opts, k+"="+v)
		}
	}
	if q.Get("continue") != "" {
		opts = append(opts, "continue")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first.IsZero() {
		p.first = time.Now()
	}
	p.stats.Trace = append(p.stats.Trace, fmt.Sprintf("#%d +%s %s %s -> %d",
		index, time.Since(p.first).Round(10*time.Millisecond), classify(r), strings.Join(opts, "&"), status))
}

// inject counts pl's fault as taken effect.
func (p *Proxy) inject(pl plan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Injected[pl.fault]++
	p.stats.Log = append(p.stats.Log, Injection{Index: pl.index, Class: pl.class, Fault: pl.fault, At: pl.at})
}

// ended records how a request ended.
func (p *Proxy) ended(failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if failed {
		p.stats.Failed++
		p.lastFailure = time.Now()
	}
}
