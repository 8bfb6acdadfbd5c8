package cache

import (
	"strconv"
	"sync"
	"testing"
)

// TestMutationCacheConcurrentMutationsNeverReplaceANewerOne records
// versions 2..N of one pod from several goroutines in scrambled order
// while readers look it up (by key and by index): each reader sees the
// version only grow, and the newest version wins at the end.
func TestMutationCacheConcurrentMutationsNeverReplaceANewerOne(t *testing.T) {
	const writers, perWriter, readers = 4, 200, 4
	for _, includeAdds := range []bool{false, true} {
		f := newMutationFixture(includeAdds)
		if err := f.backing.Add(mutatedPod("a", "1", "x")); err != nil {
			t.Fatal(err)
		}
		var wg, readersWG sync.WaitGroup
		stop := make(chan struct{})
		for r := 0; r < readers; r++ {
			readersWG.Add(1)
			go func() {
				defer readersWG.Done()
				last := 0
				for {
					select {
					case <-stop:
						return
					default:
					}
					obj, exists, err := f.cache.GetByKey("ns/a")
					if err != nil || !exists {
						t.Errorf("GetByKey: %v %v", exists, err)
						return
					}
					rv, _ := strconv.Atoi(obj.(interface{ GetResourceVersion() string }).GetResourceVersion())
					if rv < last {
						t.Errorf("includeAdds=%v: version went back from %d to %d", includeAdds, last, rv)
						return
					}
					last = rv
					if _, err := f.cache.ByIndex("by", "x"); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perWriter; i++ {
					// versions 2.. spread over the writers, each writer going
					// down then up so that the order is scrambled
					v := 2 + w + writers*((i*7)%perWriter)
					f.cache.Mutation(mutatedPod("a", strconv.Itoa(v), "x"))
				}
			}()
		}
		wg.Wait()
		close(stop)
		readersWG.Wait()
		want := strconv.Itoa(2 + writers - 1 + writers*(perWriter-1))
		obj, _, _ := f.cache.GetByKey("ns/a")
		if got := obj.(interface{ GetResourceVersion() string }).GetResourceVersion(); got != want {
			t.Errorf("includeAdds=%v: newest is %s, want %s", includeAdds, got, want)
		}
	}
}

// TestMutationCacheByIndexWithIncludeAddsRacesNoAddIndexersOnItsIndexer
// reads ByIndex with includeAdds (which looks up the index's function in
// the indexer's Indexers map) while AddIndexers writes to that map: the
// lookup is made under the store's lock, so the race detector finds no
// race and the map is never read during a write.
func TestMutationCacheByIndexWithIncludeAddsRacesNoAddIndexersOnItsIndexer(t *testing.T) {
	f := newMutationFixture(true)
	f.cache.Mutation(mutatedPod("only-recorded", "5", "x"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if err := f.backing.AddIndexers(Indexers{"added-" + strconv.Itoa(i): byLabelL}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 200; i++ {
		if _, err := f.cache.ByIndex("by", "x"); err != nil {
			t.Fatal(err)
		}
	}
	<-done
}
