package e2e

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// recoveryObjects is how many objects of each kind exist before the
// disruption.
const recoveryObjects = 300

// recoveryCreates is how many objects of each kind are created while (or
// right after) the informers are cut off.
const recoveryCreates = 100

// recoverySide is one kind's part of a recovery scenario: its namespace, its
// objects and the watchers on them.
type recoverySide struct {
	// o reads and writes the kind in the side's namespace.
	o objects
	// live are the objects created before the disruption.
	live []runtime.Object
	// ws are kcache's informer, kcache's Reflector+Indexer and client-go's
	// informer, in that order.
	ws []*watcher
}

// startRecoverySides creates, for each kind, a namespace with
// recoveryObjects objects and three synced watchers that have caught up with
// the last write.
func startRecoverySides(t *testing.T, ctx context.Context, prefix string, p *partition) []*recoverySide {
	t.Helper()
	var sides []*recoverySide
	for _, k := range bothKinds {
		o := objectsIn(t, k, newNamespace(t, ctx, prefix+"-"+k.resource))
		live, err := populate(ctx, o, "obj", recoveryObjects, 8)
		if err != nil {
			t.Fatal(err)
		}
		ws := startWatchers(t, o, p, kcacheInformer, kcacheReflector, clientGoInformer)
		waitSynced(t, ws, time.Minute)
		waitConverged(t, ctx, o, ws, fence(t, ctx, o), time.Minute)
		sides = append(sides, &recoverySide{o: o, live: live, ws: ws})
	}
	return sides
}

// mutateSides makes the writes the watchers must catch up with: a third of
// each side's objects updated, a third deleted, recoveryCreates created.
func mutateSides(t *testing.T, ctx context.Context, sides []*recoverySide, prefix string) {
	t.Helper()
	for _, s := range sides {
		res, err := mutate(ctx, s.o, s.live, prefix, recoveryCreates)
		if err != nil {
			t.Fatalf("%s: %v", s.o.kind.resource, err)
		}
		t.Logf("%s: %s", s.o.kind.resource, res)
	}
}

// checkRecovered waits until every watcher of every side equals the server,
// reports the relist counts and compares kcache's last notification per key
// and its number of full syncs with client-go's. The notification totals are
// only reported: a relist replays every cached object as an update, so they
// depend on how many of the catch-up writes had landed when each informer's
// relist (timed by its own jittered backoff) read the server.
func checkRecovered(t *testing.T, ctx context.Context, sides []*recoverySide, label string) {
	t.Helper()
	for _, s := range sides {
		waitConverged(t, ctx, s.o, s.ws, fence(t, ctx, s.o), 2*time.Minute)
		logCounts(t, label+" "+s.o.kind.resource, s.ws)
		kc, cg := s.ws[0], s.ws[2]
		if d := diffFinals(kc.rec, cg.rec); d != "" {
			t.Errorf("%s: kcache's and client-go's last notifications differ: %s", s.o.kind.resource, d)
		}
		if a, b := kc.lw.initialSyncs(), cg.lw.initialSyncs(); a != b {
			t.Errorf("%s: kcache's informer made %d full syncs, client-go's %d", s.o.kind.resource, a, b)
		}
	}
}

// maxRV is the newest LastSyncResourceVersion among ws.
func maxRV(ws []*watcher) string {
	newest := ""
	for _, w := range ws {
		if rv := w.lastRV(); newest == "" || rvAtLeast(rv, newest) {
			newest = rv
		}
	}
	return newest
}

// inEachSyncMode runs scenario once with WatchList (the default) and once
// with List (WatchListClient gate off), so relists go through both paths.
// The gate stays set until the scenario's watchers have stopped.
func inEachSyncMode(t *testing.T, scenario func(t *testing.T)) {
	for _, mode := range syncModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Cleanup(setWatchListClientGate(mode.watchList))
			scenario(t)
		})
	}
}

func TestInformersCutOffUntilTheAPIServerCompactedPastThemRelistAndLoseNothing(t *testing.T) {
	inEachSyncMode(t, informersCutOffUntilCompactedRelistAndLoseNothing)
}

func informersCutOffUntilCompactedRelistAndLoseNothing(t *testing.T) {
	ctx := context.Background()
	p := &partition{}
	sides := startRecoverySides(t, ctx, "compaction", p)

	p.cut()
	rvs := make([]string, len(sides))
	for i, s := range sides {
		rvs[i] = maxRV(s.ws)
	}
	mutateSides(t, ctx, sides, "compaction")
	start := time.Now()
	for i, s := range sides {
		waitCompacted(t, ctx, s.o, rvs[i])
		t.Logf("%s: resourceVersion %s compacted away %s after the writes (the API server compacts every 5s)",
			s.o.kind.resource, rvs[i], time.Since(start).Round(100*time.Millisecond))
	}
	p.heal()

	checkRecovered(t, ctx, sides, "after compaction:")
	for _, s := range sides {
		if s.o.kind.resource != "secrets" {
			continue
		}
		// Secrets are watched straight from etcd: resuming from a compacted
		// revision is 410 Gone, so every watcher must have relisted.
		for _, w := range s.ws {
			if w.lw.initialSyncs() < 2 {
				t.Errorf("secrets: %s did not relist after resuming from compacted revision %s", w.name, rvs[1])
			}
		}
	}
}

// waitCompacted polls (every 250ms, at most 90s) until a LIST at exactly
// resourceVersion rv is 410 Gone: the API server's compactor has compacted
// etcd past rv and, for kinds served from the watch cache, the cache has
// dropped its snapshots up to it.
func waitCompacted(t *testing.T, ctx context.Context, o objects, rv string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, _, err := o.list(ctx, metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Limit: 1})
		switch {
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			return
		case err != nil:
			t.Fatalf("%s: list at resourceVersion %s: %v", o.kind.resource, rv, err)
		case time.Now().After(deadline):
			t.Fatalf("%s: resourceVersion %s still listable after 90s; is --etcd-compaction-interval set?", o.kind.resource, rv)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func TestInformersRecoverFromAnAPIServerRestartAndLoseNothing(t *testing.T) {
	inEachSyncMode(t, informersRecoverFromARestartAndLoseNothing)
}

func informersRecoverFromARestartAndLoseNothing(t *testing.T) {
	ctx := context.Background()
	sides := startRecoverySides(t, ctx, "restart", nil)

	start := time.Now()
	cluster.StopAPIServer()
	stopped := time.Since(start)
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := cluster.StartAPIServer(startCtx); err != nil {
		t.Fatalf("restarting kube-apiserver: %v", err)
	}
	t.Logf("kube-apiserver stopped in %s, serving again after %s", stopped.Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond))
	mutateSides(t, ctx, sides, "restart")
	checkRecovered(t, ctx, sides, "after restart:")
	t.Logf("recovered %s after the restart began", time.Since(start).Round(100*time.Millisecond))
}
