package conformance

import (
	"fmt"
	"sort"
	"strings"
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
