package fastlw

import (
	encodingjson "encoding/json"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/internal/realisticpods"
)

// realisticPods returns the JSON of the first n realistic pods, with kind
// and apiVersion as watch events carry them.
func realisticPods(t testing.TB, n int) [][]byte {
	gen, err := realisticpods.New(n, realisticpods.Seed)
	if err != nil {
		t.Fatal(err)
	}
	pods := make([][]byte, n)
	for i := range pods {
		pods[i] = gen.AppendPod(nil, i, true)
	}
	return pods
}

// realisticPage returns a PodList page of the first n realistic pods.
func realisticPage(t testing.TB, n int) []byte {
	gen, err := realisticpods.New(n, realisticpods.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return gen.AppendList(nil, 0, n, gen.ListResourceVersion(), "")
}

// eventFrame returns a JSON watch event frame as the apiserver writes one.
func eventFrame(eventType string, object []byte) []byte {
	return fmt.Appendf(nil, `{"type":%q,"object":%s}`, eventType, object)
}

// clientsetListerWatcher returns a ListerWatcher of pods for a client of
// core/v1 with ClientsetSerializer (it sends no request).
func clientsetListerWatcher(t testing.TB) *ListerWatcher {
	client, err := rest.RESTClientFor(&rest.Config{
		Host: "http://127.0.0.1:1", APIPath: "/api",
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion, NegotiatedSerializer: scheme.Codecs.WithoutConversion()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Client: client, Resource: "pods"})
}

// clientsetDecodings returns the JSON stream decoding fastlw builds for a
// client of core/v1 with ClientsetSerializer, and the same without its
// fast path (the plain path's decoding).
func clientsetDecodings(t testing.TB) (fast, plain streamDecoding) {
	fast, ok := streamDecodingFor(clientsetListerWatcher(t), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("the clientset's serializer does not stream JSON")
	}
	if fast.fastEmbedded == nil {
		t.Fatal("the clientset's JSON stream has no fast path")
	}
	plain = fast
	plain.fastEmbedded = nil
	return fast, plain
}

// edgeCaseObjects are objects (or not) whose kind is found in unusual ways.
var edgeCaseObjects = []string{
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns"}}`,
	`  {"kind" : "Pod" , "apiVersion" : "v1" , "metadata" : {"name":"a"}}  `,
	`{"apiVersion":"v1","kind":"Pod","kind":"Pod"}`,
	`{"apiVersion":"v1","Kind":"Service","kind":"Pod"}`,
	`{"apiVersion":"v1","KIND":"Pod"}`,
	`{"APIVERSION":"v1","kind":"Pod"}`,
	`{"apiVersion":"v1","\u212Aind":"Pod"}`,
	`{"apiVersion":"v1","kin\u0064":"Pod"}`,
	`{"apiVersion":"v1","kind":"P\u006fd"}`,
	`{"apiVersion":"v1","kind":null}`,
	`{"apiVersion":"v1","kind":5}`,
	`{"apiVersion":"v1/x/y","kind":"Pod"}`,
	`{"apiVersion":"apps/v1","kind":"Deployment"}`,
	`{"apiVersion":"v1","kind":"Pod"} x`,
	`{"apiVersion":"v1","kind":"Pod",}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"]}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a\"}"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":[1,2,{"a":"]"}]}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"\xff"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"Name":"a"}}`,
	`{"apiVersion":"v1","kind":"Pod","status":{"phase":"Running"},"spec":{"nodeName":"n"}}`,
	`{"apiVersion":"v1","kind":"Status","status":"Failure","code":410,"reason":"Expired"}`,
	`{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}}]}`,
	`{}`, `[]`, `null`, `"Pod"`, `{`, ``, `{"kind":"Pod"`, `{"apiVersion":"v1"}`, `{"kind":"Pod"}`,
}

// edgeCaseFrames are watch event frames the fast path must leave to the
// plain path, or serve as it does.
var edgeCaseFrames = []string{
	`{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}}`,
	`{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}},"type":"MODIFIED"}`,
	`{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
	`{"type":"ERROR","object":{"apiVersion":"v1","kind":"Status","status":"Failure","code":410,"reason":"Expired"}}`,
	`{"type":"DELETED","object":{"apiVersion":"v1","kind":"Pod"},"type":"ADDED"}`,
	`{"Type":"ADDED","object":{"apiVersion":"v1","kind":"Pod"}}`,
	`{"type":"ADDED","Object":{"apiVersion":"v1","kind":"Pod"}}`,
	`{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod"},"extra":1}`,
	`{"type":"AD\u0044ED","object":{"apiVersion":"v1","kind":"Pod"}}`,
	`{"type":"added","object":{"apiVersion":"v1","kind":"Pod"}}`,
	`{"type":"UNKNOWN","object":{"apiVersion":"v1","kind":"Pod"}}`,
	`{"type":"ADDED","object":null}`,
	`{"type":"ADDED","object":[]}`,
	`{"type":"ADDED","object":{}}`,
	`{"type":"ADDED","object":{"apiVersion":"v1","kind":"Nope"}}`,
	`{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","spec":{]}}`,
	`{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod"}} {}`,
	`{"type":"ADDED"}`, `{"object":{"apiVersion":"v1","kind":"Pod"}}`, `{}`, `[]`, `{`, ``,
}

// requireSameDecode fails unless the scanning decoder and the clientset's
// JSON serializer decode data alike: both errors nil or both non-nil, the
// same error on valid JSON, deeply equal objects and kinds.
func requireSameDecode(t *testing.T, fast, plain runtime.Decoder, data []byte) {
	t.Helper()
	fastObj, fastKind, fastErr := fast.Decode(data, nil, nil)
	plainObj, plainKind, plainErr := plain.Decode(data, nil, nil)
	if (fastErr == nil) != (plainErr == nil) {
		t.Fatalf("errors differ on %q: fast %v, plain %v", data, fastErr, plainErr)
	}
	if encodingjson.Valid(data) && fmt.Sprint(fastErr) != fmt.Sprint(plainErr) {
		t.Fatalf("errors differ on valid %q: fast %v, plain %v", data, fastErr, plainErr)
	}
	if fastErr == nil && (!reflect.DeepEqual(fastObj, plainObj) || !reflect.DeepEqual(fastKind, plainKind)) {
		t.Fatalf("decodes differ on %q: fast %#v %v, plain %#v %v", data, fastObj, fastKind, plainObj, plainKind)
	}
}

// requireSameEvent fails unless the two decodings decode frame to the same
// event type, a deeply equal object and the same error.
func requireSameEvent(t *testing.T, fast, plain streamDecoding, frame []byte) {
	t.Helper()
	fastType, fastObj, fastErr := fast.decode(frame, false)
	plainType, plainObj, plainErr := plain.decode(frame, false)
	if fastType != plainType || !reflect.DeepEqual(fastObj, plainObj) || !reflect.DeepEqual(fastErr, plainErr) {
		t.Fatalf("events differ on %q: fast %q %#v %v, plain %q %#v %v", frame, fastType, fastObj, fastErr, plainType, plainObj, plainErr)
	}
}

// FuzzTheScanningDecoderDecodesObjectsAsTheClientsetsJSONSerializer decodes
// arbitrary bytes with both (seeds: realistic pods, a list page, edge cases).
func FuzzTheScanningDecoderDecodesObjectsAsTheClientsetsJSONSerializer(f *testing.F) {
	for _, pod := range realisticPods(f, 3) {
		f.Add(pod)
	}
	f.Add(realisticPage(f, 2))
	for _, obj := range edgeCaseObjects {
		f.Add([]byte(obj))
	}
	fast := ClientsetSerializer().DecoderToVersion(scanningClientsetJSON, corev1.SchemeGroupVersion)
	plain := ClientsetSerializer().DecoderToVersion(clientsetJSON.Serializer, corev1.SchemeGroupVersion)
	f.Fuzz(func(t *testing.T, data []byte) {
		requireSameDecode(t, fast, plain, data)
		requireSameInterpret(t, data)
	})
}

// requireSameInterpret fails unless, on valid JSON, scanningMetaFactory
// and json.DefaultMetaFactory give the same kind and the same error.
func requireSameInterpret(t *testing.T, data []byte) {
	t.Helper()
	if !encodingjson.Valid(data) {
		return
	}
	fastKind, fastErr := scanningMetaFactory{}.Interpret(data)
	plainKind, plainErr := json.DefaultMetaFactory.Interpret(data)
	if !reflect.DeepEqual(fastKind, plainKind) || fmt.Sprint(fastErr) != fmt.Sprint(plainErr) {
		t.Fatalf("Interpret differs on %q: fast %v %v, default %v %v", data, fastKind, fastErr, plainKind, plainErr)
	}
}

// FuzzAWatchEventDecodesOnTheFastPathAsOnThePlainPath decodes arbitrary
// frames with and without the fast path (seeds: realistic pods' events,
// edge cases).
func FuzzAWatchEventDecodesOnTheFastPathAsOnThePlainPath(f *testing.F) {
	for i, pod := range realisticPods(f, 3) {
		f.Add(eventFrame([]string{"ADDED", "MODIFIED", "DELETED"}[i], pod))
	}
	for _, frame := range edgeCaseFrames {
		f.Add([]byte(frame))
	}
	fast, plain := clientsetDecodings(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		requireSameEvent(t, fast, plain, frame)
	})
}

// TestRealisticPodsEventsAndListPagesTakeTheFastPath pins that the
// sameness above is not trivial: what a real apiserver sends is served by
// the scan, not sent to the plain path.
func TestRealisticPodsEventsAndListPagesTakeTheFastPath(t *testing.T) {
	fast, _ := clientsetDecodings(t)
	for i, pod := range realisticPods(t, 20) {
		eventType, obj, ok := decodeEventFast(eventFrame("ADDED", pod), fast.fastEmbedded)
		if !ok || eventType != watch.Added {
			t.Fatalf("pod %d: fast path not taken (%v, %q)", i, ok, eventType)
		}
		if _, isPod := obj.(*corev1.Pod); !isPod {
			t.Fatalf("pod %d decoded to %T", i, obj)
		}
	}
	apiVersion, kind, ok := scanAPIVersionKind(realisticPage(t, 5))
	if !ok || apiVersion != "v1" || kind != "PodList" {
		t.Fatalf("list page: got %q %q %v, want v1 PodList by the scan", apiVersion, kind, ok)
	}
}

// TestTheKindScanLeavesUnusualObjectsToTheDefaultMetaFactory lists what the
// scan answers itself and what it leaves to json.DefaultMetaFactory.
func TestTheKindScanLeavesUnusualObjectsToTheDefaultMetaFactory(t *testing.T) {
	tests := []struct {
		name, data string
		scanned    bool
	}{
		{"a plain object", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}`, true},
		{"members in any order, whitespace around", " {\n\"kind\" : \"Pod\",\t\"apiVersion\":\"apps/v1\"} ", true},
		{"no kind at all", `{"metadata":{}}`, true},
		{"an empty object", `{}`, true},
		{"a duplicate kind", `{"kind":"Pod","kind":"Pod"}`, false},
		{"a key equal to kind ignoring case", `{"Kind":"Pod"}`, false},
		{"a key equal to apiVersion ignoring case", `{"apiversion":"v1"}`, false},
		{"an escape in a key", `{"kin\u0064":"Pod"}`, false},
		{"a non-ASCII key", "{\"\u212aind\":\"Pod\"}", false},
		{"an escape in the kind", `{"kind":"P\u006fd"}`, false},
		{"a null kind", `{"kind":null}`, false},
		{"a number for a kind", `{"kind":5}`, false},
		{"an array", `[]`, false},
		{"null", `null`, false},
		{"trailing bytes", `{"kind":"Pod"}x`, false},
		{"a cut object", `{"kind":"Pod"`, false},
		{"a missing value", `{"kind":}`, false},
		{"a trailing comma", `{"kind":"Pod",}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, scanned := scanAPIVersionKind([]byte(tt.data)); scanned != tt.scanned {
				t.Fatalf("scanned = %v, want %v", scanned, tt.scanned)
			}
			requireSameInterpret(t, []byte(tt.data))
		})
	}
}

// TestOnlyTheClientsetsJSONSerializerGetsTheScanningDecoder pins the
// identity check: another serializer, even one reading the same JSON, keeps
// its own decoder.
func TestOnlyTheClientsetsJSONSerializerGetsTheScanningDecoder(t *testing.T) {
	tests := []struct {
		name       string
		serializer runtime.NegotiatedSerializer
		mediaType  string
		want       bool
	}{
		{"clientset JSON", ClientsetSerializer(), runtime.ContentTypeJSON, true},
		{"clientset protobuf", ClientsetSerializer(), runtime.ContentTypeProtobuf, false},
		{"metadata JSON", MetadataSerializer(), runtime.ContentTypeJSON, false},
		{"unstructured JSON", UnstructuredSerializer(), runtime.ContentTypeJSON, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, ok := runtime.SerializerInfoForMediaType(tt.serializer.SupportedMediaTypes(), tt.mediaType)
			if !ok {
				t.Fatal("no serializer")
			}
			if _, got := fastJSONDecoder(info); got != tt.want {
				t.Fatalf("fast = %v, want %v", got, tt.want)
			}
		})
	}
}
