//go:build soak

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kcache-go/cache/e2e/faultproxy"
	rt "k8s.io/apimachinery/pkg/runtime"
)

// The soak runs only with -tags soak (make soak): it takes minutes.

// soakDuration is how long the soak churns: KCACHE_SOAK_DURATION, default
// 15 minutes.
func soakDuration(t *testing.T) time.Duration {
	return envDuration(t, "KCACHE_SOAK_DURATION", 15*time.Minute)
}

// soakInterval is how often goroutines and heap are sampled:
// KCACHE_SOAK_INTERVAL, default 30s.
func soakInterval(t *testing.T) time.Duration {
	return envDuration(t, "KCACHE_SOAK_INTERVAL", 30*time.Second)
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration such as 5m", name, s)
	}
	return d
}

// soakRates are the chaos test's rates halved: faults all along, but
// rarely enough that backoffs reset between them.
func soakRates() map[faultproxy.Class]faultproxy.Rates {
	out := map[faultproxy.Class]faultproxy.Rates{}
	for c, rates := range chaosRates {
		out[c] = faultproxy.Rates{}
		for f, r := range rates {
			out[c][f] = r / 2
		}
	}
	return out
}

// soakSample is one sample of the process.
type soakSample struct {
	// at is the time since the churn began.
	at time.Duration
	// goroutines is runtime.NumGoroutine.
	goroutines int
	// heap is HeapAlloc after a GC, in bytes.
	heap uint64
}

func TestSoakUnderSteadyChurnAndFaultsKeepsGoroutinesAndHeapFlat(t *testing.T) {
	duration, interval := soakDuration(t), soakInterval(t)
	seed := chaosSeed(t)
	ctx := context.Background()
	recordLastOnly.Store(true)
	defer recordLastOnly.Store(false)
	// Both list paths at once: the gate is read when a Reflector is made,
	// so each set is started (and synced) under its own setting.
	var sides []*chaosSide
	for _, mode := range syncModes {
		restore := setWatchListClientGate(mode.watchList)
		for i, k := range bothKinds {
			s := startChaosSide(t, ctx, k, "soak-"+strings.ToLower(mode.name), seed+uint64(i), soakRates())
			waitSynced(t, s.ws, 2*time.Minute)
			sides = append(sides, s)
		}
		restore()
	}
	t.Logf("soak: %d watchers behind fault proxies (seed %d), churning for %s, sampling every %s", 3*len(sides), seed, duration, interval)

	churnCtx, stop := context.WithCancel(ctx)
	writes := make(chan int64, len(sides))
	for i, s := range sides {
		go func() { writes <- steadyChurn(churnCtx, t, s.o, 2, 100, 20, seed+uint64(i)) }()
	}
	samples := sampleUntil(t, duration, interval, sides)
	stop()
	for _, s := range sides {
		for _, p := range s.proxies {
			p.Quiesce()
		}
	}
	var total int64
	for range sides {
		total += <-writes
	}
	t.Logf("soak: %d writes in %s\n%s", total, duration, soakTable(samples))
	checkFlat(t, samples)

	var res chaosResult
	for _, s := range sides {
		waitConverged(t, ctx, s.o, s.ws, fence(t, ctx, s.o), 3*time.Minute)
		for _, w := range s.ws {
			if w.rec != nil {
				if d := w.rec.checkOrder(); d != "" {
					t.Errorf("%s %s: changes out of order: %s", s.o.kind.resource, w.name, d)
				}
			}
		}
		res.add(s.result())
	}
	t.Logf("soak fault table (both list paths, both kinds):\n%s", chaosTable(res))
}

// sampleUntil samples the process every interval for duration.
func sampleUntil(t *testing.T, duration, interval time.Duration, sides []*chaosSide) []soakSample {
	start := time.Now()
	var out []soakSample
	for {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		s := soakSample{at: time.Since(start).Round(time.Second), goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc}
		out = append(out, s)
		t.Logf("soak sample at %6s: goroutines=%d heap=%.1f MiB", s.at, s.goroutines, float64(s.heap)/(1<<20))
		if time.Since(start) >= duration {
			return out
		}
		time.Sleep(min(interval, duration-time.Since(start)+time.Millisecond))
	}
}

