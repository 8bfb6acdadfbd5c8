package records

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// modelRecord is the model of one record: its key's rendering, its state
// and object, and its refs.
type modelRecord struct {
	key      string
	state    string // "stored", "detached" or "free"
	obj      interface{}
	refs     int32
	splitKey bool // whether the Table holds the key split
}

// tableModel drives a Table and a slice of modelRecords with the same
// operations; freed is the model's free list, last freed last.
type tableModel struct {
	t     *testing.T
	table Table
	recs  []modelRecord
	freed []int32
	next  int // numbers the keys and objects added
}

// fuzzKey returns the i-th key, split at its first '/' when split is set;
// every third key is cluster-scoped, to put keys without '/' in the mix.
func fuzzKey(i int, split bool) (string, Key) {
	if i%3 == 0 {
		name := fmt.Sprintf("node-%d", i)
		return name, Plain(name)
	}
	ns, name := fmt.Sprintf("ns-%d", i%5), fmt.Sprintf("pod-%d", i)
	if split {
		return ns + "/" + name, Named(ns, name)
	}
	return ns + "/" + name, Plain(ns + "/" + name)
}

// add creates a record, stored or detached (given one ref at once, as an
// index that names a detached record holds it), and checks that it got the
// id the free list says.
func (tm *tableModel) add(detached, split bool) {
	tm.next++
	rendering, key := fuzzKey(tm.next, split)
	want := int32(len(tm.recs))
	if last := len(tm.freed) - 1; last >= 0 {
		want, tm.freed = tm.freed[last], tm.freed[:last]
	} else {
		tm.recs = append(tm.recs, modelRecord{})
	}
	rec := modelRecord{key: rendering, state: "stored", obj: tm.next, splitKey: split}
	obj := interface{}(tm.next)
	if tm.next%7 == 0 {
		rec.obj, obj = nil, nil // NB: nil is an object, not a hole.
	}
	if detached {
		rec.state, rec.obj, rec.refs, obj = "detached", nil, 1, Detached
	}
	if id := tm.table.Add(key, obj); id != want {
		tm.t.Fatalf("Add(%q) gave id %d, want %d", rendering, id, want)
	}
	if detached {
		*tm.table.Refs(want)++
	}
	tm.recs[want] = rec
}

// apply runs one operation on record id (taken modulo the records) chosen
// by op; an operation that does not fit the record's state adds a record.
func (tm *tableModel) apply(op byte, id int32) {
	if len(tm.recs) == 0 || op%8 < 2 {
		tm.add(op%8 == 1, op&8 != 0)
		return
	}
	id %= int32(len(tm.recs))
	rec := &tm.recs[id]
	switch {
	case op%8 == 2 && rec.state == "stored" && rec.refs == 0:
		tm.table.Free(id)
		*rec = modelRecord{state: "free"}
		tm.freed = append(tm.freed, id)
	case op%8 == 3 && rec.state == "stored":
		*tm.table.Refs(id)++
		rec.refs++
	case op%8 == 4 && rec.state != "free" && rec.refs > 1:
		*tm.table.Refs(id)--
		rec.refs--
	case op%8 == 5 && rec.state == "stored" && rec.refs > 0:
		tm.table.Detach(id)
		rec.state, rec.obj = "detached", nil
	case op%8 == 6 && rec.state == "detached":
		tm.next++
		tm.table.Attach(id, tm.next)
		rec.state, rec.obj = "stored", tm.next
	case op%8 == 7 && rec.state != "free":
		// The same key in its other form, then a new object.
		tm.next++
		rec.splitKey = !rec.splitKey && strings.Contains(rec.key, "/")
		tm.table.SetKey(id, modelKey(rec))
		if rec.state == "stored" {
			tm.table.SetObject(id, tm.next)
			rec.obj = tm.next
		}
	default:
		tm.add(op&16 != 0, op&8 != 0)
	}
}

// modelKey returns the Key rec's key is held as.
func modelKey(rec *modelRecord) Key {
	if ns, name, ok := strings.Cut(rec.key, "/"); ok && rec.splitKey {
		return Named(ns, name)
	}
	return Plain(rec.key)
}

