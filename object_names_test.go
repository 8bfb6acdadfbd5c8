package cache

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestObjectNameStringMatchesMetaNamespaceKeyFunc(t *testing.T) {
	tests := []struct {
		name ObjectName
		want string
	}{
		{name: NewObjectName("ns", "p"), want: "ns/p"},
		{name: NewObjectName("", "n1"), want: "n1"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.name.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
			parsed, err := ParseObjectName(tt.want)
			if err != nil || parsed != tt.name {
				t.Fatalf("ParseObjectName(%q) = (%v, %v), want %v", tt.want, parsed, err, tt.name)
			}
			ns, n := tt.name.Parts()
			if ns != tt.name.Namespace || n != tt.name.Name {
				t.Fatalf("Parts() = (%q, %q)", ns, n)
			}
		})
	}
}

func TestObjectNameConversions(t *testing.T) {
	nn := types.NamespacedName{Namespace: "ns", Name: "p"}
	if got := NamespacedNameAsObjectName(nn); got.AsNamespacedName() != nn {
		t.Fatalf("round trip through NamespacedName gave %v", got)
	}
	if got := MetaObjectToName(testPod("ns", "p", "")); got != NewObjectName("ns", "p") {
		t.Fatalf("MetaObjectToName = %v", got)
	}
	tests := []struct {
		name    string
		obj     interface{}
		want    ObjectName
		wantErr bool
	}{
		{name: "object", obj: testPod("ns", "p", ""), want: NewObjectName("ns", "p")},
		{name: "tombstone", obj: DeletedFinalStateUnknown{Key: "ns/p"}, want: NewObjectName("ns", "p")},
		{name: "malformed tombstone key", obj: DeletedFinalStateUnknown{Key: "a/b/c"}, wantErr: true},
		{name: "no metadata", obj: 3, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DeletionHandlingObjectToName(tt.obj)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("got (%v, %v), want (%v, error=%v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
