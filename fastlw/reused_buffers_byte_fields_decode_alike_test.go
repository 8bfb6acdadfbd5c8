package fastlw

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// byteFieldObjects are clientset objects whose fields hold bytes rather
// than strings, the fields a decoder could most cheaply leave aliasing its
// input: a Secret's Data, a ConfigMap's BinaryData, a ControllerRevision's
// raw Data (a runtime.RawExtension), a CSR's request, managedFields (a
// metav1.FieldsV1).
func byteFieldObjects() []runtime.Object {
	meta := metav1.ObjectMeta{Name: "x", Namespace: "ns", ResourceVersion: "7",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{".":{}}}`)}}}}
	return []runtime.Object{
		&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta,
			Data: map[string][]byte{"password": []byte("s3cr3t-bytes"), "empty": {}}},
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta,
			BinaryData: map[string][]byte{"blob": {0, 1, 2, 0xff, 'k', '8', 's'}}, Data: map[string]string{"k": "v"}},
		&appsv1.ControllerRevision{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}, ObjectMeta: meta,
			Data: runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`)}, Revision: 3},
		&certificatesv1.CertificateSigningRequest{TypeMeta: metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest"},
			ObjectMeta: meta, Spec: certificatesv1.CertificateSigningRequestSpec{Request: []byte("-----BEGIN CERTIFICATE REQUEST-----"),
				SignerName: "example.com/s", Extra: map[string]certificatesv1.ExtraValue{"e": {"1"}}}},
	}
}

// TestObjectsWithByteFieldsDecodedFromAReusedFrameStayAsAFreshDecodeGivesThem
// decodes a watch event of each byteFieldObjects object, in JSON (the fast
// path) and protobuf, and a protobuf pod carrying a field its schema does
// not know, from a buffer that is then overwritten: the event equals a
// fresh decode's, so none of the byte fields (nor an unknown field) holds
// the frame's bytes.
func TestObjectsWithByteFieldsDecodedFromAReusedFrameStayAsAFreshDecodeGivesThem(t *testing.T) {
	fast, _ := clientsetDecodings(t)
	protobuf, _ := protobufEventFrames(t)
	info, _ := runtime.SerializerInfoForMediaType(ClientsetSerializer().SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	for _, obj := range byteFieldObjects() {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		t.Run(kind+"/JSON", func(t *testing.T) {
			raw, err := runtime.Encode(scheme.Codecs.LegacyCodec(obj.GetObjectKind().GroupVersionKind().GroupVersion()), obj)
			if err != nil {
				t.Fatal(err)
			}
			requireDecodedAliasingNoFrameByte(t, fast, eventFrame("ADDED", raw), true)
		})
		t.Run(kind+"/protobuf", func(t *testing.T) {
			raw, err := runtime.Encode(info.Serializer, obj)
			if err != nil {
				t.Fatal(err)
			}
			requireDecodedAliasingNoFrameByte(t, protobuf, protobufEventFrame(t, info, raw), false)
		})
	}
	t.Run("a protobuf pod with an unknown field", func(t *testing.T) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "1"}}
		data, err := pod.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, 0x9a, 0x06, 5, 'h', 'e', 'l', 'l', 'o') // field 99, length-delimited
		unknown := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Pod"}, Raw: data}
		envelope, err := unknown.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		requireDecodedAliasingNoFrameByte(t, protobuf, protobufEventFrame(t, info, append([]byte("k8s\x00"), envelope...)), false)
	})
}

// protobufEventFrame returns the protobuf watch frame of an ADDED event
// around raw, an object as the protobuf serializer encodes it.
func protobufEventFrame(t *testing.T, info runtime.SerializerInfo, raw []byte) []byte {
	frame, err := runtime.Encode(info.StreamSerializer.Serializer, &metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// requireDecodedAliasingNoFrameByte is requireDecodeAliasesNoFrameByte
// for a frame that decodes to an ADDED event.
func requireDecodedAliasingNoFrameByte(t *testing.T, decoding streamDecoding, frame []byte, unchecked bool) {
	t.Helper()
	eventType, obj, err := decoding.decode(append([]byte(nil), frame...), unchecked)
	if err != nil || eventType != "ADDED" || obj == nil {
		t.Fatalf("the frame decoded to %q %v %v, want an ADDED event", eventType, obj, err)
	}
	requireDecodeAliasesNoFrameByte(t, decoding, frame, unchecked)
}
