package conformance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// storeRead is one read made after an op and its printed answer.
type storeRead struct {
	// call names the read and its arguments.
	call string
	// answer is the printed, order-independent answer.
	answer string
}

// storeSide is one implementation under comparison, wrapped so that it
// takes and returns neutral values. apply and reads never share state
// between sides.
type storeSide interface {
	// apply performs op and prints its outcome (errors, panics).
	apply(op storeOp) string
	// reads performs every read of p and prints the answers; call labels
	// are filled in only when labelled (they cost time and matter only
	// for failure messages).
	reads(p storeProbe, labelled bool) []storeRead
	// transformCalls counts the transformer calls so far.
	transformCalls() int
}

// storeSortedView prints a list as a sorted set, keeping nil apart from
// empty: "nil", "[]" or "[a b c]".
func storeSortedView(items []string, isNil bool) string {
	if isNil {
		return "nil"
	}
	sorted := append([]string(nil), items...)
	sort.Strings(sorted)
	return "[" + strings.Join(sorted, " ") + "]"
}

// storeObjectsView prints a list of neutral objects as a sorted set.
func storeObjectsView(w *storeWorld, objs []any, isNil bool) string {
	names := make([]string, len(objs))
	for i, o := range objs {
		names[i] = w.describe(o)
	}
	return storeSortedView(names, isNil)
}

// storeKeysView prints a key list as a sorted set; keys are separated by
// "|" (no key of the world contains one) so empty keys stay visible.
func storeKeysView(keys []string) string {
	if keys == nil {
		return "nil"
	}
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	return "[" + strings.Join(sorted, "|") + "]"
}

// storeOrderedKeysView prints a key list in its own order, for reads whose
// order client-go fixes (IndexKeys sorts); keys are separated by "|" as in
// storeKeysView.
func storeOrderedKeysView(keys []string) string {
	if keys == nil {
		return "nil"
	}
	return "[" + strings.Join(keys, "|") + "]"
}

// storeLabel formats a read's call label, or returns "" when not labelled.
func storeLabel(labelled bool, format string, args ...any) string {
	if !labelled {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// storeExists prints the exists result of a Get.
func storeExists(exists bool) string {
	if exists {
		return " exists=true"
	}
	return " exists=false"
}

// storeCatch runs fn and prints a panic as an outcome instead of crashing.
func storeCatch(fn func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic(%T: %v)", r, r)
		}
	}()
	return fn()
}

// storePodsResource is the resource the stores' informer identity names.
var storePodsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// storeMetricLog collects metric events of one side between two reads.
// Used by one goroutine only.
type storeMetricLog struct {
	// events are the events since the last drain, in order.
	events []string
}

// record appends one event.
func (l *storeMetricLog) record(event string) {
	l.events = append(l.events, event)
}

// drain prints and forgets the events recorded since the last drain.
func (l *storeMetricLog) drain() string {
	out := strings.Join(l.events, "; ")
	l.events = l.events[:0]
	return out
}

// gauge records the creation of a metric and returns it.
func (l *storeMetricLog) gauge(kind, informer, resource string) storeMetric {
	l.record("new " + kind + " for " + informer + " " + resource)
	return storeMetric{kind: kind, log: l}
}

// storeMetric is a gauge or histogram that records every value it gets.
type storeMetric struct {
	// kind names the metric in events.
	kind string
	// log receives the events.
	log *storeMetricLog
}

// Set records a gauge value.
func (m storeMetric) Set(v float64) {
	m.log.record(m.kind + ".Set(" + strconv.FormatFloat(v, 'g', -1, 64) + ")")
}

// Observe records a histogram observation.
func (m storeMetric) Observe(v float64) {
	m.log.record(m.kind + ".Observe(" + strconv.FormatFloat(v, 'g', -1, 64) + ")")
}

// storePodNames names pods by identity (pointer), so that two stores
// holding the same pointers render alike.
type storePodNames map[*corev1.Pod]string

// of names obj: "<nil>", "(*Pod)nil", the pod's registered name,
// "unknown:<name>" for a pod never registered, "%T(%v)" for anything else.
func (n storePodNames) of(obj any) string {
	switch o := obj.(type) {
	case nil:
		return "<nil>"
	case *corev1.Pod:
		if o == nil {
			return "(*Pod)nil"
		}
		if name, ok := n[o]; ok {
			return name
		}
		return "unknown:" + o.Name
	}
	return fmt.Sprintf("%T(%v)", obj, obj)
}

// list names the objects of list, sorted, as "[a b c]".
func (n storePodNames) list(list []any) string {
	out := make([]string, len(list))
	for i, o := range list {
		out[i] = n.of(o)
	}
	sort.Strings(out)
	return "[" + strings.Join(out, " ") + "]"
}

// storeSortedQuoted prints a sorted copy of keys with %q.
func storeSortedQuoted(keys []string) string {
	keys = append([]string(nil), keys...)
	sort.Strings(keys)
	return fmt.Sprintf("%q", keys)
}

// storeCatchPanic runs fn and renders its panic as "panic: <value>", or
// "" when fn returns.
func storeCatchPanic(fn func()) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	fn()
	return ""
}
