package fastlw_test

import (
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kcache-go/cache/fastlw"
)

// observedSerializer is the clientset serializer with a hook run after
// every decode by its decoders, and a count of those decodes.
type observedSerializer struct {
	runtime.NegotiatedSerializer
	decodes atomic.Int64
	// afterDecode, when set, sees every decoded object before it is returned.
	afterDecode func(obj runtime.Object)
}

// newObservedSerializer wraps fastlw.ClientsetSerializer.
func newObservedSerializer(afterDecode func(runtime.Object)) *observedSerializer {
	return &observedSerializer{NegotiatedSerializer: fastlw.ClientsetSerializer(), afterDecode: afterDecode}
}

// DecoderToVersion returns the wrapped decoder, observed.
func (s *observedSerializer) DecoderToVersion(d runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	return observedDecoder{inner: s.NegotiatedSerializer.DecoderToVersion(d, gv), s: s}
}

// observedDecoder counts and hooks the decodes of inner.
type observedDecoder struct {
	inner runtime.Decoder
	s     *observedSerializer
}

// Decode decodes with inner, counts, and runs the hook.
func (d observedDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := d.inner.Decode(data, defaults, into)
	d.s.decodes.Add(1)
	if err == nil && d.s.afterDecode != nil {
		d.s.afterDecode(obj)
	}
	return obj, gvk, err
}
