package framework

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWatchesOpenedWhileOthersAddSeeEveryLaterChangeOnceInOrder runs
// adders, modifiers and deleters of distinct objects concurrently with
// watches opened at the version a List just returned; each watch must see
// exactly the changes after that version, in version order, each once.
func TestWatchesOpenedWhileOthersAddSeeEveryLaterChangeOnceInOrder(t *testing.T) {
	const writers, perWriter, watchers = 4, 50, 8
	f := NewFakeControllerSource()
	// NB: a watch from "0" fails as too old once anything was recorded
	// (client-go's fake does the same), so the list never says "0".
	f.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "seed"}})
	// opened is a watch: the goroutine index and the version it started at.
	type opened struct{ index, from int }
	var (
		mu   sync.Mutex
		ws   []opened
		wg   sync.WaitGroup
		read sync.WaitGroup
		got  = make([][]int, watchers)
	)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < perWriter; j++ {
				p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("w%d-%d", i, j)}}
				f.Add(p)
				f.Modify(p.DeepCopy())
				f.Delete(p.DeepCopy())
			}
		}()
	}
	for i := 0; i < watchers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			list, err := f.List(metav1.ListOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			rv := list.(*v1.List).ResourceVersion
			w, err := f.Watch(metav1.ListOptions{ResourceVersion: rv})
			if err != nil {
				t.Error(err)
				return
			}
			from, _ := strconv.Atoi(rv)
			mu.Lock()
			ws = append(ws, opened{index: i, from: from})
			mu.Unlock()
			read.Add(1)
			go func() {
				defer read.Done()
				for e := range w.ResultChan() {
					n, _ := strconv.Atoi(e.Object.(*v1.Pod).ResourceVersion)
					got[i] = append(got[i], n)
				}
			}()
		}()
	}
	wg.Wait()
	total := 1 + writers*perWriter*3
	f.Shutdown()
	read.Wait()
	for _, o := range ws {
		from, i := o.from, o.index
		if len(got[i]) != total-from {
			t.Errorf("watch %d from %d got %d events, want %d", i, from, len(got[i]), total-from)
			continue
		}
		for k, n := range got[i] {
			if n != from+k+1 {
				t.Errorf("watch %d from %d: event %d has version %d, want %d", i, from, k, n, from+k+1)
				break
			}
		}
	}
}
