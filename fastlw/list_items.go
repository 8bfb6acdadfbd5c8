package fastlw

import (
	"reflect"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// decodeItems decodes the items of page into list's Items field, in page
// order: the items are cut into runs (chunks), at most Workers chunks decode
// at once, each into its own list, and each chunk's items are copied into
// its range of one slice sized for the page. It reports false, leaving list
// as it was, when list has no settable Items slice or a chunk does not
// decode to a list of list's type holding exactly its items.
func (lw *ListerWatcher) decodeItems(decoder runtime.Decoder, page splitList, list runtime.Object) bool {
	items, ok := itemsField(list)
	if !ok {
		return false
	}
	n := page.len()
	all := reflect.MakeSlice(items.Type(), n, n)
	size := lw.chunkSize(n)
	chunks := (n + size - 1) / size
	next := make(chan int, chunks)
	for c := range chunks {
		next <- c
	}
	close(next)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(lw.cfg.Workers, chunks) {
		wg.Go(func() {
			for c := range next {
				from, to := c*size, min(c*size+size, n)
				if failed.Load() || !decodeChunk(decoder, page.chunk(from, to), all.Slice(from, to), list) {
					failed.Store(true)
					continue
				}
				earlyTransform(lw.cfg.Transform).items(all.Slice(from, to))
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return false
	}
	items.Set(all)
	return true
}

// decodeChunk decodes one chunk and copies its items into into, reporting
// whether it decoded to a list of like's type with exactly into.Len() items.
func decodeChunk(decoder runtime.Decoder, data []byte, into reflect.Value, like runtime.Object) bool {
	obj, err := runtime.Decode(decoder, data)
	if err != nil || reflect.TypeOf(obj) != reflect.TypeOf(like) {
		return false
	}
	items, ok := itemsField(obj)
	if !ok || items.Len() != into.Len() {
		return false
	}
	reflect.Copy(into, items)
	return true
}

// itemsField returns the settable Items slice field of a list object
// (a pointer to a struct, as the typed lists and UnstructuredList are).
func itemsField(list runtime.Object) (reflect.Value, bool) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice || !items.CanSet() {
		return reflect.Value{}, false
	}
	return items, true
}

// chunkSize returns the number of items per chunk for a page of n items:
// about four chunks per worker, so the workers stay busy when items differ
// in size, and at most MaxInFlight/Workers items, so that no more than
// MaxInFlight items decode at once.
func (lw *ListerWatcher) chunkSize(n int) int {
	size := (n + 4*lw.cfg.Workers - 1) / (4 * lw.cfg.Workers)
	return max(1, min(size, lw.cfg.MaxInFlight/lw.cfg.Workers))
}
