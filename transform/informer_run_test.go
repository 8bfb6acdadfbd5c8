package transform_test

import (
	"context"
	"sync"
	"testing"

	kcache "github.com/kcache-go/cache"
)

// runUntilSynced runs informer and returns once it has synced, with the
// function that stops it and waits for its goroutine (call it before the
// informer's source shuts down).
func runUntilSynced(t *testing.T, informer kcache.SharedIndexInformer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); informer.RunWithContext(ctx) }()
	stop = func() { cancel(); wg.Wait() }
	if !kcache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		stop()
		t.Fatal("informer did not sync")
	}
	return stop
}
