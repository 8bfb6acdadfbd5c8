package records

import (
	"fmt"
	"strings"
)

// Verify checks r's invariants (see the package doc) and returns the first
// one that fails, nil when all hold. It reads every record: it is for tests
// and debugging, not for a store's hot path.
func (r *Table) Verify() error {
	if err := r.verifyChunks(); err != nil {
		return err
	}
	live, free := 0, 0
	for ci := range r.chunks {
		c := &r.chunks[ci]
		for i, obj := range c.objects {
			id := int32(ci<<ChunkBits + i)
			switch {
			case obj == freeMark:
				free++
				if c.keys[i] != (Key{}) {
					return fmt.Errorf("free record %d keeps key %q", id, c.keys[i].String())
				}
			case obj == Detached:
				if c.refs[i] <= 0 {
					return fmt.Errorf("detached record %d has refs %d, want > 0", id, c.refs[i])
				}
			case IsHole(obj):
				return fmt.Errorf("record %d holds an unknown mark %v", id, obj)
			default:
				live++
			}
		}
	}
	if live != r.live {
		return fmt.Errorf("live = %d, but %d records are stored", r.live, live)
	}
	return r.verifyFreeList(free)
}

// verifyChunks checks that r's chunks hold exactly ids 0 to n-1, every
// chunk before the last one in use full.
func (r *Table) verifyChunks() error {
	rest := int(r.n)
	for ci := range r.chunks {
		c := &r.chunks[ci]
		want := min(rest, ChunkSize)
		if len(c.keys) != want || len(c.objects) != want || len(c.refs) != want {
			return fmt.Errorf("chunk %d holds %d keys, %d objects, %d refs; want %d each (n = %d)", ci, len(c.keys), len(c.objects), len(c.refs), want, r.n)
		}
		rest -= want
	}
	if rest != 0 {
		return fmt.Errorf("n = %d, but the chunks hold %d records", r.n, int(r.n)-rest)
	}
	return nil
}

// verifyFreeList checks that the free list, from freeHead, runs through
// exactly the free records, each once.
func (r *Table) verifyFreeList(free int) error {
	seen := 0
	for next := r.freeHead; next != 0; {
		id := next - 1
		if id < 0 || id >= r.n {
			return fmt.Errorf("free list names id %d of %d", id, r.n)
		}
		if seen++; seen > free {
			return fmt.Errorf("free list is longer than the %d free records, or loops", free)
		}
		c, i := r.chunkOf(id)
		if c.objects[i] != freeMark {
			return fmt.Errorf("free list names record %d, which is not free", id)
		}
		next = c.refs[i]
	}
	if seen != free {
		return fmt.Errorf("free list holds %d records, %d are free", seen, free)
	}
	return nil
}

// Dump renders r's counts, its free list's head and every record's refs.
// It is for tests and debugging: two tables in the same state dump alike.
func (r *Table) Dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recs n=%d live=%d freeHead=%d refs=", r.n, r.live, r.freeHead)
	for id := int32(0); id < r.n; id++ {
		fmt.Fprintf(&b, "%d,", *r.Refs(id))
	}
	return b.String()
}
