package cache

// The write path of the indices: a record added under its object's indexed
// values, removed from them, and (most of this file) updated: moved from its
// old object's indexed values to its new object's.
//
// client-go calls each IndexFunc on the old object and on the new one, then
// removes the key from the old values the new object lacks and adds it to
// every new value. Call the record's memberships in one index M (what that
// index's key sets hold it under) and the new object's values N. When M is
// exactly N, that rule changes nothing, whatever the old object's values
// are: nothing to remove (the record is under no value outside N) and
// nothing to add. So when the indices are trusted (see storeIndices.trusted),
// change computes N first and calls the IndexFunc on the old object only
// when M is not N, which the index tells from its sole memberships
// (index_sole.go) without reading a key set. In the common update (no
// indexed value changed) the old object is then never read, and each
// IndexFunc runs once, not twice.
//
// That is exact even for an object changed in place since it was written
// (its record may sit under values it no longer gives, see valueIndex): M is
// what the key sets hold, never assumed from the old object. What a program
// could tell apart is only the IndexFuncs' calls on the old object: their
// number, their order against the new object's, and a panic one of them
// would raise. Trusted indices rule out the panic for deterministic
// IndexFuncs and objects not changed in place: every stored object has been
// through every IndexFunc without one. Indices are processed one by one, in
// the same order either way, so a panicking IndexFunc leaves the earlier
// ones moved and the later ones untouched, as in client-go. An IndexFunc
// that reuses its result slice is read as client-go reads it (see
// changeFromOld), except on the update where it grows that slice in one
// append.

// add records id under every value of obj, its object, in every index. An
// IndexFunc error panics, as there is no way to report it and the indices
// must never be silently wrong.
func (ix *storeIndices) add(id int32, obj interface{}) {
	ix.beginWrite()
	for _, vi := range ix.ordered {
		vi.add(id, obj)
	}
	ix.endWrite()
}

// remove drops id from every value of obj, its object, in every index,
// having read ahead what it will touch (see warm).
func (ix *storeIndices) remove(id int32, obj interface{}) {
	ix.warm(id)
	ix.beginWrite()
	for _, vi := range ix.ordered {
		vi.remove(id, obj)
	}
	ix.endWrite()
}

// newIndexValues is one index's values of a new object: values as the
// IndexFunc returned them, or, when byNamespace, the one namespace the index
// read itself (see valueIndex.namespaceOf).
type newIndexValues struct {
	values      []string
	namespace   string
	byNamespace bool
}

// heldExactlyBy reports whether id's memberships in vi are exactly v (see
// valueIndex.holdsExactly).
func (v *newIndexValues) heldExactlyBy(vi *valueIndex, id int32) bool {
	if v.byNamespace {
		return vi.holdsOnly(id, v.namespace)
	}
	return vi.holdsExactly(id, v.values)
}

// holdsExactly reports whether id's memberships in vi are exactly values: no
// membership when there are none, else the one key set of the one value. It
// reads neither an object nor a key set, and answers false when it cannot
// tell (several values, or a record once held by several sets).
func (vi *valueIndex) holdsExactly(id int32, values []string) bool {
	switch len(values) {
	case 0:
		return vi.sole.get(id) == 0
	case 1:
		return vi.holdsOnly(id, values[0])
	}
	return false
}

// holdsOnly reports whether value's key set is the one key set of vi that
// holds id.
func (vi *valueIndex) holdsOnly(id int32, value string) bool {
	return vi.soleSetOf(id, value) >= 0
}

// change moves id from the values of oldObj to the values of newObj, in every
// index, with the result client-go's Update gives (see the comment at the
// top of this file).
func (ix *storeIndices) change(id int32, oldObj, newObj interface{}) {
	ix.beginWrite()
	for _, vi := range ix.ordered {
		if ix.trusted {
			vi.changeTrusted(id, oldObj, newObj)
		} else {
			vi.change(id, oldObj, newObj)
		}
	}
	ix.endWrite()
}

// changeTrusted is change of one trusted index: the new values first, then
// the old object's only if id's memberships are not exactly those.
func (vi *valueIndex) changeTrusted(id int32, oldObj, newObj interface{}) {
	values := vi.newValuesOf(id, newObj)
	if values.heldExactlyBy(vi, id) {
		return
	}
	vi.changeTo(id, oldObj, &values)
}

// newValuesOf returns the values of obj, the new object of record id: its
// namespace read directly for MetaNamespaceIndexFunc's index, else
// indexFunc's result (see valuesOf).
func (vi *valueIndex) newValuesOf(id int32, obj interface{}) newIndexValues {
	if namespace, ok := vi.namespaceOf(obj); ok {
		return newIndexValues{namespace: namespace, byNamespace: true}
	}
	return newIndexValues{values: vi.valuesOf(id, obj)}
}

