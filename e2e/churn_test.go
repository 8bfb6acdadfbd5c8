package e2e

import (
	"context"
	"testing"
	"time"
)

// churnOps is the number of writes per kind.
const churnOps = 20000

func TestConcurrentChurnLeavesEveryCacheEqualToTheServerAndKcacheNotifiesLikeClientGo(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(k.resource, func(t *testing.T) {
			ctx := context.Background()
			o := objectsIn(t, k, newNamespace(t, ctx, "churn-"+k.resource))
			ws := startWatchers(t, o, nil, kcacheInformer, kcacheReflector, clientGoInformer)
			waitSynced(t, ws, time.Minute)

			spec := churnSpec{writers: 8, keysPerWriter: 150, ops: churnOps, seed: 7}
			start := time.Now()
			res, err := churn(ctx, o, spec)
			if err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			t.Logf("%s: %d writers made %s in %s (%.0f writes/s)", k.resource, spec.writers, res, elapsed.Round(time.Millisecond), float64(spec.ops)/elapsed.Seconds())

			server := waitConverged(t, ctx, o, ws, fence(t, ctx, o), 2*time.Minute)
			logCounts(t, k.resource, ws)
			for _, w := range ws {
				if relists := w.lw.initialSyncs() - 1; relists != 0 {
					t.Errorf("%s relisted %d times during plain churn", w.name, relists)
				}
			}
			kc, cg := ws[0], ws[2]
			if d := diffHistories(kc.rec, cg.rec); d != "" {
				t.Errorf("kcache and client-go handlers saw different notifications: %s", d)
			}
			t.Logf("%s: %d live keys, %d keys notified; kcache's and client-go's per-key notification sequences are identical",
				k.resource, len(server), len(kc.rec.finals()))
		})
	}
}
