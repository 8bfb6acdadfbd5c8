package keyset

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/kcache-go/cache/internal/records"
)

// fuzzIDs is how many records the ids of the fuzzed sets name.
const fuzzIDs = 256

// blocksModel drives a Blocks and a plain map of Go maps with the same
// operations: each indexed value a set, taken, filled, emptied and
// released.
type blocksModel struct {
	t      *testing.T
	blocks Blocks
	recs   records.Table
	sets   map[string]*Set
	want   map[string]map[int32]bool
}

// newBlocksModel returns an empty model over fuzzIDs records, record i of
// key "k<i>" holding i.
func newBlocksModel(t *testing.T) *blocksModel {
	bm := &blocksModel{t: t, sets: map[string]*Set{}, want: map[string]map[int32]bool{}}
	for i := 0; i < fuzzIDs; i++ {
		bm.recs.Add(records.Plain("k"+strconv.Itoa(i)), i)
	}
	return bm
}

// apply runs one operation, two bytes: op's top 3 bits choose what to do,
// its low 3 bits the value, and arg the id (or, for a bulk insert, the
// first of 80 ids).
func (bm *blocksModel) apply(op, arg byte) {
	value := "v" + strconv.Itoa(int(op&7))
	id := int32(arg)
	s, ok := bm.sets[value]
	if !ok {
		s = bm.blocks.Take(value)
		bm.sets[value], bm.want[value] = s, map[int32]bool{}
	}
	want := bm.want[value]
	switch op >> 5 {
	case 0, 1, 2:
		if got := s.Insert(id); got == want[id] {
			bm.t.Fatalf("Insert(%d) into %s = %v with the id present %v", id, value, got, want[id])
		}
		want[id] = true
	case 3:
		for i := int32(0); i < 80; i++ {
			id := (id + i) % fuzzIDs
			if got := s.Insert(id); got == want[id] {
				bm.t.Fatalf("Insert(%d) into %s = %v with the id present %v", id, value, got, want[id])
			}
			want[id] = true
		}
	case 4, 5:
		if got := s.Remove(id); got != want[id] {
			bm.t.Fatalf("Remove(%d) from %s = %v with the id present %v", id, value, got, want[id])
		}
		delete(want, id)
	default:
		bm.blocks.Release(s)
		delete(bm.sets, value)
		delete(bm.want, value)
	}
}

// check fails the test unless every set holds exactly its model's ids, by
// every read, and the blocks' invariants hold.
func (bm *blocksModel) check() {
	if err := bm.blocks.Verify(); err != nil {
		bm.t.Fatal(err)
	}
	for value, s := range bm.sets {
		want := bm.want[value]
		if *bm.blocks.ValueAt(s.Num()) != value || bm.blocks.At(s.Num()) != s {
			bm.t.Fatalf("set of %s, numbered %d, is not at its number under its value", value, s.Num())
		}
		var ids, wantIDs []int32
		s.ForEach(func(id int32) { ids = append(ids, id) })
		for id := range want {
			wantIDs = append(wantIDs, id)
		}
		slices.Sort(ids)
		slices.Sort(wantIDs)
		if s.Len() != len(want) || !slices.Equal(ids, wantIDs) {
			bm.t.Fatalf("set of %s holds %v (Len %d), want %v", value, ids, s.Len(), wantIDs)
		}
		bm.checkReads(s, wantIDs)
	}
}

// checkReads fails the test unless s, whose members are want (sorted),
// answers Has, AppendKeys and AppendObjects as they say.
func (bm *blocksModel) checkReads(s *Set, want []int32) {
	var wantKeys, keys []string
	var objects []int
	for _, id := range want {
		wantKeys = append(wantKeys, "k"+strconv.Itoa(int(id)))
	}
	for id := int32(0); id < fuzzIDs; id += 7 {
		if _, member := slices.BinarySearch(want, id); s.Has(id) != member {
			bm.t.Fatalf("Has(%d) = %v, want %v", id, s.Has(id), member)
		}
	}
	keys = s.AppendKeys(keys, &bm.recs)
	for _, obj := range s.AppendObjects(nil, &bm.recs) {
		objects = append(objects, obj.(int))
	}
	slices.Sort(keys)
	slices.Sort(wantKeys)
	slices.Sort(objects)
	if !slices.Equal(keys, wantKeys) || fmt.Sprint(objects) != fmt.Sprint(want) {
		bm.t.Fatalf("AppendKeys %v, AppendObjects %v; want the keys and objects of %v", keys, objects, want)
	}
}

// FuzzBlocksAgreeWithAMapOfSets reads data as two-byte operations (see
// blocksModel.apply) on the sets of eight values, and checks the sets
// against a map of Go maps, and the invariants, after each.
func FuzzBlocksAgreeWithAMapOfSets(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 3, 0x80, 1, 0xc0, 0, 0, 1})
	// v0 grows past its list (80 ids), loses most of them, is released
	// and taken again; v1 stays a small list beside it.
	f.Add([]byte{0x60, 0, 0x01, 5, 0x60, 100, 0x80, 0, 0x80, 1, 0x80, 2, 0xa0, 3, 0x01, 6, 0xc0, 0, 0x00, 9, 0x60, 200})
	f.Add([]byte{0x60, 0, 0x61, 40, 0x62, 80, 0xc1, 0, 0x63, 120, 0xe0, 0, 0xe2, 0, 0x60, 7, 0x61, 8})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: the quick brown fox"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bm := newBlocksModel(t)
		for i := 0; i+1 < len(data); i += 2 {
			bm.apply(data[i], data[i+1])
			bm.check()
		}
	})
}
