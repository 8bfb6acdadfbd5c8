package fastlw

import (
	"reflect"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// decodeItems decodes the items of page into list's Items field, in page
// order: the items are cut into runs (chunks), at most Workers chunks decode
// at once, each into its own list, whose items land in their range of one
// slice sized for the page. It reports false, leaving list as it was, when
// list has no settable Items slice or a chunk does not decode to a list of
// list's type holding exactly its items. A worker reuses its chunk buffer
// when the decoder copies its input (copiesInput).
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
	reuse := copiesInput(decoder)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(lw.cfg.Workers, chunks) {
		wg.Go(func() {
			var buf []byte
			if reuse {
				buf = takeChunkBuffer()
				defer func() { giveChunkBuffer(buf) }()
			}
			for c := range next {
				from, to := c*size, min(c*size+size, n)
				if failed.Load() {
					continue
				}
				buf = page.appendChunk(buf[:0], from, to)
				if !decodeChunk(decoder, buf, all.Slice(from, to), list, reuse) {
					failed.Store(true)
					continue
				}
				if !reuse {
					buf = nil
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

// decodeChunk decodes one chunk and makes sure into holds its items,
// reporting whether it decoded to a list of like's type with exactly
// into.Len() items. With inPlace (a decoder that copiesInput: client-go's
// typed codecs) it decodes into a new list of like's type whose Items is
// into emptied, so that a decoder that appends to the slice it is given
// (encoding/json does) fills into in place instead of a slice of its own.
func decodeChunk(decoder runtime.Decoder, data []byte, into reflect.Value, like runtime.Object, inPlace bool) bool {
	var target runtime.Object
	if inPlace {
		list := reflect.New(reflect.TypeOf(like).Elem())
		list.Elem().FieldByName("Items").Set(into.Slice3(0, 0, into.Len()))
		target = list.Interface().(runtime.Object)
	}
	obj, _, err := decoder.Decode(data, nil, target)
	if err != nil || reflect.TypeOf(obj) != reflect.TypeOf(like) {
		return false
	}
	items, ok := itemsField(obj)
	if !ok || items.Len() != into.Len() {
		return false
	}
	if items.Pointer() != into.Pointer() {
		reflect.Copy(into, items)
	}
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
