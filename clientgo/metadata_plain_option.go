package clientgo

import (
	"reflect"
	"sync"

	"k8s.io/client-go/metadata/metadatainformer"
)

// plainMetadataSettings holds the client-go metadata factories (pointers,
// as keys) that WithPlainMetadataListWatch's option was applied to and
// NewMetadataSharedInformerFactoryWithOptions has not read back yet.
var plainMetadataSettings sync.Map

// WithPlainMetadataListWatch is a metadatainformer.SharedInformerOption for
// NewMetadataSharedInformerFactoryWithOptions that turns fastlw off: the
// informers list and watch through the metadata client's own List and
// Watch (the plain path), as WithPlainListWatch does for the typed factory.
// Passed to client-go's own factory it changes nothing (but that factory
// stays referenced by this package).
func WithPlainMetadataListWatch() metadatainformer.SharedInformerOption {
	// NB: client-go's metadata options are functions of an unexported
	// type; this one is built by reflection, returns the factory it is
	// given unchanged and remembers it.
	var option metadatainformer.SharedInformerOption
	t := reflect.TypeOf(option)
	fn := reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		plainMetadataSettings.Store(args[0].Interface(), struct{}{})
		return args
	})
	return fn.Interface().(metadatainformer.SharedInformerOption)
}

// plainMetadataListWatchApplied reports whether WithPlainMetadataListWatch
// was applied to settings, and forgets settings.
func plainMetadataListWatchApplied(settings metadatainformer.SharedInformerFactory) bool {
	_, ok := plainMetadataSettings.LoadAndDelete(settings)
	return ok
}
