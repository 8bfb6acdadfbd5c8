package fastlw

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// clientsetJSON is the JSON serializer of ClientsetSerializer (client-go's
// scheme codecs): the one object the fast path recognises, by identity.
var clientsetJSON = func() runtime.SerializerInfo {
	info, _ := runtime.SerializerInfoForMediaType(ClientsetSerializer().SupportedMediaTypes(), runtime.ContentTypeJSON)
	return info
}()

// scanningClientsetJSON decodes as clientsetJSON's serializer does (the
// same scheme as creater and typer, the same options: not YAML, not
// strict) but finds apiVersion and kind with scanningMetaFactory; see its
// contract: use it only where an error goes to the plain path.
var scanningClientsetJSON runtime.Decoder = json.NewSerializerWithOptions(scanningMetaFactory{}, scheme.Scheme, scheme.Scheme, json.SerializerOptions{})

// fastJSONDecoder returns the decoder fastlw may use in place of info's
// JSON serializer, and whether it may: only when info is client-go's scheme
// codecs' JSON serializer itself (same object), whose stream serializer,
// when it has one, is that serializer with apimachinery's JSON framer.
func fastJSONDecoder(info runtime.SerializerInfo) (runtime.Decoder, bool) {
	if info.MediaType != runtime.ContentTypeJSON || !sameJSONSerializer(info.Serializer, clientsetJSON.Serializer) {
		return nil, false
	}
	if stream := info.StreamSerializer; stream != nil {
		if !sameJSONSerializer(stream.Serializer, clientsetJSON.Serializer) || !sameJSONFramer(stream.Framer) {
			return nil, false
		}
	}
	return scanningClientsetJSON, true
}

// sameJSONSerializer reports whether a and b are the same *json.Serializer.
func sameJSONSerializer(a, b any) bool {
	x, okA := a.(*json.Serializer)
	y, okB := b.(*json.Serializer)
	return okA && okB && x == y
}

// sameJSONFramer reports whether f is apimachinery's JSON framer.
func sameJSONFramer(f runtime.Framer) bool {
	return f != nil && f == json.Framer
}

// fastEventTypes are the event types the fast path decodes; ERROR events
// (a Status) and anything else go to the plain path.
var fastEventTypes = map[string]watch.EventType{
	string(watch.Added): watch.Added, string(watch.Modified): watch.Modified,
	string(watch.Deleted): watch.Deleted, string(watch.Bookmark): watch.Bookmark,
}

// decodeEventFast decodes a JSON watch event frame as client-go's watch
// event decoder does over the scheme codecs' serializer (the envelope's
// "type" and raw "object", then the object with embedded), without
// decoding the envelope: one top-level scan finds both members. It reports
// false, to send the frame to the plain path, when the envelope is not an
// object of exactly the members "type" and "object" once each, the type is
// not ADDED, MODIFIED, DELETED or BOOKMARK spelled plainly, the object is
// not a JSON object, or embedded fails on it (the plain path then gives its
// own answer, error included).
func decodeEventFast(frame []byte, embedded runtime.Decoder) (watch.EventType, runtime.Object, bool) {
	var eventType watch.EventType
	var object []byte
	plain := scanTopLevel(frame, func(m topLevelMember) bool {
		switch string(m.key) {
		case "type":
			value, end, ok := plainString(frame, m.from)
			t, known := fastEventTypes[string(value)]
			if eventType != "" || !ok || end != m.to || !known {
				return false
			}
			eventType = t
			return true
		case "object":
			if object != nil || frame[m.from] != '{' {
				return false
			}
			object = frame[m.from:m.to]
			return true
		}
		return false
	})
	if !plain || eventType == "" || object == nil {
		return "", nil, false
	}
	obj, err := runtime.Decode(embedded, object)
	if err != nil {
		return "", nil, false
	}
	return eventType, obj, true
}
