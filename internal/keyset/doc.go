// Package keyset holds the key sets of kcache's indices: Set, the record
// ids that share one indexed value of one index, and Blocks, an index's
// sets by number.
//
// # Terminology
//
// A member of a Set is a record id (see records.Table). A set is a list
// while it holds at most ListMax members, and a hash set once it has
// grown past that: an open-addressing table of int32 slots, 0 for empty and
// id+1 for a member, with linear probing from the member's home slot (its
// id times a Fibonacci constant, top bits). A set's number is its place in
// its index's Blocks; a number is live while its set holds a value, and
// free once the set was released, until Take hands it out again.
//
// # Layout
//
// A Set is one cache line, 64 bytes: the slice header of its members, the
// hash set's count, its number, and an inline array of 8 ids that is its
// first list, so the usual set, a node's or an app's few pods, needs no
// allocation of its own and a lookup reads one line. Blocks allocates sets
// 16 at a time and never moves one, and keeps each set's indexed value
// apart from the sets, in chunks of 256 strings, so that reading the value
// of a set by number (an Update's check) touches few pages.
//
// # Invariants
//
//   - a list holds its members once each, and its n is 0; a list of
//     capacity 8 from Blocks is the set's own inline array;
//   - a hash set has a power of two slots, at least hashedMin; n counts its
//     members, at most 3/4 of the slots; every member lies in the probe run
//     from its home, no empty slot between (deletion shifts back, no
//     tombstones);
//   - every number below Blocks' count is live or on the free list, once;
//     a free set is empty on its inline array and its value is "";
//   - no two sets share a list.
//
// Set.Verify and Blocks.Verify check them. Neither type is safe for
// concurrent use: the owning store's lock guards them.
//
// # Why not a map[int32]struct{} or a map[string]struct{}
//
// Most indexed values are shared by a few objects, and for those a list
// of 4-byte ids is several times smaller than any map and as fast to scan.
// A few values (a namespace, a popular label) hold thousands of objects, and
// for those the hash set keeps 4 bytes a slot where a map[int32]struct{}
// takes 9 and a set of keys a 16-byte string header each, which the garbage
// collector scans. Neither form holds a pointer, and members are ids, not
// keys, so a read picks its objects straight out of the records. Blocks
// rather than one allocation per set, because an index with tens of
// thousands of values would otherwise allocate as many small objects, and
// a set's number, kept per record by the index, leads to the set without
// hashing its value.
package keyset
