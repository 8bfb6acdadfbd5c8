// Package faultproxy is an HTTP(S) reverse proxy on loopback that sits
// between informers and a kube-apiserver and injects the faults production
// informers meet: connections reset in the middle of a LIST page, of a
// WatchList stream (before or after its initial-events-end bookmark) or of a
// watch; requests and streams that stall for longer than the client's
// timeouts; 429 with Retry-After, 500, 503 and 504; bodies cut off in the
// middle of an object; and 410 Gone watch events.
//
// Every decision is drawn from a random source seeded with (Config.Seed,
// request index), so a client that makes the same sequence of requests meets
// the same faults at the same places, run after run. Every fault that takes
// effect is counted (Stats).
package faultproxy

import "fmt"

// Class is what kind of request the proxy saw; it decides which faults apply.
type Class int

const (
	// Other is any request that is not a GET (writes, discovery): never
	// faulted.
	Other Class = iota
	// List is a GET without watch=true: a LIST page (or a GET of one object).
	List
	// WatchList is a watch with sendInitialEvents=true: a streamed list.
	WatchList
	// Watch is a watch resuming from a resourceVersion.
	Watch
	numClasses
)

var classNames = [numClasses]string{"other", "list", "watchlist", "watch"}

func (c Class) String() string {
	if c < 0 || c >= numClasses {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// Fault is one kind of injected failure.
type Fault int

const (
	// None forwards the request untouched.
	None Fault = iota
	// ResetListPage resets the connection after part of a LIST body.
	ResetListPage
	// TruncateList ends a LIST response cleanly in the middle of its body (in
	// the middle of an object).
	TruncateList
	// ResetWatchListBeforeBookmark resets a WatchList stream before its
	// initial-events-end bookmark, after some of its initial events.
	ResetWatchListBeforeBookmark
	// ResetWatchListAfterBookmark resets a WatchList stream a few events after
	// its initial-events-end bookmark.
	ResetWatchListAfterBookmark
	// ResetWatch resets a watch after some events.
	ResetWatch
	// TruncateStream ends a watch or WatchList stream cleanly in the middle
	// of an event.
	TruncateStream
	// GoneWatch replaces an event of a watch by an ERROR event carrying a
	// Status with code 410 (Expired), then ends the stream, as the API server
	// does when the watch cache has moved past the client.
	GoneWatch
	// StallStream stops forwarding a watch for Config.StallFor after some
	// events, then goes on.
	StallStream
	// Stall holds a request for Config.StallFor before forwarding it (or
	// until the client gives up).
	Stall
	// TooManyRequests answers 429 with a Retry-After header.
	TooManyRequests
	// InternalError answers 500.
	InternalError
	// ServiceUnavailable answers 503 (without Retry-After, as a load balancer
	// shedding load does).
	ServiceUnavailable
	// GatewayTimeout answers 504.
	GatewayTimeout
	numFaults
)

var faultNames = [numFaults]string{
	"none", "reset-list-page", "truncate-list", "reset-watchlist-before-bookmark",
	"reset-watchlist-after-bookmark", "reset-watch", "truncate-stream", "gone-410-event",
	"stall-stream", "stall", "429-retry-after", "500", "503", "504",
}

func (f Fault) String() string {
	if f < 0 || f >= numFaults {
		return fmt.Sprintf("Fault(%d)", int(f))
	}
	return faultNames[f]
}

// Faults lists every fault kind (None excluded), in the order the proxy
// considers them.
func Faults() []Fault {
	out := make([]Fault, 0, numFaults-1)
	for f := None + 1; f < numFaults; f++ {
		out = append(out, f)
	}
	return out
}

// AppliesTo reports whether f can be injected into a request of class c.
func (f Fault) AppliesTo(c Class) bool {
	switch f {
	case ResetListPage, TruncateList:
		return c == List
	case ResetWatchListBeforeBookmark, ResetWatchListAfterBookmark:
		return c == WatchList
	case ResetWatch, GoneWatch, StallStream:
		return c == Watch
	case TruncateStream:
		return c == Watch || c == WatchList
	case Stall, TooManyRequests, InternalError, ServiceUnavailable, GatewayTimeout:
		return c == List || c == Watch || c == WatchList
	}
	return false
}

// Rates map each fault to the probability that a request it applies to gets
// it. For each class the rates of the applicable faults must sum to at most 1.
type Rates map[Fault]float64

// validate checks that no class's rates sum past 1 and that none is
// negative.
func (r Rates) validate() error {
	for c := List; c < numClasses; c++ {
		sum := 0.0
		for f, rate := range r {
			if rate < 0 || f <= None || f >= numFaults {
				return fmt.Errorf("faultproxy: bad rate %v for %v", rate, f)
			}
			if f.AppliesTo(c) {
				sum += rate
			}
		}
		if sum > 1 {
			return fmt.Errorf("faultproxy: rates for %v requests sum to %.3f > 1", c, sum)
		}
	}
	return nil
}
