// Package reflectortest plays scripted API-server conversations against a
// Reflector (kcache's or client-go's) and records what the Reflector did:
// every List and Watch call with its options, every store call, and what
// each ListAndWatch round returned. Scenarios are JSON files under
// testdata/reflector/. The package is test infrastructure shared by the
// Reflector unit tests and the differential conformance suite; it imports
// neither implementation.
package reflectortest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Scenario is one scripted conversation. Lists and Watches are consumed in
// order, one entry per List or Watch call; when a script runs out the call
// blocks (List) or returns a silent watch, and the round is stopped.
type Scenario struct {
	// Name identifies the scenario (defaults to the file name).
	Name string `json:"name"`
	// About says what the scenario pins down.
	About string `json:"about"`
	// Gates lists the WatchListClient settings ("on", "off") the scenario
	// was written for (Final applies to those); empty means both. Every
	// scenario is played with both settings.
	Gates []string `json:"gates"`
	// ExpectedType is "pod" (default), "none" (nil expected type) or
	// "unstructured" (an unstructured Pod of apiVersion v1).
	ExpectedType string `json:"expectedType"`
	// WatchListPageSize sets Reflector.WatchListPageSize when non-zero.
	WatchListPageSize int64 `json:"watchListPageSize"`
	// MaxInternalErrorRetryDuration sets the Reflector field (Go duration).
	MaxInternalErrorRetryDuration string `json:"maxInternalErrorRetryDuration"`
	// Transforming makes the store a TransformingStore whose transform
	// strips labels and annotations.
	Transforming bool `json:"transforming"`
	// ClientRefusesWatchList makes the ListerWatcher report that it does
	// not support WatchList semantics.
	ClientRefusesWatchList bool `json:"clientRefusesWatchList"`
	// ConsistencyDetector enables util/consistencydetector for the play.
	ConsistencyDetector bool `json:"consistencyDetector"`
	// Queue, when set, makes the store a real queue of the library under
	// test instead of the recording store: "deltafifo", "realfifo" or
	// "realfifoAtomic"; store calls are then not traced and the queue is
	// drained into Result.Queued at the end. The queue's transform is the
	// scenario transform.
	Queue string `json:"queue"`
	// Known is the content of the queue's KnownObjects store (not with
	// realfifoAtomic).
	Known []Object `json:"known"`
	// WatchListTransformsOnce marks a queue scenario streaming objects with
	// WatchList on, where kcache transforms each streamed object once and
	// client-go twice (a documented deliberate difference): there kcache's
	// transform count must be below client-go's rather than equal.
	WatchListTransformsOnce bool `json:"watchListTransformsOnce"`
	// ExtraListTransforms marks a scenario whose paged list fails on page 3
	// or later (an error, or an expired continue token): kcache transformed
	// the pages before the previous one, one page late, and client-go
	// transforms only lists that completed (a documented deliberate
	// difference). With WatchList off kcache's transform count must be
	// client-go's plus exactly this many.
	ExtraListTransforms int `json:"extraListTransforms"`
	// TransformFailOn makes the scenario transform refuse the object of
	// that name.
	TransformFailOn string `json:"transformFailOn"`
	// FailReplaces makes the first FailReplaces store Replace calls fail.
	FailReplaces int `json:"failReplaces"`
	// Rounds bounds the number of ListAndWatch rounds (default 8).
	Rounds int `json:"rounds"`
	// Lists answers the List calls in order.
	Lists []ListStep `json:"lists"`
	// Watches answers the Watch calls in order.
	Watches []WatchStep `json:"watches"`
	// Final, when set, is the store content ("ns/name@rv", sorted) that the
	// scenario must end with under every gate setting.
	Final []string `json:"final"`
	// FinalByGate overrides Final per gate setting.
	FinalByGate map[string][]string `json:"finalByGate"`
}

// ListStep is the answer to one List call: a page, or an error.
type ListStep struct {
	// ResourceVersion of the returned list.
	ResourceVersion string `json:"rv"`
	// Continue token of the returned list (more pages follow).
	Continue string `json:"continue"`
	// Items of the page.
	Items []Object `json:"items"`
	// Error, when set, is returned instead (see MakeError).
	Error string `json:"error"`
	// NotAList answers with a single Pod instead of a list.
	NotAList bool `json:"notAList"`
	// RawItems answers with a metav1.List whose items are RawExtensions:
	// "raw" (the JSON of each item, no object), "object" (the object), or
	// "" (a typed list).
	RawItems string `json:"rawItems"`
	// Table answers with a meta.k8s.io/v1 Table (an UnstructuredList of
	// kind Table whose items are the rows), as a client asking as=Table gets.
	Table bool `json:"table"`
	// TableAPIVersion is the Table's apiVersion (default meta.k8s.io/v1).
	TableAPIVersion string `json:"tableAPIVersion"`
}

