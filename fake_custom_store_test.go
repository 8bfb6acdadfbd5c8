package cache

import (
	"errors"
	"fmt"
	"testing"
)

func TestFakeCustomStoreWithoutFuncsReturnsZeroValues(t *testing.T) {
	f := &FakeCustomStore{}
	results := []struct {
		name string
		got  []interface{}
	}{
		{"Add", []interface{}{f.Add(1)}},
		{"Update", []interface{}{f.Update(1)}},
		{"Delete", []interface{}{f.Delete(1)}},
		{"Replace", []interface{}{f.Replace([]interface{}{1}, "1")}},
		{"Resync", []interface{}{f.Resync()}},
		{"List", []interface{}{f.List() == nil}},
		{"ListKeys", []interface{}{f.ListKeys() == nil}},
	}
	for _, r := range results {
		if r.got[0] != nil && r.got[0] != true {
			t.Errorf("%s = %v, want the zero value", r.name, r.got[0])
		}
	}
	if item, exists, err := f.Get(1); item != nil || exists || err != nil {
		t.Errorf("Get = (%v, %v, %v)", item, exists, err)
	}
	if item, exists, err := f.GetByKey("k"); item != nil || exists || err != nil {
		t.Errorf("GetByKey = (%v, %v, %v)", item, exists, err)
	}
}

func TestFakeCustomStoreCallsEachFuncWithItsArguments(t *testing.T) {
	var calls []string
	record := func(format string, args ...interface{}) { calls = append(calls, fmt.Sprintf(format, args...)) }
	boom := errors.New("boom")
	f := &FakeCustomStore{
		AddFunc:      func(obj interface{}) error { record("add %v", obj); return boom },
		UpdateFunc:   func(obj interface{}) error { record("update %v", obj); return boom },
		DeleteFunc:   func(obj interface{}) error { record("delete %v", obj); return boom },
		ListFunc:     func() []interface{} { record("list"); return []interface{}{1} },
		ListKeysFunc: func() []string { record("listkeys"); return []string{"k"} },
		GetFunc: func(obj interface{}) (interface{}, bool, error) {
			record("get %v", obj)
			return obj, true, boom
		},
		GetByKeyFunc: func(key string) (interface{}, bool, error) {
			record("getbykey %v", key)
			return key, true, boom
		},
		ReplaceFunc: func(list []interface{}, rv string) error { record("replace %v %s", list, rv); return boom },
		ResyncFunc:  func() error { record("resync"); return boom },
	}
	errs := []error{f.Add(1), f.Update(2), f.Delete(3), f.Replace([]interface{}{4}, "5"), f.Resync()}
	for i, err := range errs {
		if err != boom {
			t.Errorf("call %d returned %v, want the func's error", i, err)
		}
	}
	if l := f.List(); len(l) != 1 || l[0] != 1 {
		t.Errorf("List = %v", l)
	}
	if k := f.ListKeys(); len(k) != 1 || k[0] != "k" {
		t.Errorf("ListKeys = %v", k)
	}
	if item, ok, err := f.Get(6); item != 6 || !ok || err != boom {
		t.Errorf("Get = (%v, %v, %v)", item, ok, err)
	}
	if item, ok, err := f.GetByKey("seven"); item != "seven" || !ok || err != boom {
		t.Errorf("GetByKey = (%v, %v, %v)", item, ok, err)
	}
	want := "[add 1 update 2 delete 3 replace [4] 5 resync list listkeys get 6 getbykey seven]"
	if got := fmt.Sprint(calls); got != want {
		t.Fatalf("calls = %s, want %s", got, want)
	}
}

func TestFakeCustomStoreBookmarkAndLastSyncResourceVersionCallTheirFuncs(t *testing.T) {
	var marks []string
	f := &FakeCustomStore{}
	f.Bookmark("1") // no func: does nothing
	if rv := f.LastStoreSyncResourceVersion(); rv != "" {
		t.Fatalf("LastStoreSyncResourceVersion without func = %q, want empty", rv)
	}
	f.BookmarkFunc = func(rv string) { marks = append(marks, rv) }
	f.LastStoreSyncResourceVersionFunc = func() string { return "42" }
	var s Store = f
	s.Bookmark("7")
	if got := fmt.Sprint(marks); got != "[7]" {
		t.Errorf("bookmarks = %s, want [7]", got)
	}
	if rv := s.LastStoreSyncResourceVersion(); rv != "42" {
		t.Errorf("LastStoreSyncResourceVersion = %q, want 42", rv)
	}
}
