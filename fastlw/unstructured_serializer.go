package fastlw

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// unstructuredSerializer is UnstructuredSerializer's NegotiatedSerializer:
// JSON only, objects decoded by unstructuredObjects, watch events by
// watchEventJSON, streams framed by apimachinery's JSON framer. It holds no
// state.
type unstructuredSerializer struct{}

// SupportedMediaTypes names JSON, with a stream serializer.
func (unstructuredSerializer) SupportedMediaTypes() []runtime.SerializerInfo {
	return []runtime.SerializerInfo{{
		MediaType:        runtime.ContentTypeJSON,
		MediaTypeType:    "application",
		MediaTypeSubType: "json",
		EncodesAsText:    true,
		Serializer:       unstructured.UnstructuredJSONScheme,
		StreamSerializer: &runtime.StreamSerializerInfo{
			EncodesAsText: true,
			Serializer:    watchEventJSON,
			Framer:        json.Framer,
		},
	}}
}

// watchEventJSON decodes the JSON frames of a watch stream into
// metav1.WatchEvent (their objects stay raw, for UnstructuredJSONScheme).
// It decodes the objects of metaV1Scheme's kinds too.
var watchEventJSON = json.NewSerializerWithOptions(json.DefaultMetaFactory, metaV1Scheme, metaV1Scheme, json.SerializerOptions{})

// metaV1Scheme holds the kinds of meta/v1 registered in version v1
// (WatchEvent, Status, the options), as the dynamic client's scheme does.
var metaV1Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// EncoderForVersion returns encoder unchanged: unstructured objects carry
// their own version.
func (unstructuredSerializer) EncoderForVersion(encoder runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return encoder
}

// DecoderToVersion returns unstructuredObjects, whatever decoder it is
// given.
func (unstructuredSerializer) DecoderToVersion(_ runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return unstructuredObjects{}
}

// unstructuredObjects decodes JSON as the dynamic client does: an object
// whose kind the v1 meta scheme knows (a watch stream's ERROR Status, say)
// into its typed struct (*metav1.Status), anything else, and any decoding
// into a given object, with UnstructuredJSONScheme (an UnstructuredList when
// the JSON has items, else an Unstructured). It holds no state.
type unstructuredObjects struct{}

// Decode decodes data as the type doc says.
func (unstructuredObjects) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if into == nil {
		if gvk, err := json.DefaultMetaFactory.Interpret(data); err == nil && metaV1Scheme.Recognizes(*gvk) {
			return watchEventJSON.Decode(data, defaults, nil)
		}
	}
	return unstructured.UnstructuredJSONScheme.Decode(data, defaults, into)
}

// Interface check.
var _ runtime.NegotiatedSerializer = unstructuredSerializer{}
