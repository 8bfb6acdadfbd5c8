package keytable

import (
	"fmt"

	"github.com/kcache-go/cache/internal/records"
)

// Verify checks t's invariants (see the package doc) against r, the
// records its ids name, and returns the first that fails, nil when all
// hold. It reads every slot and every member's key: it is for tests and
// debugging.
func (t *Table) Verify(r *records.Table) error {
	size := len(t.slots)
	if size&(size-1) != 0 {
		return fmt.Errorf("%d slots, not a power of two", size)
	}
	n := 0
	for i, s := range t.slots {
		if s == 0 {
			continue
		}
		n++
		if err := t.verifyMember(i, s, r); err != nil {
			return err
		}
	}
	if n != t.count {
		return fmt.Errorf("count = %d, but %d slots are used", t.count, n)
	}
	if t.count*loadDen > size*loadNum {
		return fmt.Errorf("%d members in %d slots, past the load limit", t.count, size)
	}
	return nil
}

// verifyMember checks the member s in slot i: its record, its tag, its
// place in its probe run, and that a lookup of its key finds it.
func (t *Table) verifyMember(i int, s uint64, r *records.Table) error {
	id := slotID(s)
	if id < 0 || int(id) >= r.Len() {
		return fmt.Errorf("slot %d names id %d of %d records", i, id, r.Len())
	}
	if records.IsHole(r.Object(id)) {
		return fmt.Errorf("slot %d names record %d, which is not stored", i, id)
	}
	key := r.Key(id)
	if tag := t.HashOf(key); slotTag(s) != tag {
		return fmt.Errorf("slot %d: id %d has tag %x, its key %q %x", i, id, slotTag(s), key.String(), tag)
	}
	mask := len(t.slots) - 1
	for j := t.home(slotTag(s)); j != i; j = (j + 1) & mask {
		if t.slots[j] == 0 {
			return fmt.Errorf("id %d at slot %d is cut off from its home by empty slot %d", id, i, j)
		}
	}
	if got := t.Find(key, r); got != id {
		return fmt.Errorf("a lookup of %q finds %d, want %d (two members with one key?)", key.String(), got, id)
	}
	return nil
}
