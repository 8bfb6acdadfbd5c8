package debug

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/obstest"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestNamesAndResourcesAreEscapedOnTheHTMLPage(t *testing.T) {
	const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`
	name, err := cache.NewInformerName("debug-xss" + evil)
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	inf := cache.NewSharedIndexInformerWithOptions(obstest.NewSource("ns", 1), &v1.Pod{}, cache.SharedIndexInformerOptions{
		Identifier: name.WithResource(schema.GroupVersionResource{Group: evil, Version: "v1", Resource: "pods" + evil}),
	})
	if _, err := inf.AddEventHandler(&obstest.Counter{}); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, http.MethodGet, "")
	for _, raw := range []string{"<script", "<img", `"><script`} {
		if strings.Contains(body, raw) {
			t.Errorf("the page carries %q unescaped", raw)
		}
	}
	if !strings.Contains(body, "debug-xss") {
		t.Error("the informer is not on the page")
	}
}

func TestThePageIsServedWhileInformersStartStopAndChangeHandlers(t *testing.T) {
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for i := range 4 {
		wg.Go(func() {
			for j := 0; ctx.Err() == nil && j < 20; j++ {
				name, err := cache.NewInformerName(fmt.Sprintf("debug-churn-%d-%d", i, j))
				if err != nil {
					t.Error(err)
					return
				}
				inf := cache.NewSharedIndexInformerWithOptions(obstest.NewSource("ns", 5), &v1.Pod{}, cache.SharedIndexInformerOptions{
					Identifier: name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
					Indexers:   cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
				})
				reg, _ := inf.AddEventHandler(&obstest.Counter{})
				runCtx, stop := context.WithCancel(ctx)
				var run sync.WaitGroup
				if j%3 != 0 { // every third is never started
					run.Go(func() { inf.RunWithContext(runCtx) })
				}
				reg2, _ := inf.AddEventHandler(&churnCounter{})
				_ = inf.RemoveEventHandler(reg2)
				_ = inf.RemoveEventHandler(reg)
				_ = inf.AddIndexers(cache.Indexers{fmt.Sprint("x", j): cache.MetaNamespaceIndexFunc})
				stop()
				run.Wait()
				name.Release()
			}
		})
	}
	for range 50 {
		_ = Take()
		get(t, http.MethodGet, "")
		get(t, http.MethodGet, "?format=json")
	}
	cancel()
	wg.Wait()
}

// churnCounter is a second handler type for the churn test.
type churnCounter struct{ obstest.Counter }
