package conformance

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/clientgo"
)

// TestInformerThroughTheClientGoViewGivesTheSameTraceAsClientGo plays every
// informer scenario, in every queue mode, against client-go's
// SharedIndexInformer and against a kcache informer seen through
// clientgo.NewSharedIndexInformer (client-go's interface, the way
// controller-runtime and generated factories hold it), and requires
// identical traces: notifications, cache and index contents, HasSynced of
// informer and registrations, errors, transform and source calls. Handlers
// registered through the view must receive client-go's
// DeletedFinalStateUnknown; a kcache tombstone reaching them shows in the
// trace as a wrong type.
func TestInformerThroughTheClientGoViewGivesTheSameTraceAsClientGo(t *testing.T) {
	informerCompareScenarios(t, informerBuildView, "the view", false)
}

// informerBuildView builds a kcache informer through the client-go view.
// It reuses the client-go adapter (the view has client-go's interface),
// only wrapping handlers to catch kcache tombstones.
func informerBuildView(lw *informerScriptedSource, resync time.Duration, indexers []string) informerUnderTest {
	idx := cache.Indexers{}
	for _, n := range indexers {
		idx[n] = informerIndexFuncs[n]
	}
	inf := clientgo.NewSharedIndexInformer(lw, &v1.Pod{}, resync, idx)
	if _, ok := clientgo.KcacheInformer(inf); !ok {
		panic("clientgo.NewSharedIndexInformer did not return a kcache informer")
	}
	return informerView{informerAdapter{informerWrapClientGo(inf)}}
}

// informerView is the client-go adapter with tombstone-type checking
// handlers.
type informerView struct{ informerAdapter }

func (a informerView) addHandler(r *informerRecorder, filter func(interface{}) bool, resync *time.Duration) (informerRegistration, error) {
	if resync == nil {
		return a.inf.add(informerTombstoneTypeCheck{r}, filter, nil)
	}
	return a.inf.add(informerTombstoneTypeCheck{r}, filter, &informerHandlerOptions{resync: resync})
}

// informerTombstoneTypeCheck forwards to the recorder, replacing a kcache
// tombstone (which a view must never deliver) with a value that renders as
// its own type name, so the trace differs from client-go's.
type informerTombstoneTypeCheck struct{ *informerRecorder }

// informerWrongTombstone stands for a kcache tombstone delivered through
// the view.
type informerWrongTombstone struct{}

func (c informerTombstoneTypeCheck) OnDelete(obj interface{}) {
	if _, wrong := obj.(kcache.DeletedFinalStateUnknown); wrong {
		obj = informerWrongTombstone{}
	}
	c.informerRecorder.OnDelete(obj)
}

// Format formats the check as the recorder, as the view formats handlers.
func (c informerTombstoneTypeCheck) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), c.informerRecorder)
}
