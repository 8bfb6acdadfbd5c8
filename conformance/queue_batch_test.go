package conformance

import (
	"fmt"
	"testing"
)

// TestRealFIFOBatchBoundariesMatchClientGo checks the cuts of PopBatch that
// random runs rarely reach: the 1000-delta cap, the end of the initial
// population, and long runs of distinct keys, in atomic and non-atomic
// mode.
func TestRealFIFOBatchBoundariesMatchClientGo(t *testing.T) {
	cases := []struct {
		name  string
		combo queueCombination
		// play feeds the pair; distinct keys are p0000, p0001, ...
		play func(p *queuePair)
	}{
		{
			name:  "2500 adds of distinct keys pop as 1000, 1000, 500",
			combo: queueCombination{Queue: "RealFIFO", Atomic: true},
			play: func(p *queuePair) {
				for i := 0; i < 2500; i++ {
					p.write("Add", func(s queueSubject) error { return s.add(queuePod(fmt.Sprintf("p%04d", i), "1")) })
				}
			},
		},
		{
			name:  "initial non-atomic Replace of 2300 is cut at the end of the population",
			combo: queueCombination{Queue: "RealFIFO", Known: true},
			play: func(p *queuePair) {
				p.write("Replace", func(s queueSubject) error { return s.replace(queueDistinctPods(0, 2300, "1"), "1") })
				for i := 2300; i < 2310; i++ {
					p.write("Add", func(s queueSubject) error { return s.add(queuePod(fmt.Sprintf("p%04d", i), "2")) })
				}
			},
		},
		{
			name:  "atomic Replace first, then adds",
			combo: queueCombination{Queue: "RealFIFO", Atomic: true, Unlock: true},
			play: func(p *queuePair) {
				p.write("Replace", func(s queueSubject) error { return s.replace(queueDistinctPods(0, 1500, "1"), "1") })
				for i := 0; i < 1200; i++ {
					p.write("Update", func(s queueSubject) error { return s.update(queuePod(fmt.Sprintf("p%04d", i), "2")) })
				}
			},
		},
		{
			name:  "a repeated key ends a long batch",
			combo: queueCombination{Queue: "RealFIFO", Atomic: true},
			play: func(p *queuePair) {
				for i := 0; i < 700; i++ {
					p.write("Add", func(s queueSubject) error { return s.add(queuePod(fmt.Sprintf("p%04d", i), "1")) })
				}
				for i := 0; i < 700; i++ {
					p.write("Update", func(s queueSubject) error { return s.update(queuePod(fmt.Sprintf("p%04d", i%350), "2")) })
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &queuePair{t: t, c: tc.combo}
			p.ref, p.got = newQueueRealPair(tc.combo, queueTransform)
			tc.play(p)
			batches := 0
			for p.hasQueued() {
				p.do("PopBatch", func(s queueSubject) string { return s.popBatch(nil) })
				batches++
			}
			if batches < 3 {
				t.Fatalf("only %d PopBatch calls; the scenario did not exercise batching", batches)
			}
		})
	}
}

// queueDistinctPods returns pods p<from>..p<to-1> at resource version rv.
func queueDistinctPods(from, to int, rv string) []interface{} {
	list := make([]interface{}, 0, to-from)
	for i := from; i < to; i++ {
		list = append(list, queuePod(fmt.Sprintf("p%04d", i), rv))
	}
	return list
}