// WatchStep is the answer to one Watch call: an error, or a stream.
type WatchStep struct {
	// Error, when set, is returned by the Watch call (see MakeError).
	Error string `json:"error"`
	// Events are delivered in order.
	Events []Event `json:"events"`
	// Advance, a Go duration, moves the fake clock forward after the last
	// event, before the stream closes.
	Advance string `json:"advance"`
	// OpenDelay, a Go duration, moves the fake clock forward inside the
	// Watch call, before it returns (a watch slow to open).
	OpenDelay string `json:"openDelay"`
}

// Event is one watch event.
type Event struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK, ERROR or anything else.
	Type string `json:"type"`
	Object
	// Error is the status of an ERROR event (see MakeError).
	Error string `json:"error"`
	// InitialEventsEnd annotates a BOOKMARK as the end of the initial events.
	InitialEventsEnd bool `json:"initialEventsEnd"`
}

// Object describes a Pod (or another kind) in a list or event.
type Object struct {
	// Name and Namespace of the object (Namespace defaults to "ns"; "-" means none).
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// ResourceVersion of the object.
	ResourceVersion string `json:"rv"`
	// Kind is "Pod" (default), "Node" (a wrong type), "Status" (an object
	// without object metadata), "Unstructured" (an unstructured object of
	// APIVersion/UKind), "nil" (no object) or "Value" (a runtime.Object
	// implemented on a value, without metadata). An ERROR event without
	// Error carries the object itself.
	Kind string `json:"kind"`
	// APIVersion and UKind of an unstructured object (default v1 / Pod).
	APIVersion string `json:"apiVersion"`
	UKind      string `json:"ukind"`
	// Labels of the object; a transforming store strips them.
	Labels map[string]string `json:"labels"`
}

// LoadScenarios reads every *.json file of dir, sorted by file name.
func LoadScenarios(dir string) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	out := make([]Scenario, 0, len(files))
	for _, file := range files {
		sc, err := loadScenario(file)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// loadScenario reads and validates one scenario file.
func loadScenario(file string) (Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Scenario{}, err
	}
	var sc Scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return Scenario{}, fmt.Errorf("%s: %w", file, err)
	}
	if sc.Name == "" {
		sc.Name = filepath.Base(file[:len(file)-len(".json")])
	}
	if err := sc.validate(); err != nil {
		return Scenario{}, fmt.Errorf("%s: %w", file, err)
	}
	return sc, nil
}

// validate checks durations, error names and gate names.
func (sc Scenario) validate() error {
	if _, err := sc.internalRetry(); err != nil {
		return err
	}
	switch sc.Queue {
	case "", "deltafifo", "realfifo", "realfifoAtomic":
	default:
		return fmt.Errorf("unknown queue %q", sc.Queue)
	}
	for _, g := range sc.Gates {
		if g != "on" && g != "off" {
			return fmt.Errorf("unknown gate setting %q", g)
		}
	}
	for _, l := range sc.Lists {
		if l.Error != "" && MakeError(l.Error) == nil {
			return fmt.Errorf("unknown error %q", l.Error)
		}
	}
	for _, w := range sc.Watches {
		if w.Error != "" && MakeError(w.Error) == nil {
			return fmt.Errorf("unknown error %q", w.Error)
		}
		for _, d := range []string{w.Advance, w.OpenDelay} {
			if d == "" {
				continue
			}
			if _, err := time.ParseDuration(d); err != nil {
				return err
			}
		}
		for _, e := range w.Events {
			if e.Type == "ERROR" && e.Error != "" && MakeError(e.Error) == nil {
				return fmt.Errorf("unknown error %q", e.Error)
			}
		}
	}
	return nil
}

// internalRetry parses MaxInternalErrorRetryDuration.
func (sc Scenario) internalRetry() (time.Duration, error) {
	if sc.MaxInternalErrorRetryDuration == "" {
		return 0, nil
	}
	return time.ParseDuration(sc.MaxInternalErrorRetryDuration)
}

// GateSettings returns the WatchListClient settings every scenario is
// played with: both. Gates only says which settings the scenario was written
// for (where Final applies).
func (sc Scenario) GateSettings() []bool {
	return []bool{true, false}
}

// writtenFor reports whether the scenario was written for the gate setting.
func (sc Scenario) writtenFor(watchList bool) bool {
	if len(sc.Gates) == 0 {
		return true
	}
	for _, g := range sc.Gates {
		if (g == "on") == watchList {
			return true
		}
	}
	return false
}

// ExpectedFinal returns the expected final store content under the gate
// setting, and whether the scenario states one.
func (sc Scenario) ExpectedFinal(watchList bool) ([]string, bool) {
	key := "off"
	if watchList {
		key = "on"
	}
	if f, ok := sc.FinalByGate[key]; ok {
		return f, true
	}
	if !sc.writtenFor(watchList) {
		return nil, false
	}
	return sc.Final, sc.Final != nil
}
