package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// queueCombination is one row of testdata/queue_seeds.json: a queue, its
// options, and the seeded random run played against both implementations.
type queueCombination struct {
	// Name names the sub-test.
	Name string `json:"name"`
	// Queue is "RealFIFO" or "DeltaFIFO".
	Queue string `json:"queue"`
	// Atomic, Unlock and Bookmarks are RealFIFO's AtomicEvents,
	// UnlockWhileProcessing and EmitDeltaTypeBookmark.
	Atomic    bool `json:"atomic"`
	Unlock    bool `json:"unlock"`
	Bookmarks bool `json:"bookmarks"`
	// EmitReplaced is DeltaFIFO's EmitDeltaTypeReplaced.
	EmitReplaced bool `json:"emitReplaced"`
	// Transformer installs queueTransform.
	Transformer bool `json:"transformer"`
	// Known gives the queue the consumer's Indexer as KnownObjects.
	Known bool `json:"known"`
	// Closed closes the queues before the run, so that a Pop on an empty
	// queue returns ErrFIFOClosed instead of blocking (DeltaFIFO has no
	// other observable depth).
	Closed bool `json:"closed"`
	// Seed seeds the operation generator.
	Seed int64 `json:"seed"`
	// Ops is the number of generated operations.
	Ops int `json:"ops"`
}

