package cache

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestInformerNamesAreUniqueUntilReleased(t *testing.T) {
	ResetInformerNamesForTesting()
	defer ResetInformerNamesForTesting()

	if _, err := NewInformerName(""); err == nil || err.Error() != "informer name cannot be empty" {
		t.Fatalf("empty name: err = %v", err)
	}
	first, err := NewInformerName("a")
	mustNoErr(t, err)
	if _, err := NewInformerName("a"); err == nil || err.Error() != `informer name "a" is already registered` {
		t.Fatalf("duplicate name: err = %v", err)
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	id := first.WithResource(pods)
	if !id.Reserved() || id.Name() != "a" || id.GroupVersionResource() != pods {
		t.Fatalf("first registration: %+v reserved=%v", id, id.Reserved())
	}
	if again := first.WithResource(pods); again.Reserved() {
		t.Fatalf("a repeated GVR must not be reserved")
	}
	first.Release()
	if id.Reserved() {
		t.Fatalf("identities of a released name must not be reserved")
	}
	if first.WithResource(schema.GroupVersionResource{Resource: "cm"}).Reserved() {
		t.Fatalf("a released name must reserve nothing")
	}
	second, err := NewInformerName("a")
	mustNoErr(t, err)
	if !second.WithResource(pods).Reserved() {
		t.Fatalf("a re-registered name starts afresh")
	}
	ResetInformerNamesForTesting()
	if second.WithResource(schema.GroupVersionResource{Resource: "x"}).Reserved() {
		t.Fatalf("reset must release every name")
	}
}

func TestZeroAndNilInformerIdentitiesReserveNothing(t *testing.T) {
	var zero InformerNameAndResource
	if zero.Reserved() || zero.Name() != "" {
		t.Fatalf("zero identity: reserved=%v name=%q", zero.Reserved(), zero.Name())
	}
	var nilName *InformerName
	if nilName.Name() != "" || nilName.WithResource(schema.GroupVersionResource{}).Reserved() {
		t.Fatalf("nil InformerName must be empty and reserve nothing")
	}
	nilName.Release()
}
