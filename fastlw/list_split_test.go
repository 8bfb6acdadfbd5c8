package fastlw

import (
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestSplitJSONListCutsWellFormedListsAndRefusesTheRest pins what the JSON
// splitter accepts (the skeleton and every chunk are then valid JSON
// holding the page's items) and what it leaves to the plain path.
func TestSplitJSONListCutsWellFormedListsAndRefusesTheRest(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		items int // 0: refused
	}{
		{name: "a compact list", body: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"a":1},{"b":[2,3]}]}`, items: 2},
		{name: "whitespace everywhere", body: " {\n \"kind\" : \"PodList\" ,\t\"items\" : [ {\"a\":1} ,\r\n {} ] , \"metadata\":{} } \n", items: 2},
		{name: "metadata after the items", body: `{"items":[{"x":"y"}],"metadata":{"continue":"c1"},"kind":"PodList"}`, items: 1},
		{name: "brackets and escaped quotes inside strings", body: `{"kind":"L","items":[{"s":"]}\"{["},{"t":"\\"}]}`, items: 2},
		{name: "items that are not objects", body: `{"kind":"L","items":[1,"two",null,[true]]}`, items: 4},
		{name: "not an object", body: `[{"items":[1]}]`},
		{name: "no items", body: `{"kind":"Status","code":410}`},
		{name: "empty items", body: `{"kind":"PodList","items":[]}`},
		{name: "a duplicate key", body: `{"items":[1],"items":[2]}`},
		{name: "an escaped key", body: `{"it\u0065ms":[1]}`},
		{name: "trailing bytes", body: `{"items":[1]} {}`},
		{name: "a missing comma between items", body: `{"items":[{} {}]}`},
		{name: "a trailing comma", body: `{"items":[{},]}`},
		{name: "mismatched brackets in an item", body: `{"items":[{"a":[1}]]}`},
		{name: "an unterminated string", body: `{"items":[{"a":"b}]}`},
		{name: "a missing colon", body: `{"items" [1]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, ok := splitJSONList([]byte(tt.body))
			if ok != (tt.items > 0) {
				t.Fatalf("split = %v, want %v", ok, tt.items > 0)
			}
			if !ok {
				return
			}
			requireJSONSplitFaithful(t, []byte(tt.body), page, tt.items)
		})
	}
}

// TestAJSONListTheSplitterCannotProveInvalidIsRefusedByTheDecodeOfAChunk
// pins what the splitter leaves to the decoder (it checks structure, not
// what strings hold): the page is cut, and a chunk holding the bad item is
// not valid JSON, so the serializer refuses it and the page goes to the
// plain path.
func TestAJSONListTheSplitterCannotProveInvalidIsRefusedByTheDecodeOfAChunk(t *testing.T) {
	body := []byte("{\"kind\":\"L\",\"items\":[{\"a\":1},{\"a\":\"\x01\"}]}")
	page, ok := splitJSONList(body)
	if !ok || page.len() != 2 {
		t.Fatalf("split = %v, want the page cut into its 2 items", ok)
	}
	if !json.Valid(page.appendChunk(nil, 0, 1)) || json.Valid(page.appendChunk(nil, 1, 2)) {
		t.Fatal("want the first chunk valid and the one with the control byte invalid")
	}
}

// FuzzAJSONListIsCutIntoChunksThatHoldThePageOrRefuseToDecode pins the
// splitter's soundness on arbitrary bodies: a valid page is cut into a
// skeleton and chunks that hold exactly its items; an invalid page that is
// cut, in chunks of any size, has a skeleton or a chunk that is not valid
// JSON (the decoder, which validates its whole input, refuses it).
func FuzzAJSONListIsCutIntoChunksThatHoldThePageOrRefuseToDecode(f *testing.F) {
	f.Add(realisticPage(f, 2))
	for _, body := range []string{
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"a":1},{"b":[2,3]}]}`,
		`{"kind":"L","items":[{"s":"]}\"{["},{"t":"\\"}]}`, `{"items":[{"a":[1}]]}`, `{"items":[1,"two",null,[true]]}`,
		`{"items":[1x,2]}`, `{"items":[{"a":1},{"a":"\u00"}],"metadata":{}}`, `{"items":[1],"kind":tru}`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, ok := splitJSONList(body)
		if !ok {
			return
		}
		if json.Valid(body) {
			requireJSONSplitFaithful(t, body, page, page.len())
			return
		}
		for _, size := range []int{1, 2, page.len()} {
			if splitPiecesAllValid(page, size) {
				t.Fatalf("invalid %q cut into valid pieces (chunks of %d)", body, size)
			}
		}
	})
}

// splitPiecesAllValid reports whether the skeleton and every chunk of size
// items are valid JSON.
func splitPiecesAllValid(page *jsonList, size int) bool {
	if !json.Valid(page.skeleton()) {
		return false
	}
	for from := 0; from < page.len(); from += size {
		if !json.Valid(page.appendChunk(nil, from, min(from+size, page.len()))) {
			return false
		}
	}
	return true
}

// requireJSONSplitFaithful checks that the skeleton is the body with no
// items and that the chunks, in order, hold the body's items.
func requireJSONSplitFaithful(t *testing.T, body []byte, page *jsonList, items int) {
	t.Helper()
	var whole, skeleton map[string]json.RawMessage
	if err := json.Unmarshal(body, &whole); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(page.skeleton(), &skeleton); err != nil || string(skeleton["items"]) != "[]" {
		t.Fatalf("skeleton %s: %v", page.skeleton(), err)
	}
	var want []any
	json.Unmarshal(whole["items"], &want)
	if page.len() != items || len(want) != items {
		t.Fatalf("split found %d items, want %d", page.len(), items)
	}
	var got []any
	for i := 0; i < items; i += 2 {
		var chunk struct {
			Kind  json.RawMessage `json:"kind"`
			Items []any           `json:"items"`
		}
		if err := json.Unmarshal(page.appendChunk(nil, i, min(i+2, items)), &chunk); err != nil {
			t.Fatalf("chunk %s: %v", page.appendChunk(nil, i, min(i+2, items)), err)
		}
		if string(chunk.Kind) != string(whole["kind"]) {
			t.Fatalf("chunk kind %s, want %s", chunk.Kind, whole["kind"])
		}
		got = append(got, chunk.Items...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks hold %v, want %v", got, want)
	}
}

// TestSplitProtobufListRefusesWhatItCannotCut pins the protobuf splitter's
// refusals: each leaves the page to the plain path.
func TestSplitProtobufListRefusesWhatItCannotCut(t *testing.T) {
	item := protowire.AppendBytes(protowire.AppendTag(nil, listItemsField, protowire.BytesType), []byte{})
	meta := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{})
	envelope := func(raw []byte, extra ...byte) []byte {
		out := append(append([]byte{}, protobufMagic...), extra...)
		return protowire.AppendBytes(protowire.AppendTag(out, envelopeRawField, protowire.BytesType), raw)
	}
	encoding := protowire.AppendString(protowire.AppendTag(nil, envelopeContentEncodingField, protowire.BytesType), "gzip")
	tests := []struct {
		name string
		body []byte
		ok   bool
	}{
		{name: "metadata then two items", body: envelope(append(append(meta, item...), item...)), ok: true},
		{name: "no magic", body: envelope(append(meta, item...))[1:]},
		{name: "no items", body: envelope(meta)},
		{name: "items around another field", body: envelope(append(append(append([]byte{}, item...), meta...), item...))},
		{name: "a content encoding", body: envelope(append(meta, item...), encoding...)},
		{name: "a truncated record", body: envelope(append(meta, item[:1]...))},
		{name: "a truncated envelope", body: envelope(append(meta, item...))[:6]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := splitProtobufList(tt.body); ok != tt.ok {
				t.Fatalf("split = %v, want %v", ok, tt.ok)
			}
		})
	}
}
