package cache

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientfeatures "k8s.io/client-go/features"
)

func TestStoreRecordsTheResourceVersionOfEveryWrite(t *testing.T) {
	type step struct {
		name string
		do   func(s Store) error
		want string
	}
	steps := []step{
		{"add", func(s Store) error { return s.Add(testPod("a", "x", "10")) }, "10"},
		{"add of an older version still records it", func(s Store) error { return s.Add(testPod("a", "y", "5")) }, "5"},
		{"update with a non-numeric version", func(s Store) error { return s.Update(testPod("a", "y", "abc")) }, "abc"},
		{"delete records the deleted object's version", func(s Store) error { return s.Delete(testPod("a", "y", "7")) }, "7"},
		{"delete of an absent key records too", func(s Store) error { return s.Delete(testPod("q", "q", "8")) }, "8"},
		{"bookmark", func(s Store) error { s.Bookmark("3"); return nil }, "3"},
		{"replace records the list version", func(s Store) error { return s.Replace([]interface{}{testPod("a", "z", "99")}, "50") }, "50"},
		{"failed replace changes nothing", func(s Store) error {
			if err := s.Replace([]interface{}{testPod("a", "b", "1"), 42}, "9"); err == nil {
				return errors.New("replace with an object without metadata succeeded")
			}
			return nil
		}, "50"},
	}
	store := NewStore(MetaNamespaceKeyFunc)
	for _, st := range steps {
		if err := st.do(store); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := store.LastStoreSyncResourceVersion(); got != st.want {
			t.Fatalf("%s: LastStoreSyncResourceVersion = %q, want %q", st.name, got, st.want)
		}
	}
	if keys := store.ListKeys(); len(keys) != 1 || keys[0] != "a/z" {
		t.Fatalf("after a failed Replace the content changed: %v", keys)
	}
}

func TestThreadSafeStoreDeleteByKeyKeepsTheResourceVersion(t *testing.T) {
	store := NewThreadSafeStore(Indexers{}, Indices{})
	store.Add("k", testPod("a", "b", "5"))
	store.Delete("k")
	store.Add("k", 42) // no metadata: nothing to record
	store.DeleteWithObject("k", nil)
	if got := store.LastStoreSyncResourceVersion(); got != "5" {
		t.Fatalf("LastStoreSyncResourceVersion = %q, want 5", got)
	}
}

func TestStoreReportsKeyErrorsForObjectsWithoutMetadata(t *testing.T) {
	store := NewStore(MetaNamespaceKeyFunc)
	tests := []struct {
		name string
		call func() error
	}{
		{"add", func() error { return store.Add(42) }},
		{"update", func() error { return store.Update(42) }},
		{"delete", func() error { return store.Delete(42) }},
		{"get", func() error { _, _, err := store.Get(42); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var keyErr KeyError
			if !errors.As(err, &keyErr) || keyErr.Obj != 42 {
				t.Fatalf("err = %#v, want a KeyError for 42", err)
			}
		})
	}
}

func TestTransformerRunsBeforeStoringButNotOnDelete(t *testing.T) {
	var calls int
	label := func(obj interface{}) (interface{}, error) {
		calls++
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Labels = map[string]string{"transformed": "yes"}
		return pod, nil
	}
	store := NewStore(MetaNamespaceKeyFunc, WithTransformer(label))
	mustNoErr(t, store.Add(testPod("a", "x", "1")))
	mustNoErr(t, store.Update(testPod("a", "x", "2")))
	mustNoErr(t, store.Replace([]interface{}{testPod("a", "y", "3")}, "3"))
	mustNoErr(t, store.Delete(testPod("a", "y", "4")))
	if calls != 3 {
		t.Fatalf("transformer ran %d times, want 3 (add, update, replace; not delete)", calls)
	}
	mustNoErr(t, store.Add(testPod("a", "z", "5")))
	obj, _, _ := store.GetByKey("a/z")
	if obj.(*v1.Pod).Labels["transformed"] != "yes" {
		t.Fatalf("stored object was not transformed")
	}
	if _, ok := store.(TransformingStore); ok {
		t.Fatalf("a store is not a TransformingStore in client-go either")
	}

	failing := NewStore(MetaNamespaceKeyFunc, WithTransformer(func(interface{}) (interface{}, error) { return nil, errors.New("tfail") }))
	if err := failing.Add(testPod("a", "x", "1")); err == nil || err.Error() != "transforming: tfail" {
		t.Fatalf("Add with failing transformer: %v", err)
	}
	if err := failing.Replace([]interface{}{testPod("a", "x", "1")}, "1"); err == nil || err.Error() != "transforming: tfail" {
		t.Fatalf("Replace with failing transformer: %v", err)
	}
	if len(failing.ListKeys()) != 0 {
		t.Fatalf("failed transforms stored objects")
	}
}

