package fastlw

import (
	"bytes"
	"testing"
)

// cutAsItArrives cuts body with a jsonListCut fed in pieces of size bytes,
// and returns the skeleton, copies of the items it handed out and their
// offsets; ok is whether the cut took the page whole.
func cutAsItArrives(body []byte, size int) (skeleton []byte, items [][]byte, offsets []int, ok bool) {
	var cut jsonListCut
	cut.beforeItems = func() bool { return true }
	cut.items = func(item []byte, at int) bool {
		items = append(items, bytes.Clone(item))
		offsets = append(offsets, at)
		return true
	}
	for from := 0; from < len(body); from += size {
		cut.feed(body[from:min(from+size, len(body))])
	}
	ok = cut.end()
	return cut.skeleton, items, offsets, ok
}

// requireCutIsTheSplit checks that the cut of body in pieces of size
// takes the page exactly when splitJSONList does, with the same skeleton
// byte for byte and the same items, at the same offsets.
func requireCutIsTheSplit(t *testing.T, body []byte, size int) {
	t.Helper()
	skeleton, items, offsets, ok := cutAsItArrives(body, size)
	page, split := splitJSONList(body)
	if ok != split {
		t.Fatalf("%q in pieces of %d: cut %v, split %v", body, size, ok, split)
	}
	if !ok {
		return
	}
	if !bytes.Equal(skeleton, page.skeleton()) {
		t.Fatalf("%q in pieces of %d: skeleton %q, split's %q", body, size, skeleton, page.skeleton())
	}
	if len(items) != page.len() {
		t.Fatalf("%q in pieces of %d: %d items, split's %d", body, size, len(items), page.len())
	}
	for i, item := range items {
		if want := body[page.starts[i]:page.ends[i]]; !bytes.Equal(item, want) || offsets[i] != page.starts[i] {
			t.Fatalf("%q in pieces of %d: item %d %q at %d, split's %q at %d", body, size, i, item, offsets[i], want, page.starts[i])
		}
	}
}

// pagesCutOrRefused are list bodies the splitter cuts or refuses, each
// for one reason.
var pagesCutOrRefused = []string{
	`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"a":1},{"b":[2,3]}]}`,
	" {\n \"kind\" : \"PodList\" ,\t\"items\" : [ {\"a\":1} ,\r\n {} ] , \"metadata\":{} } \n",
	`{"items":[{"x":"y"}],"metadata":{"continue":"c1"},"kind":"PodList"}`,
	`{"kind":"L","items":[{"s":"]}\"{["},{"t":"\\"}]}`,
	`{"kind":"L","items":[1,"two",null,[true]]}`,
	`{"items":[1x,2]}`, `{"items":[1],"kind":tru}`, `{"kind":12,"items":[3]}`, `{"kind":12 ,"items":[3 ]}`,
	`[{"items":[1]}]`, `{"kind":"Status","code":410}`, `{"kind":"PodList","items":[]}`, `{}`, ``, ` `,
	`{"items":[1],"items":[2]}`, `{"it\u0065ms":[1]}`, `{"a\"b":1,"items":[1]}`, "{\"k\x7f\":1,\"items\":[1]}",
	`{"items":[1]} {}`, `{"items":[1]}x`, `{"items":[{} {}]}`, `{"items":[{},]}`, `{"items":[1],}`,
	`{"items":[{"a":[1}]]}`, `{"items":[{"a":"b}]}`, `{"items" [1]}`, `{"items":{"a":1}}`, `{"items":[1]`,
	`{"items":[1],"kind":"L"`, `{"kind":"L"}`, `{"kind"`, `{"items":[1],"metadata":{"a":[}}`,
}

// TestAPageCutAsItArrivesIsCutAsTheWholePageIsSplit pins that the cut of
// a page as it arrives takes, in pieces of any size, exactly the pages the
// whole-body splitter takes, with its skeleton and items.
func TestAPageCutAsItArrivesIsCutAsTheWholePageIsSplit(t *testing.T) {
	bodies := append([][]byte{realisticPage(t, 3)}, nil)
	for _, body := range pagesCutOrRefused {
		bodies = append(bodies, []byte(body))
	}
	for _, body := range bodies {
		for _, size := range []int{1, 2, 7, 4096, max(1, len(body))} {
			requireCutIsTheSplit(t, body, size)
		}
	}
}

// FuzzAPageCutAsItArrivesIsCutAsTheWholePageIsSplit is the same over
// arbitrary bodies and piece sizes.
func FuzzAPageCutAsItArrivesIsCutAsTheWholePageIsSplit(f *testing.F) {
	f.Add(realisticPage(f, 2), uint16(1))
	for i, body := range pagesCutOrRefused {
		f.Add([]byte(body), uint16(i%5+1))
	}
	f.Fuzz(func(t *testing.T, body []byte, size uint16) {
		requireCutIsTheSplit(t, body, max(1, int(size)))
	})
}