// steadyChurn writes to o at about perSecond writes a second with writers
// writers over keys keys each, until ctx ends, and returns the number of
// writes. A failed write fails the test.
func steadyChurn(ctx context.Context, t *testing.T, o objects, writers, keys, perSecond int, seed uint64) int64 {
	var n int64
	counts := make([]int64, writers)
	_ = parallel(writers, func(w int) error {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		live := make([]rt.Object, keys)
		tick := time.NewTicker(time.Second * time.Duration(writers) / time.Duration(perSecond))
		defer tick.Stop()
		for v := 1; ; v++ {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
			k := rng.IntN(keys)
			name := fmt.Sprintf("soak-w%02d-k%04d", w, k)
			var err error
			switch {
			case live[k] == nil:
				live[k], err = o.create(ctx, o.kind.build(name, dataFor(v)))
			case rng.IntN(10) < 7:
				next := o.kind.build(name, dataFor(v))
				mustMeta(next).SetResourceVersion(mustMeta(live[k]).GetResourceVersion())
				live[k], err = o.update(ctx, next)
			default:
				err = o.delete(ctx, name)
				live[k] = nil
			}
			if err != nil && ctx.Err() == nil {
				t.Errorf("%s: soak write to %s: %v", o.kind.resource, name, err)
				return err
			}
			counts[w]++
		}
	})
	for _, c := range counts {
		n += c
	}
	return n
}

// soakWarmup is how many leading samples are warm-up: a fifth, at least two.
func soakWarmup(n int) int { return max(2, n/5) }

// checkFlat fails the test when goroutines or heap grow after warm-up:
// the later half's mean may exceed the earlier half's (both after warm-up)
// by at most 10% + 20 goroutines and 25% + 4 MiB of heap, and no sample may
// pass 1.5 times the post-warm-up median (+50 goroutines, +8 MiB).
func checkFlat(t *testing.T, samples []soakSample) {
	t.Helper()
	w := soakWarmup(len(samples))
	if len(samples)-w < 4 {
		t.Logf("soak: only %d samples after %d of warm-up; too few to judge a trend (run longer)", len(samples)-w, w)
		return
	}
	post := samples[w:]
	half := len(post) / 2
	g := func(s soakSample) float64 { return float64(s.goroutines) }
	h := func(s soakSample) float64 { return float64(s.heap) }
	for _, m := range []struct {
		name          string
		of            func(soakSample) float64
		growth, slack float64
		peak, peakAbs float64
	}{
		{"goroutines", g, 1.10, 20, 1.5, 50},
		{"heap bytes", h, 1.25, 4 << 20, 1.5, 8 << 20},
	} {
		early, late, med := mean(post[:half], m.of), mean(post[half:], m.of), medianOf(post, m.of)
		if late > early*m.growth+m.slack {
			t.Errorf("soak: %s grew after warm-up: mean %.0f in the first half, %.0f in the second", m.name, early, late)
		}
		for _, s := range post {
			if v := m.of(s); v > med*m.peak+m.peakAbs {
				t.Errorf("soak: %s reached %.0f at %s, median after warm-up %.0f", m.name, v, s.at, med)
			}
		}
		t.Logf("soak: %s after warm-up: first-half mean %.0f, second-half mean %.0f, median %.0f", m.name, early, late, med)
	}
}

func mean(s []soakSample, of func(soakSample) float64) float64 {
	sum := 0.0
	for _, x := range s {
		sum += of(x)
	}
	return sum / float64(len(s))
}

// soakTable renders the samples.
func soakTable(samples []soakSample) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    %8s %11s %10s\n", "time", "goroutines", "heap MiB")
	for i, s := range samples {
		mark := ""
		if i < soakWarmup(len(samples)) {
			mark = " (warm-up)"
		}
		fmt.Fprintf(&b, "    %8s %11d %10.1f%s\n", s.at, s.goroutines, float64(s.heap)/(1<<20), mark)
	}
	return b.String()
}
