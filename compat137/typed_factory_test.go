package compat137

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kcache-go/cache/clientgo"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	cg "k8s.io/client-go/tools/cache"
)

type typedFactoryConstructor func(kubernetes.Interface, time.Duration, ...informers.SharedInformerOption) informers.SharedInformerFactory

// playTypedFactory asks a v0.37 typed factory for the pods informer (by its
// accessor, or through InformerFor with a typed constructor), syncs it
// through the factory and renders what the informer, its typed interface
// and its lister show; kcache reports whether a kcache informer runs it.
func playTypedFactory(t *testing.T, newFactory typedFactoryConstructor, viaInformerFor bool) (trace string, kcache bool) {
	t.Helper()
	client, _ := newGapClient()
	f := newFactory(client, 0)
	var inf cg.SharedIndexInformer
	if viaInformerFor {
		inf = f.InformerFor(&v1.Pod{}, func(c kubernetes.Interface, resync time.Duration) cg.SharedIndexInformer {
			return coreinformers.NewFilteredPodInformer(c, "a", resync, cg.Indexers{}, nil)
		})
	} else {
		inf = f.Core().V1().Pods().Informer()
	}
	_, kcache = clientgo.KcacheInformer(inf)
	typed, isTyped := inf.(cg.TypedSharedIndexInformer[*v1.Pod])
	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.StartWithContext(ctx)
	synced := f.WaitForCacheSync(ctx.Done())
	keys := inf.GetStore().ListKeys()
	slices.Sort(keys)
	trace = fmt.Sprintf("informer %T, typed %v, synced %v, keys %v", inf, isTyped, synced, keys)
	if isTyped {
		typedKeys := typed.GetTypedIndexer().ListKeys()
		slices.Sort(typedKeys)
		trace += fmt.Sprintf(", typed keys %v", typedKeys)
	}
	if !viaInformerFor {
		pods, err := f.Core().V1().Pods().Lister().Pods("a").List(labels.Everything())
		trace += fmt.Sprintf(", lister: %d pods in a, %v", len(pods), err)
	}
	return trace, kcache
}

func TestTheTypedFactoryHandsOutKcacheInformersInV037sTypedWrapperAsClientGosFactoryWrapsItsOwn(t *testing.T) {
	for _, viaInformerFor := range []bool{false, true} {
		t.Run(fmt.Sprintf("InformerFor %v", viaInformerFor), func(t *testing.T) {
			want, _ := playTypedFactory(t, informers.NewSharedInformerFactoryWithOptions, viaInformerFor)
			got, kcache := playTypedFactory(t, clientgo.NewSharedInformerFactoryWithOptions, viaInformerFor)
			if got != want {
				t.Errorf("clientgo:\n %s\nclient-go:\n %s", got, want)
			}
			if !kcache {
				t.Error("the clientgo factory's informer is not a kcache informer")
			}
		})
	}
}
