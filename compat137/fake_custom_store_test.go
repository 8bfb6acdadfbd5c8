package compat137

import (
	"testing"

	kc "github.com/kcache-go/cache"
	cg "k8s.io/client-go/tools/cache"
)

// playFakeCustomStore calls every method of a store whose func fields are
// all nil, then of one whose Bookmark and LastStoreSyncResourceVersion
// funcs record their calls.
func playFakeCustomStore(s, withFuncs storeCalls) []string {
	var r recorder
	for i, st := range []storeCalls{s, withFuncs} {
		r.logf("store %d: add %v update %v delete %v", i, st.Store.Add(1), st.Store.Update(1), st.Store.Delete(1))
		item, exists, err := st.Store.Get(1)
		r.logf("store %d: get %v %v %v", i, item, exists, err)
		item, exists, err = st.Store.GetByKey("k")
		r.logf("store %d: get by key %v %v %v", i, item, exists, err)
		r.logf("store %d: list nil=%v keys nil=%v replace %v resync %v", i, st.Store.List() == nil, st.Store.ListKeys() == nil,
			st.Store.Replace(nil, "1"), st.Store.Resync())
		r.logf("store %d: %s", i, capture(func() { st.Store.Bookmark("7") }))
		r.logf("store %d: last sync %q", i, st.Store.LastStoreSyncResourceVersion())
	}
	return r.lines
}

// storeCalls is the part of Store both FakeCustomStores share.
type storeCalls struct {
	Store interface {
		Add(any) error
		Update(any) error
		Delete(any) error
		Get(any) (any, bool, error)
		GetByKey(string) (any, bool, error)
		List() []any
		ListKeys() []string
		Replace([]any, string) error
		Resync() error
		Bookmark(string)
		LastStoreSyncResourceVersion() string
	}
}

func TestFakeCustomStoreWithAndWithoutFuncsAnswersAsClientGo(t *testing.T) {
	var c, k recorder
	cs := &cg.FakeCustomStore{BookmarkFunc: func(rv string) { c.logf("bookmark %s", rv) }, LastStoreSyncResourceVersionFunc: func() string { return "9" }}
	ks := &kc.FakeCustomStore{BookmarkFunc: func(rv string) { k.logf("bookmark %s", rv) }, LastStoreSyncResourceVersionFunc: func() string { return "9" }}
	var _ cg.Store = cs
	var _ kc.Store = ks
	cl := playFakeCustomStore(storeCalls{&cg.FakeCustomStore{}}, storeCalls{cs})
	kl := playFakeCustomStore(storeCalls{&kc.FakeCustomStore{}}, storeCalls{ks})
	compareTraces(t, append(cl, c.lines...), append(kl, k.lines...))
}
