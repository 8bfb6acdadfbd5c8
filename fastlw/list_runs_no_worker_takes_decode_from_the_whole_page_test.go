package fastlw

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestRunsNoWorkerTakesWhileThePageArrivesDecodeFromTheWholePage feeds a
// realistic page of nine pods, in pieces of every size, to a streamedPage
// of one worker and runs of one item whose worker is held by the early
// transform on the first item: the reader must go on without waiting (the
// feeding returns), deferring the runs that find the worker busy, and the
// page must assemble, from the whole body, to the page decoded whole.
func TestRunsNoWorkerTakesWhileThePageArrivesDecodeFromTheWholePage(t *testing.T) {
	lw := clientsetListerWatcher(t)
	decoder, _, ok := lw.pageDecoder(runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON decoder")
	}
	body := realisticPage(t, 9)
	want, err := runtime.Decode(decoder, body)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 7, 512, len(body)} {
		release := make(chan struct{})
		held := false
		hold := func(obj interface{}) (interface{}, error) {
			if !held {
				held = true // only the one worker calls it
				<-release
			}
			return obj, nil
		}
		page := newStreamedPage(decoder, 1, 2, hold)
		for from := 0; from < len(body); from += size {
			page.feed(body[from:min(from+size, len(body))])
		}
		page.end()
		deferred := 0
		for _, run := range page.runs {
			if run.deferred {
				deferred++
			}
		}
		close(release)
		skeleton, whole := page.skeleton()
		if !whole || deferred == 0 {
			t.Fatalf("pieces of %d: whole %v, %d of %d runs deferred; want a whole page with deferred runs", size, whole, deferred, len(page.runs))
		}
		list, err := runtime.Decode(decoder, skeleton)
		if err != nil {
			t.Fatal(err)
		}
		if !page.assemble(list, body) || !reflect.DeepEqual(list, want) {
			t.Fatalf("pieces of %d: the page assembled to\n%#v\nwant\n%#v", size, list, want)
		}
	}
}
