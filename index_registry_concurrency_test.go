package cache

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// TestIndicesAddedToTheIndexersMapDirectlyAreBuiltOnceAndStayExactWhileReadersWritersAndAddIndexersRace
// adds two IndexFuncs to the caller's map while objects are stored, then,
// from several goroutines at once, reads them (each read method, so that
// several reads race to build the same index: the read lock is dropped
// and the write lock taken), writes (Add, Update, Delete, Replace) and
// adds more indices with AddIndexers. The race detector finds nothing and,
// once all are done, each index holds exactly the stored objects it
// should.
func TestIndicesAddedToTheIndexersMapDirectlyAreBuiltOnceAndStayExactWhileReadersWritersAndAddIndexersRace(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	indexers := Indexers{"app": registryApp}
	s := NewIndexer(MetaNamespaceKeyFunc, indexers)
	for i := 0; i < 50; i++ {
		s.Add(registryPod("p"+strconv.Itoa(i), "x"))
	}
	indexers["letter"], indexers["letter2"] = registryFirstLetter, registryFirstLetter
	var wg sync.WaitGroup
	for r := 0; r < 4; r++ {
		wg.Go(func() {
			for i := 0; i < 50; i++ {
				registryReadOnce(s, (i+r)%4)
			}
		})
	}
	wg.Go(func() {
		for i := 0; i < 50; i++ {
			s.Update(registryPod("p"+strconv.Itoa(i), "y"))
			s.Add(registryPod("q"+strconv.Itoa(i), "y"))
			s.Delete(registryPod("q"+strconv.Itoa(i), "y"))
		}
	})
	wg.Go(func() {
		for i := 0; i < 5; i++ {
			s.Replace([]interface{}{registryPod("p1", "x"), registryPod("p2", "z"), registryPod("r", "z")}, strconv.Itoa(i))
		}
	})
	wg.Go(func() {
		for i := 0; i < 5; i++ {
			if err := s.AddIndexers(Indexers{"added-" + strconv.Itoa(i): registryApp}); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	for _, name := range []string{"letter", "letter2"} {
		var want []string
		for _, key := range s.ListKeys() {
			if key[len("ns/")] == 'p' {
				want = append(want, key)
			}
		}
		slices.Sort(want)
		if got := registryKeys(t, s, name, "p"); !slices.Equal(got, want) {
			t.Errorf("IndexKeys(%s, p) = %v, want the stored p objects %v", name, got, want)
		}
	}
}

// registryReadOnce calls one of the four index reads on letter or letter2.
func registryReadOnce(s Indexer, which int) {
	switch which {
	case 0:
		s.ByIndex("letter", "p")
	case 1:
		s.IndexKeys("letter2", "p")
	case 2:
		s.Index("letter", registryPod("p1", "x"))
	default:
		s.ListIndexFuncValues("letter2")
	}
}
