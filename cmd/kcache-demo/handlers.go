package main

import (
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
)

// eventCounts counts the notifications a handler has finished.
type eventCounts struct {
	adds, updates, deletes atomic.Int64
}

// total returns the number of notifications handled.
func (c *eventCounts) total() int64 { return c.adds.Load() + c.updates.Load() + c.deletes.Load() }

// counterHandler only counts: the cheapest possible handler.
type counterHandler struct{ eventCounts }

func (h *counterHandler) OnAdd(interface{}, bool)           { h.adds.Add(1) }
func (h *counterHandler) OnUpdate(interface{}, interface{}) { h.updates.Add(1) }
func (h *counterHandler) OnDelete(interface{})              { h.deletes.Add(1) }

// webPodHandler tracks how many pods labelled app=web are on each node; it
// is registered behind a FilteringResourceEventHandler.
type webPodHandler struct {
	eventCounts
	// perNode is only touched by the handler's own goroutine.
	perNode map[string]int
}

func (h *webPodHandler) OnAdd(obj interface{}, _ bool) {
	h.adds.Add(1)
	if p, ok := obj.(*v1.Pod); ok {
		h.perNode[p.Spec.NodeName]++
	}
}
func (h *webPodHandler) OnUpdate(interface{}, interface{}) { h.updates.Add(1) }
func (h *webPodHandler) OnDelete(obj interface{}) {
	h.deletes.Add(1)
	if p, ok := obj.(*v1.Pod); ok {
		h.perNode[p.Spec.NodeName]--
	}
}

// slowAuditHandler pretends to write every event to a slow audit sink
// costing cost per notification; it falls behind during the initial list
// and bursts, and its backlog shows it. The cost is paid in sleeps of at
// least auditSleepQuantum, because shorter sleeps overshoot.
type slowAuditHandler struct {
	eventCounts
	// cost is the time owed per notification.
	cost time.Duration
	// owed is cost accumulated and not slept yet; only the handler's
	// goroutine touches it.
	owed time.Duration
}

// auditSleepQuantum is the smallest sleep the audit handler takes.
const auditSleepQuantum = 2 * time.Millisecond

// work pays the cost of one notification.
func (h *slowAuditHandler) work() {
	h.owed += h.cost
	if h.owed >= auditSleepQuantum {
		start := time.Now()
		time.Sleep(h.owed)
		h.owed -= time.Since(start)
	}
}

func (h *slowAuditHandler) OnAdd(interface{}, bool)           { h.work(); h.adds.Add(1) }
func (h *slowAuditHandler) OnUpdate(interface{}, interface{}) { h.work(); h.updates.Add(1) }
func (h *slowAuditHandler) OnDelete(interface{})              { h.work(); h.deletes.Add(1) }

// isWebPod is the filter of webPodHandler.
func isWebPod(obj interface{}) bool {
	p, ok := obj.(*v1.Pod)
	return ok && p.Labels["app"] == "web"
}
