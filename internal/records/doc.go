// Package records holds the records of kcache's stores: Key, a storage key
// kept as two string headers, and Table, the key, object and index
// membership count of every record by a stable int32 id.
//
// # Terminology
//
// A record is one slot of a Table, named by its id. A stored record holds
// an object the store holds under the record's key; a detached record holds
// a key some index still names but that is not stored (the Detached mark);
// a free record holds nothing and waits on the free list for reuse. The two
// marks are holes: values of a type no caller can store, so that nil stays
// a legal object. A record's refs is the number of key sets (over all the
// store's indices) holding its id.
//
// A Key renders as one string, the storage key. It is held split, as a
// prefix and a rest, when the store computed it from an object's namespace
// and name (Named), and whole otherwise (Plain). Two Keys are the same key
// exactly when their renderings are equal, whatever their split.
//
// # Layout
//
// A Table is a list of chunks of ChunkSize records; chunk id>>ChunkBits
// holds id, at id&(ChunkSize-1). A chunk is three parallel slices (keys,
// objects, refs) of equal length, so an index sweep that reads objects
// only touches objects. Every chunk but the first is allocated at its full
// size; the first grows by append, so a small store stays small.
//
// # Invariants
//
//   - n records exist, ids 0 to n-1, and every chunk but the last is full;
//   - live is the number of stored records;
//   - a free record's key is empty and its refs holds the next free id plus
//     one (0 ends the list); freeHead is the first free id plus one;
//   - a detached record's key is set and its refs is above zero.
//
// Table.Verify checks all of them. Neither type is safe for concurrent use:
// the owning store's lock guards a Table.
//
// # Why not a map from key to object
//
// A store's indices must name records, and a map gives them only keys:
// every index read would hash and compare a key per member, every index set
// would hold a string (a pointer the garbage collector scans) per member,
// and a key renamed in place would have to be rewritten in every index. A
// record id is four bytes, with no pointer, and never changes while the
// record lives, so the indices hold ids, and a read picks its objects out of
// the chunks by arithmetic alone. Chunks rather than three slices grown by
// append, because growing a slice copies it and leaves up to a quarter of
// it unused, while a new chunk copies nothing and leaves no garbage behind.
//
// A split Key spares the store a string per object: the key of a namespaced
// object is two headers into the object's own metadata strings, hashed and
// compared without being built (Key.Hash, Key.Equal). A key handed out is
// rendered, a new string, so that it pins only its own bytes.
package records
