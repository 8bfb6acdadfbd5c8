package conformance

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	cg "k8s.io/client-go/tools/cache"

	kc "github.com/kcache-go/cache"
)

// queueFlakyKnown is a KnownObjects store (for either package: the
// interface is structural) that lists keys it cannot produce: one lookup
// fails, one key has no object, one works.
type queueFlakyKnown struct{}

func (queueFlakyKnown) ListKeys() []string { return []string{"ns/fails", "ns/missing", "ns/present"} }

func (queueFlakyKnown) GetByKey(key string) (interface{}, bool, error) {
	switch key {
	case "ns/fails":
		return nil, false, errors.New("lookup failed")
	case "ns/missing":
		return nil, false, nil
	}
	return queuePod("present", "1"), true, nil
}

// TestQueuesHandleKnownObjectsThatCannotProduceAKeyLikeClientGo replays
// Replace, Resync and Delete against a KnownObjects store whose lookups fail
// or come back empty, and compares what the consumer receives.
func TestQueuesHandleKnownObjectsThatCannotProduceAKeyLikeClientGo(t *testing.T) {
	script := func(s queueSubject, closed bool) []string {
		var out []string
		step := func(name string, err error) { out = append(out, name+" "+queueRenderErr(err)+" "+s.syncState()) }
		drain := func() {
			for i := 0; i < 20 && (closed || s.depth() > 0); i++ {
				r := s.pop(nil)
				out = append(out, r)
				if closed && len(r) > 0 && queueContainsClosed(r) {
					return
				}
			}
		}
		step("Resync", s.resync())
		step("Delete fails", s.del(queuePod("fails", "2")))
		step("Delete missing", s.del(queuePod("missing", "2")))
		step("Delete present", s.del(queuePod("present", "2")))
		drain()
		step("Replace", s.replace([]interface{}{queuePod("a", "3")}, "3"))
		drain()
		step("Resync", s.resync())
		drain()
		return out
	}
	for _, queue := range []string{"RealFIFO", "DeltaFIFO"} {
		t.Run(queue, func(t *testing.T) {
			var ref, got queueSubject
			if queue == "RealFIFO" {
				cRec, kRec := &queueMetricsRecorder{}, &queueMetricsRecorder{}
				n, _ := cg.NewInformerName(queueNextIdentityName())
				c := queueCGReal(cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: queueFlakyKnown{}, Identifier: n.WithResource(queuePodsGVR), MetricsProvider: queueCGProvider{cRec}}), nil, cRec)
				m, _ := kc.NewInformerName(queueNextIdentityName())
				k := queueKCReal(kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: queueFlakyKnown{}, Identifier: m.WithResource(queuePodsGVR), MetricsProvider: queueKCProvider{kRec}}), nil, kRec)
				ref, got = c, k
			} else {
				c := queueCGDelta(cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: queueFlakyKnown{}}), nil)
				k := queueKCDelta(kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: queueFlakyKnown{}}), nil)
				c.q.Close() // a Pop on the empty queue reports instead of blocking
				k.q.Close()
				ref, got = c, k
			}
			closed := queue == "DeltaFIFO"
			want, have := script(ref, closed), script(got, closed)
			if fmt.Sprint(want) != fmt.Sprint(have) {
				for i := range want {
					if i >= len(have) || want[i] != have[i] {
						t.Fatalf("step %d:\nclient-go: %s\nkcache:    %v", i, want[i], have[i:])
					}
				}
				t.Fatalf("kcache has more steps: %v", have[len(want):])
			}
			if len(want) < 10 {
				t.Fatalf("only %d steps: %q", len(want), want)
			}
			t.Logf("%d identical steps, e.g. %s", len(want), want[len(want)-2])
		})
	}
}

// queueContainsClosed reports whether a rendered pop ended on the closed
// queue.
func queueContainsClosed(rendered string) bool {
	return strings.Contains(rendered, "manipulating with closed queue")
}
