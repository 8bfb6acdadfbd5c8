package fastlw

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// unstructuredSerializer is UnstructuredSerializer's NegotiatedSerializer:
// JSON only, objects decoded by UnstructuredJSONScheme, watch events by watchEventJSON, streams
// framed by apimachinery's JSON framer. It holds no state.
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
var watchEventJSON = func() runtime.Serializer {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{})
}()

// EncoderForVersion returns encoder unchanged: unstructured objects carry
// their own version.
func (unstructuredSerializer) EncoderForVersion(encoder runtime.Encoder, _ runtime.GroupVersioner) runtime.Encoder {
	return encoder
}

// DecoderToVersion returns a decoder that decodes every object with
// UnstructuredJSONScheme, whatever decoder it is given.
func (unstructuredSerializer) DecoderToVersion(_ runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return unstructured.UnstructuredJSONScheme
}

// Interface check.
var _ runtime.NegotiatedSerializer = unstructuredSerializer{}
