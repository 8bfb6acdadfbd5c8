package fastlw_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// variedPods returns n pods whose sizes vary (an annotation of 0 to about
// 3 KiB), so that reused buffers are refilled with frames and chunks both
// shorter and longer than what they held.
func variedPods(n int) []watchStep {
	steps := make([]watchStep, n)
	for i := range steps {
		pod := podAt("pod-"+strconv.Itoa(i%11), strconv.Itoa(200+i))
		pod.Annotations["example.com/blob"] = strings.Repeat(string(rune('a'+i%26)), (i*397)%3001)
		steps[i] = scriptEvent([]watch.EventType{watch.Added, watch.Modified, watch.Deleted}[i%3], pod)
	}
	return steps
}

// keptObjects is a Transform that keeps every object it is given.
type keptObjects struct {
	mu   sync.Mutex
	objs []any
}

func (k *keptObjects) keep(obj any) (any, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.objs = append(k.objs, obj)
	return obj, nil
}

// TestObjectsDecodedFromReusedBuffersStayAsClientGoDecodesThem watches 400
// events of varied sizes, and lists 300 such pods in pages of 100, through
// four workers and an in-flight bound of eight (so that every frame and
// chunk buffer is reused many times), with a Transform that keeps every
// object; once the whole stream and every page was read, the events, the
// pages and the kept objects are client-go's (run under -race, a late
// write into a buffer an object still reads is a race).
func TestObjectsDecodedFromReusedBuffersStayAsClientGoDecodesThem(t *testing.T) {
	steps := variedPods(400)
	var pods []corev1.Pod
	for _, step := range steps[:300] {
		pods = append(pods, *step.event.Object.(*corev1.Pod))
	}
	inEachFormat(t, "varied pods", nil, scenario{pods: pods, watchSteps: steps}, func(t *testing.T, client rest.Interface) {
		kept := &keptObjects{}
		fast := fastlw.New(fastlw.Config{Client: client, Resource: "pods", Namespace: "ns",
			Workers: 4, MaxInFlight: 8, Transform: kept.keep})
		plain := cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())
		options := metav1.ListOptions{Limit: 100}
		plainPages, fastPages := listAll(t.Context(), plain, options), listAll(t.Context(), fast, options)
		plainWatch, fastWatch := watchAll(t, plain, metav1.ListOptions{}), watchAll(t, fast, metav1.ListOptions{})
		requireSameOutcomes(t, plainPages, fastPages)
		requireSameWatch(t, plainWatch, fastWatch)
		if len(plainPages) != 3 || len(plainWatch.events) != 400 || len(kept.objs) != 700 {
			t.Fatalf("%d pages, %d events, %d objects transformed; want 3, 400, 700", len(plainPages), len(plainWatch.events), len(kept.objs))
		}
	})
}

// aliasingSerializer is the clientset serializer whose decoders keep a
// reference to their input, as a decoder fastlw does not know may: each
// decode keeps a string aliasing the first bytes it decoded from, with a
// copy of what they were then.
type aliasingSerializer struct {
	runtime.NegotiatedSerializer
	mu      sync.Mutex
	aliases [][2]string // the alias, and its value at decode time
}

// DecoderToVersion returns the wrapped decoder, aliasing.
func (s *aliasingSerializer) DecoderToVersion(d runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	return aliasingDecoder{inner: s.NegotiatedSerializer.DecoderToVersion(d, gv), s: s}
}

// changed returns how many aliases no longer read what they read when
// their decode returned, and how many there are.
func (s *aliasingSerializer) changed() (changed, all int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.aliases {
		if a[0] != a[1] {
			changed++
		}
	}
	return changed, len(s.aliases)
}

// aliasingDecoder is inner, keeping an alias of every input.
type aliasingDecoder struct {
	inner runtime.Decoder
	s     *aliasingSerializer
}

// Decode decodes with inner and keeps an alias of data.
func (d aliasingDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if len(data) > 0 {
		alias := unsafe.String(&data[0], min(len(data), 64))
		d.s.mu.Lock()
		d.s.aliases = append(d.s.aliases, [2]string{alias, strings.Clone(alias)})
		d.s.mu.Unlock()
	}
	return d.inner.Decode(data, defaults, into)
}

// TestADecoderFastlwDoesNotKnowGetsBuffersNoLaterDecodeReuses lists and
// watches the varied pods through a serializer whose decoders keep a
// reference to their input: fastlw reuses no buffer for a decoder it does
// not know to copy, so every input still reads, once everything was
// decoded, what it read when its decode returned; and the pages and
// events are client-go's.
func TestADecoderFastlwDoesNotKnowGetsBuffersNoLaterDecodeReuses(t *testing.T) {
	steps := variedPods(200)
	var pods []corev1.Pod
	for _, step := range steps[:150] {
		pods = append(pods, *step.event.Object.(*corev1.Pod))
	}
	inEachFormat(t, "varied pods", nil, scenario{pods: pods, watchSteps: steps}, func(t *testing.T, client rest.Interface) {
		serializer := &aliasingSerializer{NegotiatedSerializer: fastlw.ClientsetSerializer()}
		fast := fastlw.New(fastlw.Config{Client: client, Resource: "pods", Namespace: "ns",
			Serializer: serializer, Workers: 4, MaxInFlight: 8})
		plain := cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())
		options := metav1.ListOptions{Limit: 50}
		requireSameOutcomes(t, listAll(t.Context(), plain, options), listAll(t.Context(), fast, options))
		requireSameWatch(t, watchAll(t, plain, metav1.ListOptions{}), watchAll(t, fast, metav1.ListOptions{}))
		if changed, all := serializer.changed(); changed != 0 || all < 200 {
			t.Fatalf("%d of %d decoded inputs were overwritten after their decode (want none, of at least 200)", changed, all)
		}
	})
}
