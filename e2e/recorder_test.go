package e2e

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	kcache "github.com/kcache-go/cache"
	"k8s.io/apimachinery/pkg/runtime"
	cgcache "k8s.io/client-go/tools/cache"
)

// notification is one handler call as the tests compare it.
type notification struct {
	// op is "add", "update" or "delete".
	op string
	// rv is the resourceVersion of the object handed over (for a delete, of
	// the last state the informer knew, or of the deletion).
	rv string
	// data is the object's canonical data.
	data string
}

// recorder is an event handler usable with both kcache and client-go (their
// ResourceEventHandler interfaces have the same methods); it keeps, per key,
// every notification in order.
type recorder struct {
	// kind renders objects.
	kind kind
	// mu guards history, disorder and total.
	mu sync.Mutex
	// history maps namespace/name to the notifications for that key (only
	// the last one per key when lastOnly).
	history map[string][]notification
	// lastOnly keeps memory bounded for long runs: only each key's last
	// notification is kept, and order is checked as notifications arrive.
	lastOnly bool
	// disorder lists out-of-order notifications seen in lastOnly mode.
	disorder []string
	// total counts notifications by op in lastOnly mode.
	total map[string]int
}

// recordLastOnly makes new recorders keep only each key's last
// notification (the soak sets it: full histories would grow without end).
var recordLastOnly atomic.Bool

func newRecorder(k kind) *recorder {
	return &recorder{kind: k, history: map[string][]notification{}, lastOnly: recordLastOnly.Load(), total: map[string]int{}}
}

func (r *recorder) OnAdd(obj interface{}, _ bool) { r.record("add", obj) }

func (r *recorder) OnUpdate(_, newObj interface{}) { r.record("update", newObj) }

func (r *recorder) OnDelete(obj interface{}) {
	switch tomb := obj.(type) {
	case kcache.DeletedFinalStateUnknown:
		obj = tomb.Obj
	case cgcache.DeletedFinalStateUnknown:
		obj = tomb.Obj
	}
	r.record("delete", obj)
}

func (r *recorder) record(op string, obj interface{}) {
	o := obj.(runtime.Object)
	m := mustMeta(o)
	n := notification{op: op, rv: m.GetResourceVersion(), data: r.kind.data(o)}
	key := m.GetNamespace() + "/" + m.GetName()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.lastOnly {
		r.history[key] = append(r.history[key], n)
		return
	}
	r.total[op]++
	h := r.history[key]
	if len(h) == 1 {
		if d := outOfOrder(h[0], n); d != "" && len(r.disorder) < 100 {
			r.disorder = append(r.disorder, key+": "+d)
		}
		h[0] = n
		return
	}
	r.history[key] = []notification{n}
}

// finals returns each key's last notification. A delete keeps only its op:
// whether it came from a watch event or from a relist, it says the same.
func (r *recorder) finals() map[string]notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]notification, len(r.history))
	for key, h := range r.history {
		last := h[len(h)-1]
		if last.op == "delete" {
			last = notification{op: "delete"}
		}
		out[key] = last
	}
	return out
}

// counts returns how many adds, updates and deletes were delivered.
func (r *recorder) counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	if r.lastOnly {
		for op, n := range r.total {
			out[op] = n
		}
		return out
	}
	for _, h := range r.history {
		for _, n := range h {
			out[n.op]++
		}
	}
	return out
}

// checkFinals returns "" when, for every key, the last notification matches
// the server: a live key's is an add or update carrying the server's
// resourceVersion and data, a deleted key's is a delete, and no live key went
// unannounced. Otherwise it describes the first few mismatches.
func (r *recorder) checkFinals(server snapshot) string {
	finals := r.finals()
	var bad []string
	for key, want := range server {
		got, ok := finals[key]
		switch {
		case !ok:
			bad = append(bad, "never notified of live "+key)
		case got.op == "delete" || got.rv != want.rv || got.data != want.data:
			bad = append(bad, fmt.Sprintf("%s: last %s rv %s, server rv %s", key, got.op, got.rv, want.rv))
		}
	}
	for key, got := range finals {
		if _, live := server[key]; !live && got.op != "delete" {
			bad = append(bad, fmt.Sprintf("%s deleted on the server, last notification %s rv %s", key, got.op, got.rv))
		}
	}
	return summarize(bad)
}

// diffHistories returns "" when a and b hold the same notifications in the
// same order for every key, else a description of the first few keys that
// differ.
func diffHistories(a, b *recorder) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	var bad []string
	for key, ha := range a.history {
		if hb := b.history[key]; fmt.Sprint(ha) != fmt.Sprint(hb) {
			bad = append(bad, fmt.Sprintf("%s: %v vs %v", key, ha, hb))
		}
	}
	for key := range b.history {
		if _, ok := a.history[key]; !ok {
			bad = append(bad, "only the second saw "+key)
		}
	}
	return summarize(bad)
}

// diffFinals returns "" when a and b agree on every key's last notification.
func diffFinals(a, b *recorder) string {
	fa, fb := a.finals(), b.finals()
	var bad []string
	for key, na := range fa {
		if nb, ok := fb[key]; !ok || na != nb {
			bad = append(bad, fmt.Sprintf("%s: %v vs %v", key, na, nb))
		}
	}
	for key := range fb {
		if _, ok := fa[key]; !ok {
			bad = append(bad, "only the second saw "+key)
		}
	}
	return summarize(bad)
}

// summarize joins up to five problems, sorted, with their total count.
func summarize(problems []string) string {
	if len(problems) == 0 {
		return ""
	}
	sort.Strings(problems)
	n := len(problems)
	if n > 5 {
		problems = problems[:5]
	}
	return fmt.Sprintf("%d problems, e.g. %s", n, strings.Join(problems, "; "))
}
