// Package privatefield reads unexported fields of client-go's values, for
// the settings client-go keeps only there: the options a SharedInformerOption
// applied to a factory, the ListerWatcher inside an informer it built, the
// parts rest.NewRESTClient took.
//
// The contract:
//   - Read-only. Nothing here writes a field; a value returned must only be
//     read. The one pointer handed out (RWMutex) is a lock, to be read-locked
//     around the reads it guards.
//   - Only for fields client-go writes once, while it builds the value, and
//     never after, so that reading them races with nothing; a field written
//     later (an informer's event handlers) is read only under the lock
//     client-go guards it with.
//   - Never panics: a nil pointer, a value that is not a pointer to a
//     struct, a nil embedded pointer or a nil pointer on the path all report
//     false.
//   - Reports false when a field of the path is missing (or ambiguous) or
//     the last one has another type than asked for, so that a client-go
//     release that renames or retypes a field fails the tests that pin it
//     instead of silently losing a setting.
//
// A path is a field's name, then the name of a field of that field's value,
// and so on. A name may be of a field promoted through embedded structs or
// embedded pointers; between two names a pointer to a struct is followed.
package privatefield
