package fastlw

import (
	"bytes"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// scanningMetaFactory is a json.MetaFactory that finds apiVersion and kind
// with one top-level scan (scanTopLevel) instead of json.DefaultMetaFactory's
// full encoding/json.Unmarshal of the object. Whenever the scan meets
// anything unusual it asks DefaultMetaFactory, so:
//
// Contract: on valid JSON, Interpret returns exactly what
// DefaultMetaFactory.Interpret returns (the same kind and group version, or
// the same error). On invalid JSON it may return a kind where
// DefaultMetaFactory returns an error; a json.Serializer that then decodes
// into a new object (into nil) still fails, because its unmarshal checks
// the whole input first, but with another error. So a serializer built on
// it may only be used where an error sends the caller to the plain path,
// and never into a *runtime.Unknown (which keeps the bytes unchecked).
// It holds no state.
type scanningMetaFactory struct{}

var _ json.MetaFactory = scanningMetaFactory{}

// Interpret returns the group, version and kind of the JSON object data.
func (scanningMetaFactory) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	apiVersion, kind, ok := scanAPIVersionKind(data)
	if !ok {
		return json.DefaultMetaFactory.Interpret(data)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return &schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}, nil
}

// scanAPIVersionKind returns the values of the top-level "apiVersion" and
// "kind" members of data ("" for a missing one) as encoding/json would
// decode them into string fields tagged so, or false when the answer is
// not plain: data is not an object of escape-free ASCII keys, a key
// matches either name only ignoring case (encoding/json would take it), a
// name occurs twice, or a value is not an escape-free printable ASCII
// string.
func scanAPIVersionKind(data []byte) (apiVersion, kind string, ok bool) {
	var seenVersion, seenKind bool
	plain := scanTopLevel(data, func(m topLevelMember) bool {
		var target *string
		var seen *bool
		switch {
		case string(m.key) == "apiVersion":
			target, seen = &apiVersion, &seenVersion
		case string(m.key) == "kind":
			target, seen = &kind, &seenKind
		case bytes.EqualFold(m.key, []byte("apiVersion")), bytes.EqualFold(m.key, []byte("kind")):
			return false
		default:
			return true
		}
		value, end, isPlain := plainString(data, m.from)
		if *seen || !isPlain || end != m.to {
			return false
		}
		*target, *seen = string(value), true
		return true
	})
	return apiVersion, kind, plain
}
