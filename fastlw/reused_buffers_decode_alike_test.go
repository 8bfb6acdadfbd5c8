package fastlw

import (
	encodingjson "encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kcache-go/cache/internal/realisticpods"
)

// overwrite fills buf with bytes no decode could have kept.
func overwrite(buf []byte) {
	for i := range buf {
		buf[i] = '#'
	}
}

// TestAWatchFrameBufferOverwrittenAfterItsDecodeLeavesTheEventAsAFreshDecodeGivesIt
// decodes each frame from a buffer, overwrites the buffer, and compares the
// event with a decode of a fresh copy: nothing decoded holds the frame's
// bytes, for JSON on the fast path (realistic pods, managedFields included)
// and on the plain path it falls back to (edge cases: ERROR events, unusual
// envelopes, invalid frames), and for protobuf.
func TestAWatchFrameBufferOverwrittenAfterItsDecodeLeavesTheEventAsAFreshDecodeGivesIt(t *testing.T) {
	fast, _ := clientsetDecodings(t)
	var frames [][]byte
	for i, pod := range realisticPods(t, 6) {
		frames = append(frames, eventFrame([]string{"ADDED", "MODIFIED", "DELETED"}[i%3], pod))
	}
	for _, frame := range edgeCaseFrames {
		frames = append(frames, []byte(frame))
	}
	protobuf, protobufFrames := protobufEventFrames(t)
	for _, tt := range []struct {
		name      string
		decoding  streamDecoding
		frames    [][]byte
		unchecked bool // cut by jsonFrames
	}{{"JSON", fast, frames, true}, {"protobuf", protobuf, protobufFrames, false}} {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.decoding.copiesFrames() {
				t.Fatal("the stream does not reuse its frame buffers")
			}
			for _, frame := range tt.frames {
				requireDecodeAliasesNoFrameByte(t, tt.decoding, frame, tt.unchecked)
			}
		})
	}
}

// requireDecodeAliasesNoFrameByte fails unless frame decodes from a buffer
// that is then overwritten to what a fresh copy of it decodes to.
func requireDecodeAliasesNoFrameByte(t *testing.T, decoding streamDecoding, frame []byte, unchecked bool) {
	t.Helper()
	buf := append([]byte(nil), frame...)
	gotType, gotObj, gotErr := decoding.decode(buf, unchecked)
	overwrite(buf)
	wantType, wantObj, wantErr := decoding.decode(append([]byte(nil), frame...), unchecked)
	if gotType != wantType || !reflect.DeepEqual(gotObj, wantObj) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("after its buffer was overwritten, %.80q decoded to %q %v %v, a fresh decode to %q %v %v",
			frame, gotType, gotObj, gotErr, wantType, wantObj, wantErr)
	}
}

// protobufEventFrames returns the protobuf stream decoding of the
// clientset and the frames of ADDED events of realistic pods in it.
func protobufEventFrames(t *testing.T) (streamDecoding, [][]byte) {
	decoding, ok := streamDecodingFor(clientsetListerWatcher(t), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("the clientset has no protobuf stream")
	}
	pods, err := realisticpods.DecodeList(realisticPage(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := runtime.SerializerInfoForMediaType(ClientsetSerializer().SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	podEncoder := scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
	var frames [][]byte
	for i := range pods.Items {
		raw, err := runtime.Encode(podEncoder, &pods.Items[i])
		if err != nil {
			t.Fatal(err)
		}
		frame, err := runtime.Encode(info.StreamSerializer.Serializer, &metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: raw}})
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, frame)
	}
	return decoding, frames
}

// TestAStreamOfUnknownDecodersGetsANewBufferForEveryFrame pins the other
// side of the gate: the unstructured serializer's stream is not known to
// copy its input, so its frames are never reused.
func TestAStreamOfUnknownDecodersGetsANewBufferForEveryFrame(t *testing.T) {
	lw := clientsetListerWatcher(t)
	lw.cfg.Serializer = UnstructuredSerializer()
	decoding, ok := streamDecodingFor(lw, runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("the unstructured serializer has no JSON stream")
	}
	if decoding.copiesFrames() {
		t.Fatal("the unstructured stream reuses its frame buffers")
	}
}

// listPageCase is one list page in one format with the decoder fastlw
// builds for it.
type listPageCase struct {
	name    string
	body    []byte
	split   func([]byte) (splitList, bool)
	decoder runtime.Decoder
}

// TestAListChunkBufferOverwrittenAfterItsDecodeLeavesTheItemsAsThePlainDecodeGivesThem
// decodes each page's items from one chunk buffer, overwrites the buffer,
// and compares the items with the plain decode of the whole page, for
// every decoder that reuses chunk buffers: the clientset's JSON (scanning)
// and protobuf, the metadata client's JSON and protobuf.
func TestAListChunkBufferOverwrittenAfterItsDecodeLeavesTheItemsAsThePlainDecodeGivesThem(t *testing.T) {
	for _, tt := range listPageCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			if !copiesInput(tt.decoder) {
				t.Fatal("the decoder does not reuse chunk buffers")
			}
			page, ok := tt.split(tt.body)
			if !ok {
				t.Fatal("the page was not split")
			}
			list, err := runtime.Decode(tt.decoder, page.skeleton())
			if err != nil {
				t.Fatal(err)
			}
			items, _ := itemsField(list)
			into := reflect.MakeSlice(items.Type(), page.len(), page.len())
			buf := page.appendChunk(nil, 0, page.len())
			if !decodeChunk(tt.decoder, buf, into, list, true) {
				t.Fatal("the chunk did not decode")
			}
			overwrite(buf)
			plain, err := runtime.Decode(tt.decoder, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := itemsField(plain)
			if !reflect.DeepEqual(into.Interface(), want.Interface()) {
				t.Fatalf("items differ from the plain decode after the chunk buffer was overwritten")
			}
		})
	}
}

