package cache

// DeletedObject describes a deleted object to a typed handler.
//
// The key under which the object was cached is always known: GetKey,
// GetObjectName, GetName and GetNamespace work whether or not the object
// itself is, so an OnDelete handler may log a DeletedObject with klog.KObj
// and get the same output as for the object.
type DeletedObject[T Object] struct {
	// OptionalObj is the deleted object: its final state, or, when
	// FinalStateUnknown is set, an older state of it, or the zero T when no
	// copy of the object was found at all.
	OptionalObj T

	// FinalStateUnknown is nil when OptionalObj is the object's final
	// state. Otherwise it is the tombstone the informer delivered: its Key
	// is the cache key, its Obj the same object as OptionalObj (or nil).
	FinalStateUnknown *DeletedFinalStateUnknown
}

// GetObjectName returns the deleted object's namespace and name: parsed
// from the tombstone's key when there is a tombstone (the part before the
// first "/" is the namespace; a key without "/" is a name), else taken from
// OptionalObj; the zero ObjectName when there is neither.
func (d DeletedObject[T]) GetObjectName() ObjectName {
	if d.FinalStateUnknown != nil {
		namespace, name := splitTombstoneKey(d.FinalStateUnknown.Key)
		return ObjectName{Namespace: namespace, Name: name}
	}
	var zero T
	if d.OptionalObj == zero {
		return ObjectName{}
	}
	return ObjectName{Namespace: d.OptionalObj.GetNamespace(), Name: d.OptionalObj.GetName()}
}

// GetKey returns the key under which the deleted object was cached: the
// tombstone's key, else OptionalObj's namespace/name (name alone without a
// namespace), else "".
func (d DeletedObject[T]) GetKey() string {
	if d.FinalStateUnknown != nil {
		return d.FinalStateUnknown.Key
	}
	var zero T
	if d.OptionalObj == zero {
		return ""
	}
	if ns := d.OptionalObj.GetNamespace(); ns != "" {
		return ns + "/" + d.OptionalObj.GetName()
	}
	return d.OptionalObj.GetName()
}

// GetName returns the deleted object's name without its namespace (see
// GetObjectName for where it comes from).
func (d DeletedObject[T]) GetName() string {
	return d.GetObjectName().Name
}

// GetNamespace returns the deleted object's namespace, "" for a
// cluster-scoped object (see GetObjectName for where it comes from).
func (d DeletedObject[T]) GetNamespace() string {
	return d.GetObjectName().Namespace
}

// splitTombstoneKey splits a cache key at its first "/" into namespace and
// name; a key without "/" is a name. It never fails, unlike
// SplitMetaNamespaceKey: "a/b/c" is namespace "a", name "b/c".
func splitTombstoneKey(key string) (namespace, name string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// Object is what the typed API needs of an object: its name and, for
// namespaced kinds, its namespace. Every Kubernetes API type satisfies it
// through its embedded ObjectMeta (as a pointer, e.g. *v1.Pod).
//
// comparable lets a DeletedObject tell a missing object (the zero T, e.g. a
// nil pointer) from a present one.
type Object interface {
	comparable

	GetName() string
	GetNamespace() string
}