// queueLoadCombinations reads testdata/queue_seeds.json.
func queueLoadCombinations(t *testing.T) []queueCombination {
	t.Helper()
	data, err := os.ReadFile("testdata/queue_seeds.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []queueCombination
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// queueUniverse is the set of object names the generator draws from; small
// enough for keys to repeat often, large enough for long batches.
const queueUniverse = 40

// queueRejectedName is the name the transformer refuses.
const queueRejectedName = "rejected"

// queuePod builds a pod of the test namespace.
func queuePod(name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// queueTransform is the transformer of the transformer rows: it returns a
// copy of a pod with "t" appended to its resource version (so the trace
// shows where it ran), refuses the pod named queueRejectedName, and passes
// anything else through.
func queueTransform(obj interface{}) (interface{}, error) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return obj, nil
	}
	if p.Name == queueRejectedName {
		return nil, fmt.Errorf("transformer refuses %s", p.Name)
	}
	c := *p
	c.ResourceVersion += "t"
	return &c, nil
}

// queueGenerator produces the seeded operation stream of one run.
type queueGenerator struct {
	rng *rand.Rand
	// rv is the last resource version handed out.
	rv int
	// step is the number of the operation being generated.
	step int
}

// nextRV returns a fresh resource version.
func (g *queueGenerator) nextRV() string {
	g.rv++
	return fmt.Sprint(g.rv)
}

// object returns a fresh object for a write: usually a pod of the universe,
// sometimes the transformer-rejected pod, rarely an int (a key error) or a
// Deltas (which RealFIFO and DeltaFIFO key by its newest object).
func (g *queueGenerator) object() interface{} {
	switch r := g.rng.Intn(100); {
	case r < 2:
		return 42
	case r < 3:
		name := fmt.Sprintf("p%02d", g.rng.Intn(queueUniverse))
		return []queueDelta{{"Added", queuePod(name, g.nextRV())}, {"Updated", queuePod(name, g.nextRV())}}
	case r < 5:
		return queuePod(queueRejectedName, g.nextRV())
	default:
		return queuePod(fmt.Sprintf("p%02d", g.rng.Intn(queueUniverse)), g.nextRV())
	}
}

// list returns a Replace list: a shuffled sample of the universe of random
// density, sometimes with a duplicate key, a rejected pod, an int or a
// tombstone (which a later Replace then deletes: DeltaFIFO unwraps it, the
// non-atomic RealFIFO wraps it again, as client-go does).
func (g *queueGenerator) list() []interface{} {
	density := []int{0, 25, 60, 90, 100}[g.rng.Intn(5)]
	rv := g.nextRV()
	var list []interface{}
	for i := 0; i < queueUniverse; i++ {
		if g.rng.Intn(100) < density {
			list = append(list, queuePod(fmt.Sprintf("p%02d", i), rv))
		}
	}
	g.rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	if len(list) > 0 && g.rng.Intn(10) == 0 {
		list = append(list, queuePod(list[0].(*v1.Pod).Name, g.nextRV()))
	}
	if g.rng.Intn(25) == 0 {
		list = slices.Insert(list, g.rng.Intn(len(list)+1), interface{}(queuePod(queueRejectedName, rv)))
	}
	if g.rng.Intn(25) == 0 {
		list = slices.Insert(list, g.rng.Intn(len(list)+1), interface{}(42))
	}
	if g.rng.Intn(12) == 0 {
		list = slices.Insert(list, g.rng.Intn(len(list)+1), g.tombstone())
	}
	return list
}

// failure decides whether the consumer's process function fails this time.
func (g *queueGenerator) failure() error {
	if g.rng.Intn(20) == 0 {
		return fmt.Errorf("consumer rejects at step %d", g.step)
	}
	return nil
}

// queuePair is the two queues of one run, driven in lockstep.
type queuePair struct {
	t       *testing.T
	c       queueCombination
	ref     queueSubject // client-go
	got     queueSubject // kcache
	history []string
}

// do applies the same operation to both queues and fails the test at the
// first difference in what a consumer can observe.
func (p *queuePair) do(desc string, op func(s queueSubject) string) {
	p.t.Helper()
	want := p.observe(desc, p.ref, op)
	got := p.observe(desc, p.got, op)
	if want != got {
		p.t.Fatalf("seed %d, operation %d: kcache differs from client-go\nrecent:\n  %s\nclient-go: %s\nkcache:    %s",
			p.c.Seed, len(p.history), strings.Join(p.history[max(0, len(p.history)-12):], "\n  "), want, got)
	}
	p.history = append(p.history, want)
}

// observe runs op on s and renders the result with the queue's sync state
// and published metrics.
func (p *queuePair) observe(desc string, s queueSubject, op func(s queueSubject) string) string {
	return fmt.Sprintf("%s => %s | %s depth=%d observed=%d", desc, op(s), s.syncState(), s.depth(), s.observed())
}

// hasQueued reports whether a Pop would find something: by the reference
// queue's queued-items gauge for RealFIFO; a closed queue never blocks.
func (p *queuePair) hasQueued() bool {
	return p.c.Closed || p.ref.depth() > 0
}

// write plays one write operation.
func (p *queuePair) write(desc string, call func(s queueSubject) error) {
	p.do(desc, func(s queueSubject) string { return queueRenderErr(call(s)) })
}

// consume plays one Pop or PopBatch (when the queue has something).
func (p *queuePair) consume(g *queueGenerator, batch bool) {
	if !p.hasQueued() {
		return
	}
	fail := g.failure()
	if batch && p.c.Queue == "RealFIFO" {
		p.do("PopBatch", func(s queueSubject) string { return s.popBatch(fail) })
		return
	}
	p.do("Pop", func(s queueSubject) string { return s.pop(fail) })
}

// drain consumes until the queue is empty (RealFIFO) or a Pop reports the
// closed queue is empty (DeltaFIFO).
func (p *queuePair) drain(g *queueGenerator) {
	for i := 0; i < 10000; i++ {
		if p.c.Closed {
			before := len(p.history)
			p.consume(g, false)
			if strings.Contains(p.history[before], "manipulating with closed queue") {
				return
			}
			continue
		}
		if !p.hasQueued() {
			return
		}
		p.consume(g, g.rng.Intn(3) > 0)
	}
	p.t.Fatalf("seed %d: queue did not drain", p.c.Seed)
}

// replace generates and plays one Replace.
func (p *queuePair) replace(g *queueGenerator) {
	list, rv := g.list(), g.nextRV()
	p.write("Replace "+queueRenderList(list)+" "+rv, func(s queueSubject) error {
		return s.replace(slices.Clone(list), rv) // each queue owns its list
	})
}

// step generates and plays one operation.
func (p *queuePair) step(g *queueGenerator) {
	g.step++
	switch r := g.rng.Intn(100); {
	case r < 18:
		obj := g.object()
		p.write("Add "+queueRender(obj), func(s queueSubject) error { return s.add(obj) })
	case r < 33:
		obj := g.object()
		p.write("Update "+queueRender(obj), func(s queueSubject) error { return s.update(obj) })
	case r < 41:
		obj := g.object()
		p.write("Delete "+queueRender(obj), func(s queueSubject) error { return s.del(obj) })
	case r < 44:
		obj := g.tombstone()
		p.write("Delete "+queueRender(obj), func(s queueSubject) error { return s.del(obj) })
	case r < 47:
		p.replace(g)
	case r < 50:
		p.write("Resync", func(s queueSubject) error { return s.resync() })
	case r < 53:
		rv := g.nextRV()
		p.write("Bookmark "+rv, func(s queueSubject) error { return s.bookmark(rv) })
	case r < 74:
		p.consume(g, false)
	case r < 97:
		p.consume(g, true)
	default:
		p.drain(g)
	}
}

// tombstone returns a deletion tombstone for a pod of the universe; each
// subject turns it into its package's DeletedFinalStateUnknown.
func (g *queueGenerator) tombstone() interface{} {
	name := fmt.Sprintf("p%02d", g.rng.Intn(queueUniverse))
	return queueTombstone{key: "ns/" + name, obj: queuePod(name, g.nextRV())}
}

// TestQueuesMatchClientGoOnRandomInterleavings plays, for every option
// combination in testdata/queue_seeds.json, a seeded random interleaving of
// Add/Update/Delete/Replace/Resync/Bookmark with Pop and PopBatch against
// client-go's queue and kcache's, and requires the same trace: every delta
// handed to the consumer (type, object, order, batch boundaries,
// isInInitialList), every error, the HasSynced/Done state and the published
// queue depth after every operation.
func TestQueuesMatchClientGoOnRandomInterleavings(t *testing.T) {
	for _, c := range queueLoadCombinations(t) {
		t.Run(c.Name, func(t *testing.T) {
			g := &queueGenerator{rng: rand.New(rand.NewSource(c.Seed))}
			var all []string
			for g.step < c.Ops {
				all = append(all, queuePlayEpisode(t, c, g)...)
			}
			cov := queueCoverageOf(all)
			t.Logf("%d operations in %d episodes, %d observable steps identical; covered %v", g.step, cov["episodes"], len(all), cov)
			queueRequireCoverage(t, c, cov)
		})
	}
}

// queueEpisodeLen bounds the number of operations one pair of queues lives
// for; short lives make the initial population (HasSynced, isInInitialList)
// happen many times per run.
const queueEpisodeLen = 400

// queuePlayEpisode creates a fresh pair of queues, opens with what a
// starting informer sees (often Resync/Bookmark noise, then usually the
// initial Replace), plays random operations, drains, closes, and returns
// the identical trace.
func queuePlayEpisode(t *testing.T, c queueCombination, g *queueGenerator) []string {
	t.Helper()
	p := &queuePair{t: t, c: c}
	switch c.Queue {
	case "RealFIFO":
		p.ref, p.got = newQueueRealPair(c, queueTransform)
	case "DeltaFIFO":
		p.ref, p.got = newQueueDeltaPair(c, queueTransform)
	default:
		t.Fatalf("unknown queue %q", c.Queue)
	}
	if c.Closed {
		p.ref.close()
		p.got.close()
	}
	p.do("New episode", func(queueSubject) string { return "" })
	if g.rng.Intn(4) == 0 {
		p.write("Resync", func(s queueSubject) error { return s.resync() })
	}
	if g.rng.Intn(4) == 0 {
		rv := g.nextRV()
		p.write("Bookmark "+rv, func(s queueSubject) error { return s.bookmark(rv) })
	}
	if g.rng.Intn(3) > 0 {
		p.replace(g)
	}
	n := 1 + g.rng.Intn(queueEpisodeLen)
	for i := 0; i < n && g.step < c.Ops; i++ {
		p.step(g)
	}
	p.drain(g)
	p.ref.close()
	p.got.close()
	p.do("Pop after Close", func(s queueSubject) string { return s.pop(nil) })
	return p.history
}

// queueCoverageOf counts, over a trace, the behaviours the run exercised.
func queueCoverageOf(trace []string) map[string]int {
	marks := map[string]string{
		"episodes":         "New episode",
		"batches":          "batch(",
		"initial pops":     "initial=true",
		"tombstones":       "Tombstone(",
		"replaced-all":     "ReplacedAll:",
		"sync-all":         "SyncAll:",
		"bookmarks":        "Bookmark:",
		"replaced":         "Replaced:",
		"sync":             "Sync:",
		"errors":           "error(",
		"consumer errors":  "consumer rejects",
		"closed-queue pop": "manipulating with closed queue",
	}
	cov := map[string]int{}
	for _, line := range trace {
		for name, mark := range marks {
			if strings.Contains(line, mark) {
				cov[name]++
			}
		}
	}
	return cov
}

// queueRequireCoverage fails the run when the random stream missed a
// behaviour its combination can produce, so that passing means compared.
func queueRequireCoverage(t *testing.T, c queueCombination, cov map[string]int) {
	t.Helper()
	need := []string{"episodes", "initial pops", "errors", "consumer errors", "closed-queue pop"}
	switch {
	case c.Queue == "DeltaFIFO":
		need = append(need, "tombstones")
		if c.EmitReplaced {
			need = append(need, "replaced")
		}
		if !c.EmitReplaced || c.Known {
			need = append(need, "sync")
		}
	case c.Atomic:
		need = append(need, "batches", "replaced-all", "sync-all")
		if c.Bookmarks {
			need = append(need, "bookmarks")
		}
	default:
		need = append(need, "batches", "tombstones", "replaced", "sync")
	}
	for _, name := range need {
		if cov[name] == 0 {
			t.Errorf("the run never exercised %s", name)
		}
	}
}
