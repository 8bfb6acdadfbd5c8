package cache

import "reflect"

// foreignExplicitKey returns the key of client-go's ExplicitKey (a string
// type of that name in k8s.io/client-go/tools/cache), which reaches
// kcache's key functions when a program mixes client-go code (a client-go
// informer's handlers, a library written against client-go) with kcache's
// stores and queues; ok is false for anything else. client-go's
// MetaNamespaceKeyFunc returns such a key unchanged, as kcache's does its
// own ExplicitKey. It costs a reflect.TypeOf and a few reads of the type,
// never allocates and never panics; callers ask only once the value is
// known to have no object metadata, so objects never pay for it.
func foreignExplicitKey(obj interface{}) (key string, ok bool) {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.String || t.Name() != "ExplicitKey" || t.PkgPath() != clientGoCachePkgPath {
		return "", false
	}
	return reflect.ValueOf(obj).String(), true
}
