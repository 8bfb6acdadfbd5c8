package main

import (
	"context"
	"fmt"
	"time"

	cache "github.com/kcache-go/cache"
)

// reporter prints one progress line per second and a summary at the end.
// Only its loop goroutine touches its fields after construction.
type reporter struct {
	// start is when the informer was started.
	start time.Time
	// informer is the informer reported on.
	informer cache.SharedIndexInformer
	// cluster is nil when watching a real cluster.
	cluster *simulatedCluster
	// counter, web and audit are the three handlers.
	counter *counterHandler
	web     *webPodHandler
	audit   *slowAuditHandler
	// registrations are the handlers' registrations, in the order counter,
	// web filter, audit; kcache's report their backlog.
	registrations []cache.ResourceEventHandlerRegistration

	// syncedAfter is the initial sync time, zero until synced.
	syncedAfter time.Duration
	// lastTotal is the counter handler's total at the previous line.
	lastTotal int64
}

// addHandlers registers the three handlers with the informer.
func (r *reporter) addHandlers() error {
	for _, h := range []cache.ResourceEventHandler{
		r.counter,
		cache.FilteringResourceEventHandler{FilterFunc: isWebPod, Handler: r.web},
		r.audit,
	} {
		reg, err := r.informer.AddEventHandler(h)
		if err != nil {
			return err
		}
		r.registrations = append(r.registrations, reg)
	}
	return nil
}

// backlog returns the backlog of the i-th handler.
func (r *reporter) backlog(i int) int {
	return r.registrations[i].(interface{ KcachePendingNotifications() int }).KcachePendingNotifications()
}

// loop prints a line every second until ctx ends; it also notes the
// moment the informer syncs.
func (r *reporter) loop(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	synced := r.informer.HasSyncedChecker().Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-synced:
			r.syncedAfter = time.Since(r.start)
			fmt.Printf("initial sync done after %v (%d objects in cache)\n", r.syncedAfter.Round(time.Millisecond), len(r.informer.GetStore().ListKeys()))
			synced = nil
		case <-tick.C:
			r.line()
		}
	}
}

// line prints the current figures.
func (r *reporter) line() {
	total := r.counter.total()
	rate := total - r.lastTotal
	r.lastTotal = total
	sync := "syncing"
	if r.syncedAfter > 0 {
		sync = "synced in " + r.syncedAfter.Round(time.Millisecond).String()
	}
	fmt.Printf("t=%-4s %-18s events/s=%-6d cache=%-6d rv=%-8s backlog: counter=%-5d web-filter=%-5d slow-audit=%-6d%s\n",
		time.Since(r.start).Round(time.Second), sync, rate, len(r.informer.GetStore().ListKeys()), r.informer.LastSyncResourceVersion(),
		r.backlog(0), r.backlog(1), r.backlog(2), r.clusterNote())
}

// clusterNote summarises what the simulated cluster did so far.
func (r *reporter) clusterNote() string {
	if r.cluster == nil {
		return ""
	}
	pods, st := r.cluster.snapshot()
	return fmt.Sprintf(" | cluster: pods=%d lists=%d watches=%d dropped=%d gone=%d", pods, st.Lists, st.Watches, st.Dropped, st.Gone)
}

// summary prints what every handler processed.
func (r *reporter) summary() {
	fmt.Printf("stopped after %v; handled notifications: counter=%d web-filter=%d slow-audit=%d; web pods on node-000: %d\n",
		time.Since(r.start).Round(time.Millisecond), r.counter.total(), r.web.total(), r.audit.total(), r.web.perNode["node-000"])
}