// change is changeTo with the new values computed here, after the old ones,
// in client-go's order.
func (vi *valueIndex) change(id int32, oldObj, newObj interface{}) {
	if vi.changeNamespace(id, oldObj, newObj) {
		return
	}
	oldValues := vi.valuesOf(id, oldObj)
	vi.changeValues(id, oldValues, vi.valuesOf(id, newObj))
}

// changeTo moves id from the values of oldObj to newValues, the new
// object's, computed already.
func (vi *valueIndex) changeTo(id int32, oldObj interface{}, newValues *newIndexValues) {
	if !newValues.byNamespace {
		vi.changeFromOld(id, oldObj, newValues.values)
		return
	}
	if oldNamespace, ok := vi.namespaceOf(oldObj); ok {
		vi.moveNamespace(id, oldNamespace, newValues.namespace)
		return
	}
	// NB: an old object without metadata: MetaNamespaceIndexFunc's own
	// error on it (a panic) is client-go's outcome.
	vi.changeValues(id, vi.valuesOf(id, oldObj), []string{newValues.namespace})
}

// keptValuesMax is how many values changeFromOld keeps on the stack; a
// longer result is copied to the heap.
const keptValuesMax = 8

// changeFromOld moves id from the values of oldObj to newValues, the
// values the IndexFunc returned for the new object before this call, with
// client-go's outcome even for an IndexFunc that returns one slice it
// overwrites on every call.
//
// NB: client-go calls the IndexFunc on the old object and then on the new
// one, and reads both results after; here the new object's call came
// first. So newValues is copied before the old object's call can overwrite
// it, and when the two results share their array (the function reuses its
// slice), the old values are read as client-go reads them: the call on the
// new object that comes second there has overwritten their first elements
// with its own (see asReadAfterNewCall).
func (vi *valueIndex) changeFromOld(id int32, oldObj interface{}, newValues []string) {
	var keptNew, rereadOld [keptValuesMax]string
	kept := append(keptNew[:0], newValues...)
	oldValues := vi.valuesOf(id, oldObj)
	if len(oldValues) > 0 && len(newValues) > 0 && &oldValues[0] == &newValues[0] {
		oldValues = asReadAfterNewCall(rereadOld[:0], oldValues, kept)
	}
	vi.changeValues(id, oldValues, kept)
}

// asReadAfterNewCall appends to dst oldValues as they read once an
// IndexFunc that writes its result into the same array from its start has
// returned newValues: newValues' elements first, as far as oldValues
// reaches, then the rest of oldValues.
func asReadAfterNewCall(dst, oldValues, newValues []string) []string {
	n := min(len(oldValues), len(newValues))
	dst = append(dst, newValues[:n]...)
	return append(dst, oldValues[n:]...)
}

// changeNamespace is change for MetaNamespaceIndexFunc's index when both
// objects have metadata, and then reports true: single values, so id moves
// only when the namespace changed.
func (vi *valueIndex) changeNamespace(id int32, oldObj, newObj interface{}) bool {
	oldNamespace, ok := vi.namespaceOf(oldObj)
	if !ok {
		return false
	}
	newNamespace, ok := vi.namespaceOf(newObj)
	if !ok {
		return false
	}
	vi.moveNamespace(id, oldNamespace, newNamespace)
	return true
}

// moveNamespace moves id from oldNamespace to newNamespace when they differ.
func (vi *valueIndex) moveNamespace(id int32, oldNamespace, newNamespace string) {
	if oldNamespace != newNamespace {
		vi.removeEntry(oldNamespace, id)
		vi.addEntry(newNamespace, id)
	}
}

// changeValues moves id from oldValues to newValues: it leaves the index
// alone when both are the same single value, else removes id from the old
// values newValues lacks and adds it to every new value (which repairs a
// record whose object was changed in place).
func (vi *valueIndex) changeValues(id int32, oldValues, newValues []string) {
	if len(oldValues) == 1 && len(newValues) == 1 && oldValues[0] == newValues[0] {
		return // NB: the common update: the indexed value did not change.
	}
	if len(oldValues)*len(newValues) > scanValuesMax {
		vi.changeMany(id, oldValues, newValues)
		return
	}
	for _, v := range oldValues {
		if !containsString(newValues, v) {
			vi.removeEntry(v, id)
		}
	}
	// NB: every new value is added, even one the old object gave too: an
	// object changed in place before this write may never have been indexed
	// under it (client-go, too, re-adds the key to each new value).
	for _, v := range newValues {
		vi.addEntry(v, id)
	}
}
