package cache

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// mutationDetectorEnv names the environment variable that turns the cache
// mutation detector on (any true value of strconv.ParseBool). It is read
// once, when the package is initialised.
const mutationDetectorEnv = "KUBE_CACHE_MUTATION_DETECTOR"

// mutationDetectionEnabled is the value of mutationDetectorEnv at start-up.
var mutationDetectionEnabled = readMutationDetectionEnv()

// Timing of the enabled detector: objects are compared every
// mutationCheckPeriod and kept for between mutationRetention and twice that.
const (
	mutationCheckPeriod = time.Second
	mutationRetention   = 2 * time.Minute
)

// readMutationDetectionEnv parses mutationDetectorEnv; unset or invalid is
// false.
func readMutationDetectionEnv() bool {
	enabled, _ := strconv.ParseBool(os.Getenv(mutationDetectorEnv))
	return enabled
}

// MutationDetector watches objects handed out by a cache for a while and
// reports those that someone changed in place.
type MutationDetector interface {
	// AddObject starts watching obj: a copy is taken now and compared with
	// obj until the watch window has passed.
	AddObject(obj interface{})

	// Run compares periodically until stopCh closes; it blocks until then.
	Run(stopCh <-chan struct{})
}

// disabledMutationDetector is the detector used when detection is off.
type disabledMutationDetector struct{}

// Run returns immediately.
func (disabledMutationDetector) Run(stopCh <-chan struct{}) {}

// AddObject ignores obj.
func (disabledMutationDetector) AddObject(obj interface{}) {}

// NewCacheMutationDetector returns a detector for the cache called name.
// Unless KUBE_CACHE_MUTATION_DETECTOR was true when the program started, it
// is a no-op whose Run returns at once. Otherwise it logs a warning (the
// detector keeps copies of objects, so memory grows) and returns a detector
// that compares every watched object with the copy taken when it was added,
// every second, and panics with "cache <name> modified" after printing a
// side-by-side dump of each altered object.
func NewCacheMutationDetector(name string) MutationDetector {
	if mutationDetectionEnabled {
		klog.Warningln("Mutation detector is enabled, this will result in memory leakage.")
		return newCacheMutationDetector(name, clock.RealClock{}, nil)
	}
	return disabledMutationDetector{}
}

// watchedObject pairs an object handed to the cache with the copy taken
// when it was handed over.
type watchedObject struct {
	// live is the object as the cache holds it.
	live runtime.Object
	// snapshot is a deep copy of live taken by AddObject.
	snapshot runtime.Object
}

// cacheMutationDetector detects objects that were modified in place after
// being handed to a cache.
//
// AddObject appends to incoming under addMu only, so it never waits for a
// comparison. Each check (checkMu) moves incoming into current; every
// retention period current becomes previous and the old previous is
// dropped, so an object is watched for between one and two retention
// periods. checkMu guards current, previous and lastRotation.
type cacheMutationDetector struct {
	// name identifies the cache in reports.
	name string
	// period is the time between two checks.
	period time.Duration
	// retention is how long a generation of objects stays current.
	retention time.Duration
	// clock drives the check period and the rotation.
	clock clock.Clock
	// onMutation receives the failure message; nil means panic with it.
	onMutation func(message string)

	// addMu guards incoming.
	addMu sync.Mutex
	// incoming holds the objects added since the last check.
	incoming []watchedObject

	// checkMu serialises checks and guards the fields below.
	checkMu sync.Mutex
	// current holds the objects added since the last rotation.
	current []watchedObject
	// previous holds the objects of the generation before.
	previous []watchedObject
	// lastRotation is when current last became previous.
	lastRotation time.Time
}

// newCacheMutationDetector returns an enabled detector; onMutation nil means
// panic, as client-go does.
func newCacheMutationDetector(name string, c clock.Clock, onMutation func(string)) *cacheMutationDetector {
	return &cacheMutationDetector{
		name:       name,
		period:     mutationCheckPeriod,
		retention:  mutationRetention,
		clock:      c,
		onMutation: onMutation,
	}
}

// AddObject starts watching obj, a runtime.Object, by taking a deep copy of
// it now. Tombstones and other values are ignored.
func (d *cacheMutationDetector) AddObject(obj interface{}) {
	if _, tombstone := obj.(DeletedFinalStateUnknown); tombstone {
		return
	}
	live, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	snapshot := live.DeepCopyObject()
	d.addMu.Lock()
	d.incoming = append(d.incoming, watchedObject{live: live, snapshot: snapshot})
	d.addMu.Unlock()
}

// Run checks the watched objects at once (even when stopCh is already
// closed) and then every period until stopCh is closed. A detected mutation
// fails as described at NewCacheMutationDetector.
func (d *cacheMutationDetector) Run(stopCh <-chan struct{}) {
	for {
		d.check()
		select {
		case <-stopCh:
			return
		case <-d.clock.After(d.period):
		}
	}
}

// check compares every watched object with its snapshot by reflect.DeepEqual
// (so a Quantity rewritten from "1" to "1000m", a Time moved to another
// zone or a nil map made empty counts as altered), printing each altered
// one, and fails once if any was altered.
func (d *cacheMutationDetector) check() {
	d.checkMu.Lock()
	defer d.checkMu.Unlock()
	d.rotateLocked()
	d.addMu.Lock()
	d.current = append(d.current, d.incoming...)
	d.incoming = nil
	d.addMu.Unlock()

	altered := false
	index := 0
	for _, generation := range [][]watchedObject{d.previous, d.current} {
		for _, w := range generation {
			if !reflect.DeepEqual(w.live, w.snapshot) {
				altered = true
				fmt.Printf("CACHE %s[%d] ALTERED!\n%s\n", d.name, index, diff.ObjectGoPrintSideBySide(w.live, w.snapshot))
			}
			index++
		}
	}
	if altered {
		d.fail("cache " + d.name + " modified")
	}
}

// rotateLocked retires the current generation once it is older than the
// retention period. d.checkMu must be held.
func (d *cacheMutationDetector) rotateLocked() {
	now := d.clock.Now()
	if now.Sub(d.lastRotation) <= d.retention {
		return
	}
	d.previous = d.current
	d.current = nil
	d.lastRotation = now
}

// fail reports a detected mutation: through onMutation when set, else by
// panicking with message.
func (d *cacheMutationDetector) fail(message string) {
	if d.onMutation != nil {
		d.onMutation(message)
		return
	}
	panic(message)
}
