package cache

import (
	"errors"
	"fmt"
)

// errNotDeltas is returned when a queue hands the processing something that
// is not a Deltas.
var errNotDeltas = errors.New("object given as Process argument is not Deltas")

// processDeltas applies each delta to store and tells handler about it, in
// order:
//
//   - Added, Updated, Sync, Replaced: Update (OnUpdate(old, new)) when the
//     key is already stored, otherwise Add (OnAdd(new, isInInitialList)).
//   - Deleted: Delete and OnDelete(obj).
//   - ReplacedAll: see applyReplacedAll.
//   - SyncAll: OnUpdate(obj, obj) for every stored object; the store is not
//     written.
//   - Bookmark: the store's resource version advances; no notification.
//
// It stops at the first store error and returns it; the deltas before it
// have been applied and notified.
func processDeltas(handler ResourceEventHandler, store Store, deltas Deltas, isInInitialList bool) error {
	for _, d := range deltas {
		if err := processDelta(handler, store, d, isInInitialList); err != nil {
			return err
		}
	}
	return nil
}

// processDelta applies and notifies one delta; see processDeltas.
func processDelta(handler ResourceEventHandler, store Store, d Delta, isInInitialList bool) error {
	switch d.Type {
	case Added, Updated, Sync, Replaced:
		return addOrUpdate(handler, store, d.Object, isInInitialList)
	case Deleted:
		if err := store.Delete(d.Object); err != nil {
			return err
		}
		handler.OnDelete(d.Object)
		return nil
	case ReplacedAll:
		info, ok := replacedAllInfoOf(d.Object)
		if !ok {
			return fmt.Errorf("ReplacedAll delta carries %T, not ReplacedAllInfo", d.Object)
		}
		return applyReplacedAll(handler, store, info, isInInitialList)
	case SyncAll:
		for _, obj := range store.List() {
			handler.OnUpdate(obj, obj)
		}
		return nil
	case Bookmark:
		info, ok := bookmarkInfoOf(d.Object)
		if !ok {
			return fmt.Errorf("Bookmark delta carries %T, not BookmarkInfo", d.Object)
		}
		store.Bookmark(info.ResourceVersion)
		return nil
	default:
		return fmt.Errorf("unknown delta type %q", d.Type)
	}
}

// addOrUpdate stores obj and notifies OnUpdate when its key was present,
// OnAdd otherwise.
func addOrUpdate(handler ResourceEventHandler, store Store, obj interface{}, isInInitialList bool) error {
	old, exists, err := store.Get(obj)
	if err != nil {
		return err
	}
	if exists {
		if err := store.Update(obj); err != nil {
			return err
		}
		handler.OnUpdate(old, obj)
		return nil
	}
	if err := store.Add(obj); err != nil {
		return err
	}
	handler.OnAdd(obj, isInInitialList)
	return nil
}

// applyReplacedAll makes store hold exactly info.Objects at
// info.ResourceVersion, then notifies: first OnDelete with a
// DeletedFinalStateUnknown tombstone for every stored key missing from the
// new list, then, in list order, OnUpdate(old, new) for objects whose key was
// stored and OnAdd(new, isInInitialList) for the others.
func applyReplacedAll(handler ResourceEventHandler, store Store, info ReplacedAllInfo, isInInitialList bool) error {
	keyOf := DeletionHandlingMetaNamespaceKeyFunc
	previous := make([]interface{}, len(info.Objects))
	listed := make(map[string]struct{}, len(info.Objects))
	for i, obj := range info.Objects {
		key, err := keyOf(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		listed[key] = struct{}{}
		if old, exists, err := store.GetByKey(key); err == nil && exists {
			previous[i] = old
		}
	}
	var tombstones []DeletedFinalStateUnknown
	for _, key := range store.ListKeys() {
		if _, kept := listed[key]; kept {
			continue
		}
		if old, exists, err := store.GetByKey(key); err == nil && exists {
			tombstones = append(tombstones, DeletedFinalStateUnknown{Key: key, Obj: old})
		}
	}
	if err := store.Replace(info.Objects, info.ResourceVersion); err != nil {
		return err
	}
	for _, t := range tombstones {
		handler.OnDelete(t)
	}
	for i, obj := range info.Objects {
		if previous[i] != nil {
			handler.OnUpdate(previous[i], obj)
		} else {
			handler.OnAdd(obj, isInInitialList)
		}
	}
	return nil
}

// replacedAllInfoOf accepts a ReplacedAllInfo by value or by pointer.
func replacedAllInfoOf(obj interface{}) (ReplacedAllInfo, bool) {
	switch info := obj.(type) {
	case ReplacedAllInfo:
		return info, true
	case *ReplacedAllInfo:
		if info != nil {
			return *info, true
		}
	}
	return ReplacedAllInfo{}, false
}

// bookmarkInfoOf accepts a BookmarkInfo by value or by pointer.
func bookmarkInfoOf(obj interface{}) (BookmarkInfo, bool) {
	switch info := obj.(type) {
	case BookmarkInfo:
		return info, true
	case *BookmarkInfo:
		if info != nil {
			return *info, true
		}
	}
	return BookmarkInfo{}, false
}

// processBatchDeltas applies a batch of deltas, each for a different key and
// none of them queue-wide (ReplacedAll, SyncAll, Bookmark), to store in one
// transaction when the store supports transactions, and then notifies
// handler of each applied delta in order, exactly as processDeltas would.
// Deltas the store rejected are not notified; the returned
// *TransactionError names them.
func processBatchDeltas(handler ResourceEventHandler, store Store, deltas []Delta, isInInitialList bool) error {
	txStore, ok := store.(TransactionStore)
	if !ok {
		return processDeltas(handler, store, deltas, isInInitialList)
	}
	previous := make([]interface{}, len(deltas))
	txns := make([]Transaction, len(deltas))
	for i, d := range deltas {
		switch d.Type {
		case Added, Updated, Sync, Replaced:
			old, exists, err := store.Get(d.Object)
			if err != nil {
				return err
			}
			txns[i] = Transaction{Object: d.Object, Type: TransactionTypeAdd}
			if exists {
				previous[i] = old
				txns[i].Type = TransactionTypeUpdate
			}
		case Deleted:
			txns[i] = Transaction{Object: d.Object, Type: TransactionTypeDelete}
		default:
			return fmt.Errorf("delta type %q cannot be processed in a batch", d.Type)
		}
	}
	txErr := txStore.Transaction(txns...)
	applied := func(i int) bool { return true }
	if txErr != nil {
		ok := make(map[int]bool, len(txErr.SuccessfulIndices))
		for _, i := range txErr.SuccessfulIndices {
			ok[i] = true
		}
		applied = func(i int) bool { return ok[i] }
	}
	for i, d := range deltas {
		if !applied(i) {
			continue
		}
		switch {
		case txns[i].Type == TransactionTypeDelete:
			handler.OnDelete(d.Object)
		case previous[i] != nil:
			handler.OnUpdate(previous[i], d.Object)
		default:
			handler.OnAdd(d.Object, isInInitialList)
		}
	}
	if txErr != nil {
		return txErr
	}
	return nil
}
