// Package keytable holds Table, the hash table from storage key to record
// id behind every kcache store: Get, Add, Update and Delete all start with
// one lookup in it.
//
// # Terminology
//
// A member is a record id the table holds; its key is the key of that
// record in the store's records.Table, and its tag is the low 32 bits of
// the key's hash under the table's seed. A slot is one uint64 of the
// table's array, empty (0) or holding one member. A member's home is its
// tag masked to the array's size; its probe run is the slots from its home
// to the first empty slot after it.
//
// # Layout
//
// A slot packs the tag in its high 32 bits and the id plus one in its low
// 32, so the array holds no pointer for the garbage collector to scan and
// a lookup compares tags eight bytes apart, within a cache line, before it
// reads any key. Keys are not kept in the table: a lookup that meets its
// own tag reads the key (and the object, whose cache miss then overlaps the
// key's) from the records it is given. The array's size is a power of two,
// so a home is a mask and the probe wraps around with one.
//
// # Invariants
//
//   - len(slots) is 0 or a power of two, and count is the number of
//     non-empty slots, at most 13/16 of them;
//   - every member's tag is that of its record's key, and the record is
//     stored (not a hole, see records.IsHole);
//   - every member lies in its probe run: no empty slot between its home
//     and itself (deletion shifts later members back, so there are no
//     tombstones and a miss stops at the first empty slot);
//   - no two members have the same key.
//
// Table.Verify checks all of them against the records. A Table is not safe
// for concurrent use: the owning store's lock guards it.
//
// # Why not a map[string]int32
//
// A Go map keyed by string would hold every key a second time, as a
// string header the garbage collector scans, and would need the key built
// as one string to look it up. The store's keys are mostly split (a
// namespace and a name, see records.Key), so a map would cost a string per
// object and a concatenation per write. The table hashes and compares
// split keys as they are (records.Key.Hash depends only on the rendering),
// keeps 8 bytes a slot, and never rehashes a key: growing and shifting
// move members by their tags alone.
package keytable
