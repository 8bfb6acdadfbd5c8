package cache

import (
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testPod(namespace, name, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: rv}}
}

func TestMetaNamespaceKeyFuncGivesNamespaceSlashNameOrJustName(t *testing.T) {
	tests := []struct {
		name    string
		obj     interface{}
		want    string
		wantErr string
	}{
		{name: "namespaced object", obj: testPod("ns", "p", ""), want: "ns/p"},
		{name: "cluster-scoped object", obj: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, want: "n1"},
		{name: "explicit key passes through", obj: ExplicitKey("any/thing"), want: "any/thing"},
		{name: "object without metadata", obj: 42, wantErr: "object has no meta: object does not implement the Object interfaces"},
		{name: "tombstone is not unwrapped", obj: DeletedFinalStateUnknown{Key: "a/b"}, wantErr: "object has no meta: object does not implement the Object interfaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MetaNamespaceKeyFunc(tt.obj)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestDeletionHandlingMetaNamespaceKeyFuncUnwrapsTombstones(t *testing.T) {
	tests := []struct {
		name    string
		obj     interface{}
		want    string
		wantErr string
	}{
		{name: "tombstone gives its key", obj: DeletedFinalStateUnknown{Key: "a/b", Obj: 42}, want: "a/b"},
		{name: "plain object", obj: testPod("ns", "p", ""), want: "ns/p"},
		{name: "pointer to tombstone is not a tombstone", obj: &DeletedFinalStateUnknown{Key: "x"}, wantErr: "object has no meta: object does not implement the Object interfaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DeletionHandlingMetaNamespaceKeyFunc(tt.obj)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestSplitMetaNamespaceKeyRejectsMoreThanOneSlash(t *testing.T) {
	tests := []struct {
		key, wantNamespace, wantName, wantErr string
	}{
		{key: "ns/name", wantNamespace: "ns", wantName: "name"},
		{key: "name", wantName: "name"},
		{key: "/name", wantName: "name"},
		{key: "ns/", wantNamespace: "ns"},
		{key: ""},
		{key: "a/b/c", wantErr: `unexpected key format: "a/b/c"`},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			ns, name, err := SplitMetaNamespaceKey(tt.key)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ns != tt.wantNamespace || name != tt.wantName {
				t.Fatalf("got (%q, %q, %v), want (%q, %q, nil)", ns, name, err, tt.wantNamespace, tt.wantName)
			}
		})
	}
}

func TestKeyErrorNamesTheObjectAndUnwrapsToTheCause(t *testing.T) {
	cause := errors.New("boom")
	err := error(KeyError{Obj: struct{ A int }{1}, Err: cause})
	if got, want := err.Error(), "couldn't create key for object {A:1}: boom"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, cause) {
		t.Fatalf("errors.Is(KeyError, cause) = false")
	}
}

func TestIndexFuncToKeyFuncAdapterNeedsExactlyOneValue(t *testing.T) {
	tests := []struct {
		name    string
		values  []string
		err     error
		want    string
		wantErr string
	}{
		{name: "one value", values: []string{"a"}, want: "a"},
		{name: "no value", values: nil, wantErr: "unexpected empty indexKeys"},
		{name: "two values", values: []string{"a", "b"}, wantErr: "too many keys: [a b]"},
		{name: "index error passes through", err: errors.New("e1"), wantErr: "e1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyFunc := IndexFuncToKeyFuncAdapter(func(interface{}) ([]string, error) { return tt.values, tt.err })
			got, err := keyFunc(nil)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestMetaNamespaceIndexFuncIndexesByNamespace(t *testing.T) {
	got, err := MetaNamespaceIndexFunc(testPod("ns", "p", ""))
	if err != nil || len(got) != 1 || got[0] != "ns" {
		t.Fatalf("got (%q, %v), want ([ns], nil)", got, err)
	}
	if _, err := MetaNamespaceIndexFunc(7); err == nil {
		t.Fatalf("an object without metadata gave no error")
	}
}

// checkResult compares a (string, error) result with the wanted string or
// error text.
func checkResult(t *testing.T, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("err = %v, want %q", err, wantErr)
		}
		return
	}
	if err != nil || got != want {
		t.Fatalf("got (%q, %v), want (%q, nil)", got, err, want)
	}
}