func TestTransactionAppliesTheValidOnesAndReportsTheRest(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	txStore := store.(TransactionStore)
	if err := txStore.Transaction(); err != nil {
		t.Fatalf("empty transaction: %v", err)
	}
	err := txStore.Transaction(
		Transaction{Object: testPod("b", "x", "5"), Type: TransactionTypeAdd},
		Transaction{Object: 42, Type: TransactionTypeAdd},
		Transaction{Object: testPod("b", "y", "9"), Type: "Weird"},
		Transaction{Object: testPod("b", "z", "9"), Type: TransactionTypeUpdate},
		Transaction{Object: testPod("b", "x", "10"), Type: TransactionTypeDelete},
	)
	if err == nil {
		t.Fatalf("want a TransactionError")
	}
	if !reflect.DeepEqual(err.SuccessfulIndices, []int{0, 2, 3, 4}) || err.TotalTransactions != 5 || len(err.Errors) != 1 {
		t.Fatalf("TransactionError = %#v", err)
	}
	want := "failed to execute (1/5) transactions failed due to: [couldn't create key for object 42: object has no meta: object does not implement the Object interfaces]"
	if err.Error() != want {
		t.Fatalf("Error() = %q\nwant      %q", err.Error(), want)
	}
	keys := store.ListKeys()
	if len(keys) != 1 || keys[0] != "b/z" {
		t.Fatalf("keys after transaction = %v, want [b/z]", keys)
	}
	if rv := store.LastStoreSyncResourceVersion(); rv != "10" {
		t.Fatalf("resource version = %q, want 10", rv)
	}
	byNs, _ := store.ByIndex(NamespaceIndex, "b")
	if len(byNs) != 1 {
		t.Fatalf("namespace index holds %d objects, want 1", len(byNs))
	}
}

func TestThreadSafeStoreTransactionRecordsVersionsEvenForUnknownTypes(t *testing.T) {
	store := NewThreadSafeStore(Indexers{}, Indices{}).(ThreadSafeStoreWithTransaction)
	store.Transaction(
		ThreadSafeStoreTransaction{Transaction: Transaction{Object: testPod("a", "x", "5"), Type: TransactionTypeAdd}, Key: "a/x"},
		ThreadSafeStoreTransaction{Transaction: Transaction{Object: testPod("a", "x", "7"), Type: TransactionTypeDelete}, Key: "a/x"},
		ThreadSafeStoreTransaction{Transaction: Transaction{Object: testPod("a", "z", "8"), Type: "Weird"}, Key: "a/z"},
	)
	if keys := store.ListKeys(); len(keys) != 0 {
		t.Fatalf("keys = %v, want none", keys)
	}
	if rv := store.LastStoreSyncResourceVersion(); rv != "8" {
		t.Fatalf("resource version = %q, want 8", rv)
	}
}

