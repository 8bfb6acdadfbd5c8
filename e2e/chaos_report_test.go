package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcache-go/cache/e2e/faultproxy"
)

// chaosTable renders r: one column per watcher, one row per fault kind,
// then the requests, relists, rewatches and backoff waits.
func chaosTable(r chaosResult) string {
	var b strings.Builder
	row := func(label string, cell func(i int) string) {
		fmt.Fprintf(&b, "    %-34s", label)
		for i := range r.stats {
			fmt.Fprintf(&b, " %20s", cell(i))
		}
		b.WriteString("\n")
	}
	row("", func(i int) string { return chaosWatchersNames[i] })
	for _, f := range faultproxy.Faults() {
		row("fault "+f.String(), func(i int) string { return strconv.FormatInt(r.stats[i].Injected[f], 10) })
	}
	row("faults injected (total)", func(i int) string { return strconv.FormatInt(r.stats[i].TotalInjected(), 10) })
	row("requests (list/watchlist/watch)", func(i int) string {
		s := r.stats[i]
		return fmt.Sprintf("%d (%d/%d/%d)", s.TotalRequests(), s.Requests[faultproxy.List], s.Requests[faultproxy.WatchList], s.Requests[faultproxy.Watch])
	})
	row("failed requests", func(i int) string { return strconv.FormatInt(r.stats[i].Failed, 10) })
	row("relists", func(i int) string { return strconv.FormatInt(r.relists[i], 10) })
	row("rewatches", func(i int) string { return strconv.FormatInt(r.rewatches[i], 10) })
	row("backoff waits (count, total)", func(i int) string {
		return fmt.Sprintf("%d, %s", r.stats[i].BackoffWaits, r.stats[i].BackoffTotal.Round(100*time.Millisecond))
	})
	return b.String()
}

// checkNoMoreThanClientGo fails the test when a kcache watcher relisted or
// sent requests more than 10% above client-go's informer, over every side
// and both list paths. The comparison is over the totals: each watcher has
// a proxy of its own with the same seed, so the same sequence of requests
// meets the same faults, but where a stream ends (client timeout, or the
// last write) shifts a few requests from run to run; the totals over the
// whole test are stable.
func checkNoMoreThanClientGo(t *testing.T, r chaosResult) {
	t.Helper()
	cg := len(r.stats) - 1
	for i := 0; i < cg; i++ {
		if limit := float64(r.relists[cg]) * 1.1; float64(r.relists[i]) > limit {
			t.Errorf("%s relisted %d times, client-go %d: more than 10%% above", chaosWatchersNames[i], r.relists[i], r.relists[cg])
		}
		have, base := r.stats[i].TotalRequests(), r.stats[cg].TotalRequests()
		if float64(have) > float64(base)*1.1 {
			t.Errorf("%s sent %d requests, client-go %d: more than 10%% above", chaosWatchersNames[i], have, base)
		}
	}
	t.Logf("relists: %s %d, %s %d, %s %d; requests: %d, %d, %d",
		chaosWatchersNames[0], r.relists[0], chaosWatchersNames[1], r.relists[1], chaosWatchersNames[2], r.relists[2],
		r.stats[0].TotalRequests(), r.stats[1].TotalRequests(), r.stats[2].TotalRequests())
}

// checkOrder returns "" when every key's notifications came in order: the
// resourceVersions never go back, an add comes first or after a delete,
// and an update or delete never follows a delete. Otherwise it describes
// the first few keys out of order.
func (r *recorder) checkOrder() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var bad []string
	for key, h := range r.history {
		var prevRV uint64
		prevOp := ""
		for i, n := range h {
			rv, err := strconv.ParseUint(n.rv, 10, 64)
			switch {
			case err != nil:
				bad = append(bad, fmt.Sprintf("%s #%d: resourceVersion %q", key, i, n.rv))
			case rv < prevRV:
				bad = append(bad, fmt.Sprintf("%s #%d: %s rv %d after rv %d", key, i, n.op, rv, prevRV))
			case n.op == "add" && prevOp != "" && prevOp != "delete":
				bad = append(bad, fmt.Sprintf("%s #%d: add after %s", key, i, prevOp))
			case n.op != "add" && (prevOp == "" || prevOp == "delete"):
				bad = append(bad, fmt.Sprintf("%s #%d: %s after %q", key, i, n.op, prevOp))
			}
			prevRV, prevOp = rv, n.op
		}
	}
	return summarize(bad)
}
