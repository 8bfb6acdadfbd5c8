package conformance

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/watch"
)

// informerLateSyncPlay registers handlers, one after another, on a running
// informer that has synced 2,000 pods. Each handler blocks in its first call
// until the play has asked its registration whether it has synced, so the
// answer must be false: the handler has not had its initial list. Then the
// handlers are released and every registration must have synced.
func informerLateSyncPlay(t *testing.T, build func(lw *informerScriptedSource) informerRemovalSide) []string {
	var out []string
	synctest.Test(t, func(t *testing.T) {
		pods := make([]string, 2000)
		for i := range pods {
			pods[i] = fmt.Sprintf("p%04d@1", i)
		}
		lw := &informerScriptedSource{lists: []informerListResponse{{RV: "10", Pods: pods}}, watchers: make(chan *watch.FakeWatcher, 16)}
		inf := build(lw)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { inf.run(ctx); close(done) }()
		<-lw.watchers
		synctest.Wait()
		var early []int
		var regs []any
		var handlers []*informerRemovalHandler
		for i := 0; i < 20; i++ {
			gate := make(chan struct{})
			h := &informerRemovalHandler{gate: gate}
			reg := inf.add(h)
			if inf.synced(reg) {
				early = append(early, i)
			}
			close(gate)
			regs, handlers = append(regs, reg), append(handlers, h)
		}
		synctest.Wait()
		out = append(out, fmt.Sprintf("registrations synced before their handler had the initial list: %v", early))
		late := 0
		for i, reg := range regs {
			if !inf.synced(reg) || handlers[i].count() != len(pods) {
				late++
			}
		}
		out = append(out, fmt.Sprintf("registrations not synced, or short of the list, once delivered: %d", late))
		cancel()
		<-done
	})
	return out
}

func TestALateRegistrationIsNotSyncedUntilItsHandlerHasHadTheInitialList(t *testing.T) {
	want := informerLateSyncPlay(t, informerRemovalClientGo)
	got := informerLateSyncPlay(t, informerRemovalKcache)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kcache differs from client-go:\nclient-go: %q\nkcache:    %q", want, got)
	}
}