func TestEmptyReadsReturnEmptySlicesNotNil(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	if store.List() == nil || store.ListKeys() == nil || store.ListIndexFuncValues(NamespaceIndex) == nil {
		t.Fatalf("empty List/ListKeys/ListIndexFuncValues returned nil")
	}
	byIndex, _ := store.ByIndex(NamespaceIndex, "none")
	index, _ := store.Index(NamespaceIndex, testPod("none", "x", ""))
	keys, _ := store.IndexKeys(NamespaceIndex, "none")
	if byIndex == nil || index == nil || keys == nil {
		t.Fatalf("empty index reads returned nil")
	}
}

// recordingGauge remembers every value it is set to.
type recordingGauge struct{ values []float64 }

func (g *recordingGauge) Set(v float64) { g.values = append(g.values, v) }

// gaugeProvider hands out one recordingGauge for the store's version.
type gaugeProvider struct{ version *recordingGauge }

func (p gaugeProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric { return noopMetric{} }
func (p gaugeProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return noopMetric{}
}
func (p gaugeProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return p.version
}

func TestStoreMetricsPublishNumericResourceVersionsOnlyForReservedIdentities(t *testing.T) {
	ResetInformerNamesForTesting()
	defer ResetInformerNamesForTesting()
	name, err := NewInformerName("store-metrics-test")
	mustNoErr(t, err)
	reserved := name.WithResource(schema.GroupVersionResource{Resource: "pods"})

	unreserved := &recordingGauge{}
	store := NewStore(MetaNamespaceKeyFunc, WithStoreMetrics(InformerNameAndResource{}, gaugeProvider{unreserved}))
	mustNoErr(t, store.Add(testPod("a", "x", "12")))
	if len(unreserved.values) != 0 {
		t.Fatalf("a zero identity published %v", unreserved.values)
	}

	gauge := &recordingGauge{}
	store = NewStore(MetaNamespaceKeyFunc, WithStoreMetrics(reserved, gaugeProvider{gauge}))
	for _, rv := range []string{"12", "abc", "1.5", "-3", "", "18446744073709551616"} {
		mustNoErr(t, store.Add(testPod("a", "x", rv)))
	}
	store.Bookmark("20")
	mustNoErr(t, store.Replace(nil, "30"))
	want := []float64{12, -3, 0, 744073709551616, 20, 30}
	if !reflect.DeepEqual(gauge.values, want) {
		t.Fatalf("gauge values = %v, want %v", gauge.values, want)
	}
}

func TestReadersRunConcurrentlyWithAWriter(t *testing.T) {
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc, "node": nodeIndexFunc})
	const writes = 2000
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for i := 0; i < writes; i++ {
			pod := taggedPod(fmt.Sprintf("ns%d", i%5), fmt.Sprintf("p%d", i%300), fmt.Sprintf("n%d", i%7), "")
			if i%4 == 3 {
				_ = store.Delete(pod)
			} else {
				_ = store.Update(pod)
			}
		}
	}()
	for r := 0; r < 2; r++ {
		go func() {
			defer wg.Done()
			for i := 0; i < writes; i++ {
				objs, err := store.ByIndex("node", fmt.Sprintf("n%d", i%7))
				if err != nil {
					t.Error(err)
					return
				}
				for _, obj := range objs {
					if obj.(*v1.Pod).Spec.NodeName != fmt.Sprintf("n%d", i%7) {
						t.Errorf("ByIndex returned a pod of another node")
						return
					}
				}
				_ = store.List()
			}
		}()
	}
	wg.Wait()
	assertIndicesMatchContent(t, store, store.GetIndexers())
	keys := store.ListKeys()
	sort.Strings(keys)
	if len(keys) == 0 {
		t.Fatalf("writer left no objects")
	}
}

// atomicFIFOGate overrides the AtomicFIFO gate and delegates every other one.
type atomicFIFOGate struct {
	enabled bool
	others  clientfeatures.Gates
}

func (g *atomicFIFOGate) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.AtomicFIFO {
		return g.enabled
	}
	return g.others.Enabled(f)
}

