package cache

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// registrationRecorder is a SharedIndexInformer that records the
// registrations and index additions the typed wrapper makes.
type registrationRecorder struct {
	SharedIndexInformer
	calls   []string
	handler ResourceEventHandler
	indexer Indexer
}

func (r *registrationRecorder) AddEventHandlerWithOptions(h ResourceEventHandler, o HandlerOptions) (ResourceEventHandlerRegistration, error) {
	period := "nil"
	if o.ResyncPeriod != nil {
		period = o.ResyncPeriod.String()
	}
	r.calls = append(r.calls, "AddEventHandlerWithOptions resync="+period)
	r.handler = h
	return nil, nil
}

func (r *registrationRecorder) AddIndexers(ix Indexers) error {
	r.calls = append(r.calls, fmt.Sprintf("AddIndexers %d", len(ix)))
	return nil
}

func (r *registrationRecorder) GetIndexer() Indexer {
	r.calls = append(r.calls, "GetIndexer")
	return r.indexer
}

func TestAddTypedEventHandlerPassesAtMostOneOptionsToAddEventHandlerWithOptions(t *testing.T) {
	period := 2 * time.Second
	cases := []struct {
		name    string
		options []HandlerOptions
		want    string
		wantErr string
	}{
		{"none", nil, "[AddEventHandlerWithOptions resync=nil]", ""},
		{"one", []HandlerOptions{{ResyncPeriod: &period}}, "[AddEventHandlerWithOptions resync=2s]", ""},
		{"two", []HandlerOptions{{}, {}}, "[]", "at most one HandlerOptions may be passed, got 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &registrationRecorder{}
			_, err := NewTypedSharedIndexInformer[*v1.Pod](rec).AddTypedEventHandler(TypedResourceEventHandlerFuncs[*v1.Pod]{}, tc.options...)
			if got := fmt.Sprint(rec.calls); got != tc.want {
				t.Fatalf("calls = %s, want %s", got, tc.want)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestTypedInformerIndexMethodsGoThroughTheUntypedOnes(t *testing.T) {
	rec := &registrationRecorder{indexer: NewIndexer(MetaNamespaceKeyFunc, Indexers{})}
	typed := NewTypedSharedIndexInformer[*v1.Pod](rec)
	if len(rec.calls) != 0 {
		t.Fatalf("construction called %v", rec.calls)
	}
	if err := typed.AddTypedIndexers(TypedIndexers[*v1.Pod]{"a": nil, "b": nil}); err != nil {
		t.Fatal(err)
	}
	ix := typed.GetTypedIndexer()
	if err := ix.Add(testPod("ns", "a", "1")); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(rec.calls), "[AddIndexers 2 GetIndexer]"; got != want {
		t.Fatalf("calls = %s, want %s", got, want)
	}
	if keys := rec.indexer.ListKeys(); fmt.Sprint(keys) != "[ns/a]" {
		t.Fatalf("the typed indexer is not the informer's: %v", keys)
	}
}