// listPageCases returns a page of realistic pods as the clientset and the
// metadata client receive it, in JSON and protobuf.
func listPageCases(t *testing.T) []listPageCase {
	jsonPage := realisticPage(t, 8)
	pods, err := realisticpods.DecodeList(jsonPage)
	if err != nil {
		t.Fatal(err)
	}
	pods.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}
	metadata := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}, ListMeta: pods.ListMeta}
	for _, pod := range pods.Items {
		metadata.Items = append(metadata.Items, metav1.PartialObjectMetadata{ObjectMeta: pod.ObjectMeta})
	}
	metadataJSON, err := encodingjson.Marshal(metadata)
	if err != nil {
		t.Fatal(err)
	}
	splitJSON := func(b []byte) (splitList, bool) { return splitJSONList(b) }
	splitProtobuf := func(b []byte) (splitList, bool) { return splitProtobufList(b) }
	clientset, meta := ClientsetSerializer(), MetadataSerializer()
	return []listPageCase{
		{"clientset JSON", jsonPage, splitJSON, clientset.DecoderToVersion(scanningClientsetJSON, corev1.SchemeGroupVersion)},
		{"clientset protobuf", protobufOf(t, clientset, pods), splitProtobuf, clientset.DecoderToVersion(serializerFor(t, clientset, runtime.ContentTypeProtobuf), corev1.SchemeGroupVersion)},
		{"metadata JSON", metadataJSON, splitJSON, meta.DecoderToVersion(serializerFor(t, meta, runtime.ContentTypeJSON), metav1.SchemeGroupVersion)},
		{"metadata protobuf", protobufOf(t, meta, metadata), splitProtobuf, meta.DecoderToVersion(serializerFor(t, meta, runtime.ContentTypeProtobuf), metav1.SchemeGroupVersion)},
	}
}

// serializerFor returns codecs' serializer for mediaType.
func serializerFor(t *testing.T, codecs runtime.NegotiatedSerializer, mediaType string) runtime.Serializer {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	return info.Serializer
}

// protobufOf encodes obj (its kind set) with codecs' protobuf serializer.
func protobufOf(t *testing.T, codecs runtime.NegotiatedSerializer, obj runtime.Object) []byte {
	data, err := runtime.Encode(serializerFor(t, codecs, runtime.ContentTypeProtobuf), obj)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestOnlyDecodersKnownToCopyTheirInputReuseBuffers pins the gate of buffer
// reuse: what the clientset's and the metadata client's codecs make of
// their own serializers, nothing else (a serializer unwrapped, the
// unstructured decoding, a JSON serializer of the same scheme but another
// object).
func TestOnlyDecodersKnownToCopyTheirInputReuseBuffers(t *testing.T) {
	gv := schema.GroupVersion{Version: "v1"}
	clientset, meta := ClientsetSerializer(), MetadataSerializer()
	tests := []struct {
		name    string
		decoder runtime.Decoder
		want    bool
	}{
		{"the clientset's scanning JSON", clientset.DecoderToVersion(scanningClientsetJSON, gv), true},
		{"the clientset's JSON", clientset.DecoderToVersion(clientsetJSON.Serializer, gv), true},
		{"the clientset's protobuf", clientset.DecoderToVersion(serializerFor(t, clientset, runtime.ContentTypeProtobuf), gv), true},
		{"the metadata client's JSON", meta.DecoderToVersion(serializerFor(t, meta, runtime.ContentTypeJSON), gv), true},
		{"the metadata client's protobuf", meta.DecoderToVersion(serializerFor(t, meta, runtime.ContentTypeProtobuf), gv), true},
		{"the clientset's JSON unwrapped", clientsetJSON.Serializer, false},
		{"the unstructured decoding", UnstructuredSerializer().DecoderToVersion(nil, gv), false},
		{"another JSON serializer of the same scheme", clientset.DecoderToVersion(json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{}), gv), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := copiesInput(tt.decoder); got != tt.want {
				t.Fatalf("copiesInput = %v, want %v", got, tt.want)
			}
		})
	}
}

// streamDecodingFor returns the stream decoding lw picks for a 200 watch
// answer of contentType, and whether it streams that media type.
func streamDecodingFor(lw *ListerWatcher, contentType string) (streamDecoding, bool) {
	answer := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {contentType}}}
	info, ok := lw.streamInfoFor(answer)
	if !ok {
		return streamDecoding{}, false
	}
	return lw.streamDecoding(info), true
}
