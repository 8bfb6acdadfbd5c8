package fastlw

import (
	"testing"

	"k8s.io/client-go/rest"
)

// TestAListMediaTypeWithParametersIsCutOnlyWhenTheAcceptHeaderAskedForIt
// pins which list responses fastlw cuts by their Content-Type: one without
// parameters (or with charset=utf-8) always; one with parameters only when
// ListAccept names that media type with exactly those parameters, as the
// metadata client asks for PartialObjectMetadataList; a Table never, even
// when asked for; anything else goes to the plain path.
func TestAListMediaTypeWithParametersIsCutOnlyWhenTheAcceptHeaderAskedForIt(t *testing.T) {
	const metaAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	for _, tc := range []struct {
		name, accept, contentType string
		want                      string // "" for the plain path
	}{
		{"JSON, no Accept configured", "", "application/json", "application/json"},
		{"JSON with charset", "", "application/json; charset=utf-8", "application/json"},
		{"metadata list in protobuf, asked for", metaAccept, "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "application/vnd.kubernetes.protobuf"},
		{"metadata list in JSON, asked for", metaAccept, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "application/json"},
		{"metadata list, not asked for", "", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", ""},
		{"metadata list of another version than asked", metaAccept, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1", ""},
		{"a Table, not asked for", metaAccept, "application/json;as=Table;g=meta.k8s.io;v=v1", ""},
		{"a Table, asked for", "application/json;as=Table;g=meta.k8s.io;v=v1", "application/json;as=Table;g=meta.k8s.io;v=v1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw := New(Config{Client: &rest.RESTClient{}, Resource: "pods", ListAccept: tc.accept})
			got, ok := lw.cuttableMediaType(tc.contentType)
			if !ok {
				got = ""
			}
			if got != tc.want {
				t.Errorf("cuttableMediaType(%q) = %q, want %q", tc.contentType, got, tc.want)
			}
		})
	}
}