func TestResourceVersionReadsEmptyWhileTheAtomicFIFOGateIsOff(t *testing.T) {
	original := clientfeatures.FeatureGates()
	gate := &atomicFIFOGate{enabled: true, others: original}
	clientfeatures.ReplaceFeatureGates(gate)
	defer clientfeatures.ReplaceFeatureGates(original)

	store := NewStore(MetaNamespaceKeyFunc)
	mustNoErr(t, store.Add(testPod("a", "b", "6")))
	gate.enabled = false
	if rv := store.LastStoreSyncResourceVersion(); rv != "" {
		t.Fatalf("gate off: LastStoreSyncResourceVersion = %q, want empty", rv)
	}
	store.Bookmark("8")
	gate.enabled = true
	if rv := store.LastStoreSyncResourceVersion(); rv != "8" {
		t.Fatalf("gate back on: LastStoreSyncResourceVersion = %q, want the version recorded meanwhile", rv)
	}
}

func TestKeyComesFromTheObjectAsGivenNotAsTransformed(t *testing.T) {
	var calls int
	rename := func(obj interface{}) (interface{}, error) {
		calls++
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Name = "renamed"
		return pod, nil
	}
	store := NewStore(MetaNamespaceKeyFunc, WithTransformer(rename))
	mustNoErr(t, store.Add(testPod("a", "orig", "1")))
	if keys := store.ListKeys(); len(keys) != 1 || keys[0] != "a/orig" {
		t.Fatalf("keys = %v, want [a/orig]", keys)
	}
	if err := store.Add(42); err == nil || calls != 1 {
		t.Fatalf("an object without a key must fail before the transformer runs (err=%v, calls=%d)", err, calls)
	}
}

func TestStoreTransactionsStoreObjectsAsGiven(t *testing.T) {
	refuse := func(interface{}) (interface{}, error) { return nil, errors.New("refused") }
	store := NewIndexer(MetaNamespaceKeyFunc, Indexers{}, WithTransformer(refuse))
	if err := store.(TransactionStore).Transaction(Transaction{Object: testPod("a", "x", "1"), Type: TransactionTypeAdd}); err != nil {
		t.Fatalf("Transaction = %v; transactions bypass the transformer", err)
	}
	if _, exists, _ := store.GetByKey("a/x"); !exists {
		t.Fatalf("the transaction's object was not stored")
	}
}

func TestTransactionRecordsOnlyTheLastObjectsVersion(t *testing.T) {
	tests := []struct {
		name   string
		last   interface{}
		wantRV string
	}{
		{name: "last object has metadata", last: testPod("a", "y", "22"), wantRV: "22"},
		{name: "last object has none: the version before the call stays", last: DeletedFinalStateUnknown{Key: "a/t", Obj: testPod("a", "t", "11")}, wantRV: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gauge := &recordingGauge{}
			ResetInformerNamesForTesting()
			defer ResetInformerNamesForTesting()
			name, err := NewInformerName("transaction-version")
			mustNoErr(t, err)
			store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{},
				WithStoreMetrics(name.WithResource(schema.GroupVersionResource{Resource: "pods"}), gaugeProvider{gauge}))
			store.Bookmark("1")
			_ = store.(TransactionStore).Transaction(
				Transaction{Object: testPod("a", "x", "21"), Type: TransactionTypeAdd},
				Transaction{Object: tt.last, Type: TransactionTypeAdd},
			)
			if rv := store.LastStoreSyncResourceVersion(); rv != tt.wantRV {
				t.Fatalf("LastStoreSyncResourceVersion = %q, want %q", rv, tt.wantRV)
			}
			if want := []float64{1}; tt.wantRV == "22" {
				want = append(want, 22)
				if !reflect.DeepEqual(gauge.values, want) {
					t.Fatalf("gauge = %v, want %v (one value per transaction)", gauge.values, want)
				}
			} else if !reflect.DeepEqual(gauge.values, want) {
				t.Fatalf("gauge = %v, want %v", gauge.values, want)
			}
		})
	}
}