// check fails the test unless every read of the table agrees with the
// model, record by record and in bulk, and its invariants hold.
func (tm *tableModel) check() {
	if err := tm.table.Verify(); err != nil {
		tm.t.Fatal(err)
	}
	var keys []string
	var objects []interface{}
	live := 0
	for i := range tm.recs {
		rec, id := &tm.recs[i], int32(i)
		key, obj := tm.table.Entry(id)
		if key != modelKey(rec) && rec.state != "free" || key != tm.table.Key(id) || obj != tm.table.Object(id) {
			tm.t.Fatalf("record %d: Entry gives %+v, Key %+v; model %+v", id, key, tm.table.Key(id), *rec)
		}
		if rec.state == "free" {
			continue
		}
		if *tm.table.Refs(id) != rec.refs || tm.table.ObjectOf(id) != rec.obj || IsHole(obj) != (rec.state == "detached") {
			tm.t.Fatalf("record %d: refs %d, object %v; model %+v", id, *tm.table.Refs(id), obj, *rec)
		}
		if rec.state == "stored" {
			live++
			keys, objects = append(keys, rec.key), append(objects, rec.obj)
		}
	}
	if tm.table.Len() != len(tm.recs) || tm.table.Live() != live {
		tm.t.Fatalf("Len %d, Live %d; want %d, %d", tm.table.Len(), tm.table.Live(), len(tm.recs), live)
	}
	tm.checkBulk(keys, objects)
}

// checkBulk fails the test unless AppendKeys, AppendObjects and
// ForEachStored give the stored keys and objects, in id order.
func (tm *tableModel) checkBulk(keys []string, objects []interface{}) {
	var visited []interface{}
	tm.table.ForEachStored(func(id int32, obj interface{}) {
		if tm.recs[id].state != "stored" || obj != tm.recs[id].obj {
			tm.t.Fatalf("ForEachStored gave record %d with %v; model %+v", id, obj, tm.recs[id])
		}
		visited = append(visited, obj)
	})
	gotKeys := tm.table.AppendKeys(nil)
	gotObjects := tm.table.AppendObjects(nil)
	if !slices.Equal(gotKeys, keys) || !slices.Equal(gotObjects, objects) || !slices.Equal(visited, objects) {
		tm.t.Fatalf("AppendKeys %q, AppendObjects %v, ForEachStored %v; want %q, %v", gotKeys, gotObjects, visited, keys, objects)
	}
}

// FuzzTableAgreesWithASliceOfRecords reads data as operations, two bytes
// each (see tableModel.apply), and checks the table against a slice of
// model records and its invariants after each.
func FuzzTableAgreesWithASliceOfRecords(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 8, 2, 2, 1, 0, 0, 1, 0, 3, 2, 5, 2, 6, 2, 7, 0, 7, 3})
	// Frees in a row, then adds that must reuse the ids last freed first.
	f.Add([]byte{0, 0, 8, 0, 0, 0, 8, 0, 2, 0, 2, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("detach, attach, refs up and down: \x03\x01\x05\x01\x06\x01\x04\x01\x02\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tm := &tableModel{t: t}
		for i := 0; i+1 < len(data); i += 2 {
			tm.apply(data[i], int32(data[i+1]))
			tm.check()
		}
	})
}

// TestATableAcrossChunksAgreesWithASliceOfRecords runs the model past the
// first chunks, so that adds, frees and reuse cross chunk boundaries, from
// an empty table and from one made with room for fewer records.
func TestATableAcrossChunksAgreesWithASliceOfRecords(t *testing.T) {
	for _, room := range []int{0, ChunkSize / 2, ChunkSize + 3} {
		t.Run(fmt.Sprintf("room for %d", room), func(t *testing.T) {
			tm := &tableModel{t: t, table: NewTable(room)}
			for i := 0; i < 3*ChunkSize; i++ {
				tm.apply(byte(i*37%251), int32(i*101%997))
				if i%257 == 0 {
					tm.check()
				}
			}
			tm.check()
			if tm.table.Len() <= 2*ChunkSize {
				t.Fatalf("%d records, want the model past two chunks", tm.table.Len())
			}
		})
	}
}
