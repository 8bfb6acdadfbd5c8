package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	cg "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// errCause is the error the failing callbacks of these tests return.
var errCause = errors.New("the cause")

// wrapPod is a pod the queues and stores of these tests take.
var wrapPod = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "1"}}

// failingKey is a KeyFunc that fails.
func failingKey(any) (string, error) { return "", errCause }

// failingTransform is a TransformFunc that fails.
func failingTransform(any) (any, error) { return nil, errCause }

// failingProcess is a PopProcessFunc that fails.
func failingProcess(any, bool) error { return errCause }

// failingKnown is a KeyListerGetter that knows one key and fails to get it.
type failingKnown struct{}

func (failingKnown) ListKeys() []string { return []string{"ns/gone"} }
func (failingKnown) GetByKey(string) (any, bool, error) {
	return nil, false, errCause
}

// errorChain prints an error as client-go's and kcache's compare: its
// message, whether errors.Is finds errCause, and the dynamic type of every
// error it wraps, in order (a joined error's are listed in brackets).
func errorChain(err error) string {
	if err == nil {
		return "nil"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q is-cause=%v chain:", err.Error(), errors.Is(err, errCause))
	for e := err; e != nil; {
		fmt.Fprintf(&b, " %T", e)
		if joined, ok := e.(interface{ Unwrap() []error }); ok {
			b.WriteString("[")
			for _, inner := range joined.Unwrap() {
				fmt.Fprintf(&b, " %T", inner)
			}
			b.WriteString(" ]")
			break
		}
		e = errors.Unwrap(e)
	}
	return b.String()
}

// wrapCase is one error path, run on both libraries.
type wrapCase struct {
	name   string
	cg, kc func() error
}

// deltaFIFOWrapCases are DeltaFIFO's error paths with a cause in its
// transformer or its key function.
func deltaFIFOWrapCases() []wrapCase {
	return []wrapCase{
		{"DeltaFIFO.Replace with a failing transformer",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{Transformer: failingTransform}).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{Transformer: failingTransform}).Replace([]any{wrapPod}, "1")
			}},
		{"DeltaFIFO.Add with a failing transformer",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{Transformer: failingTransform}).Add(wrapPod)
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{Transformer: failingTransform}).Add(wrapPod)
			}},
		{"DeltaFIFO.Update with a failing transformer",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{Transformer: failingTransform}).Update(wrapPod)
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{Transformer: failingTransform}).Update(wrapPod)
			}},
		{"DeltaFIFO.Delete with a failing transformer",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{Transformer: failingTransform}).Delete(wrapPod)
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{Transformer: failingTransform}).Delete(wrapPod)
			}},
		{"DeltaFIFO.Add with a failing key function",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KeyFunction: failingKey}).Add(wrapPod)
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KeyFunction: failingKey}).Add(wrapPod)
			}},
	}
}

// deltaFIFOKeyWrapCases are DeltaFIFO's error paths with a cause in its key
// function, its known objects or its consumer.
func deltaFIFOKeyWrapCases() []wrapCase {
	return []wrapCase{
		{"DeltaFIFO.Replace with a failing key function",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KeyFunction: failingKey}).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KeyFunction: failingKey}).Replace([]any{wrapPod}, "1")
			}},
		{"DeltaFIFO.Replace with failing known objects",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: failingKnown{}}).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: failingKnown{}}).Replace([]any{wrapPod}, "1")
			}},
		{"DeltaFIFO.Resync with failing known objects",
			func() error {
				return cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KnownObjects: failingKnown{}}).Resync()
			},
			func() error {
				return kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KnownObjects: failingKnown{}}).Resync()
			}},
		{"DeltaFIFO.KeyOf with a failing key function",
			func() error {
				_, err := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{KeyFunction: failingKey}).KeyOf(wrapPod)
				return err
			},
			func() error {
				_, err := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{KeyFunction: failingKey}).KeyOf(wrapPod)
				return err
			}},
		{"DeltaFIFO.Pop with a failing process function",
			func() error {
				q := cg.NewDeltaFIFOWithOptions(cg.DeltaFIFOOptions{})
				q.Add(wrapPod)
				_, err := q.Pop(failingProcess)
				return err
			},
			func() error {
				q := kc.NewDeltaFIFOWithOptions(kc.DeltaFIFOOptions{})
				q.Add(wrapPod)
				_, err := q.Pop(failingProcess)
				return err
			}},
	}
}

// realFIFOWrapCases are RealFIFO's error paths with a cause in its
// transformer or its key function.
func realFIFOWrapCases() []wrapCase {
	return []wrapCase{
		{"RealFIFO.Replace with a failing transformer",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{Transformer: failingTransform, KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)}).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{Transformer: failingTransform, KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)}).Replace([]any{wrapPod}, "1")
			}},
		{"RealFIFO.Add with a failing transformer",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{Transformer: failingTransform, KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)}).Add(wrapPod)
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{Transformer: failingTransform, KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)}).Add(wrapPod)
			}},
		{"RealFIFO.Delete with a failing transformer",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{Transformer: failingTransform, KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)}).Delete(wrapPod)
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{Transformer: failingTransform, KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)}).Delete(wrapPod)
			}},
		{"RealFIFO.Add with a failing key function",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KeyFunction: failingKey, KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)}).Add(wrapPod)
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KeyFunction: failingKey, KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)}).Add(wrapPod)
			}},
		{"RealFIFO.Replace with a failing key function",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KeyFunction: failingKey, KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)}).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KeyFunction: failingKey, KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)}).Replace([]any{wrapPod}, "1")
			}},
	}
}

// realFIFOKnownWrapCases are RealFIFO's error paths with a cause in its
// known objects or its consumer.
func realFIFOKnownWrapCases() []wrapCase {
	return []wrapCase{
		{"RealFIFO.Replace with failing known objects",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: failingKnown{}}).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: failingKnown{}}).Replace([]any{wrapPod}, "1")
			}},
		{"RealFIFO.Resync with failing known objects",
			func() error {
				return cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: failingKnown{}}).Resync()
			},
			func() error {
				return kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: failingKnown{}}).Resync()
			}},
		{"RealFIFO.Pop with a failing process function",
			func() error {
				q := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)})
				q.Add(wrapPod)
				_, err := q.Pop(failingProcess)
				return err
			},
			func() error {
				q := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)})
				q.Add(wrapPod)
				_, err := q.Pop(failingProcess)
				return err
			}},
		{"RealFIFO.PopBatch with a failing batch function",
			func() error {
				q := cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc)})
				q.Add(wrapPod)
				q.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"}})
				return q.PopBatch(func([]cg.Delta, bool) error { return errCause }, failingProcess)
			},
			func() error {
				q := kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc)})
				q.Add(wrapPod)
				q.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"}})
				return q.PopBatch(func([]kc.Delta, bool) error { return errCause }, failingProcess)
			}},
	}
}

// fifoAndHeapWrapCases are FIFO's and Heap's error paths with a cause.
func fifoAndHeapWrapCases() []wrapCase {
	return []wrapCase{
		{"FIFO.Add with a failing key function",
			func() error { return cg.NewFIFO(failingKey).Add(wrapPod) },
			func() error { return kc.NewFIFO(failingKey).Add(wrapPod) }},
		{"FIFO.Replace with a failing key function",
			func() error { return cg.NewFIFO(failingKey).Replace([]any{wrapPod}, "1") },
			func() error { return kc.NewFIFO(failingKey).Replace([]any{wrapPod}, "1") }},
		{"FIFO.Pop with a failing process function",
			func() error {
				q := cg.NewFIFO(cg.MetaNamespaceKeyFunc)
				q.Add(wrapPod)
				_, err := q.Pop(failingProcess)
				return err
			},
			func() error {
				q := kc.NewFIFO(kc.MetaNamespaceKeyFunc)
				q.Add(wrapPod)
				_, err := q.Pop(failingProcess)
				return err
			}},
		{"Heap.Add with a failing key function",
			func() error { return cg.NewHeap(failingKey, func(a, b any) bool { return false }).Add(wrapPod) },
			func() error { return kc.NewHeap(failingKey, func(a, b any) bool { return false }).Add(wrapPod) }},
		{"Heap.BulkAdd with a failing key function",
			func() error {
				return cg.NewHeap(failingKey, func(a, b any) bool { return false }).BulkAdd([]any{wrapPod})
			},
			func() error {
				return kc.NewHeap(failingKey, func(a, b any) bool { return false }).BulkAdd([]any{wrapPod})
			}},
		{"Heap.Delete of an absent object",
			func() error {
				return cg.NewHeap(cg.MetaNamespaceKeyFunc, func(a, b any) bool { return false }).Delete(wrapPod)
			},
			func() error {
				return kc.NewHeap(kc.MetaNamespaceKeyFunc, func(a, b any) bool { return false }).Delete(wrapPod)
			}},
	}
}

// storeWrapCases are the other stores' error paths with a cause.
func storeWrapCases() []wrapCase {
	return []wrapCase{
		{"TTLStore.Add with a failing key function",
			func() error { return cg.NewTTLStore(failingKey, time.Hour).Add(wrapPod) },
			func() error { return kc.NewTTLStore(failingKey, time.Hour).Add(wrapPod) }},
		{"TTLStore.Replace with a failing key function",
			func() error { return cg.NewTTLStore(failingKey, time.Hour).Replace([]any{wrapPod}, "1") },
			func() error { return kc.NewTTLStore(failingKey, time.Hour).Replace([]any{wrapPod}, "1") }},
		{"TTLStore.Get with a failing key function",
			func() error { _, _, err := cg.NewTTLStore(failingKey, time.Hour).Get(wrapPod); return err },
			func() error { _, _, err := kc.NewTTLStore(failingKey, time.Hour).Get(wrapPod); return err }},
		{"UndeltaStore.Add with a failing key function",
			func() error { return cg.NewUndeltaStore(func([]any) {}, failingKey).Add(wrapPod) },
			func() error { return kc.NewUndeltaStore(func([]any) {}, failingKey).Add(wrapPod) }},
		{"Store.Add with a failing transformer",
			func() error {
				return cg.NewStore(cg.MetaNamespaceKeyFunc, cg.WithTransformer(failingTransform)).Add(wrapPod)
			},
			func() error {
				return kc.NewStore(kc.MetaNamespaceKeyFunc, kc.WithTransformer(failingTransform)).Add(wrapPod)
			}},
		{"Store.Replace with a failing transformer",
			func() error {
				return cg.NewStore(cg.MetaNamespaceKeyFunc, cg.WithTransformer(failingTransform)).Replace([]any{wrapPod}, "1")
			},
			func() error {
				return kc.NewStore(kc.MetaNamespaceKeyFunc, kc.WithTransformer(failingTransform)).Replace([]any{wrapPod}, "1")
			}},
		{"SyncResult.AsError",
			func() error {
				return cg.SyncResult{Err: errCause, Synced: map[reflect.Type]bool{reflect.TypeOf(&v1.Pod{}): false, reflect.TypeOf(&v1.Node{}): true}}.AsError()
			},
			func() error {
				return kc.SyncResult{Err: errCause, Synced: map[reflect.Type]bool{reflect.TypeOf(&v1.Pod{}): false, reflect.TypeOf(&v1.Node{}): true}}.AsError()
			}},
		{"MutationCache.GetByKey over a failing backing store",
			func() error {
				mc := cg.NewIntegerResourceVersionMutationCache(klog.Background(), failingStoreCG{cg.NewStore(cg.MetaNamespaceKeyFunc)}, nil, time.Hour, false)
				_, _, err := mc.GetByKey("ns/p")
				return err
			},
			func() error {
				mc := kc.NewIntegerResourceVersionMutationCache(klog.Background(), failingStoreKC{kc.NewStore(kc.MetaNamespaceKeyFunc)}, nil, time.Hour, false)
				_, _, err := mc.GetByKey("ns/p")
				return err
			}},
	}
}

// failingStoreCG is a client-go Store whose GetByKey and Replace fail.
type failingStoreCG struct{ cg.Store }

func (failingStoreCG) GetByKey(string) (any, bool, error) { return nil, false, errCause }
func (failingStoreCG) Replace([]any, string) error        { return errCause }

// failingStoreKC is failingStoreCG for kcache.
type failingStoreKC struct{ kc.Store }

func (failingStoreKC) GetByKey(string) (any, bool, error) { return nil, false, errCause }
func (failingStoreKC) Replace([]any, string) error        { return errCause }

// reflectorWrapCases are one ListAndWatch each: a list that fails, is not a
// list, or succeeds into a store that fails (the watch then fails at once).
func reflectorWrapCases() []wrapCase {
	cgRun := func(list func() (runtime.Object, error), store cg.Store) error {
		lw := &cg.ListWatch{
			ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return list() },
			WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return nil, errors.New("no watch") },
		}
		r := cg.NewReflectorWithOptions(lw, &v1.Pod{}, store, cg.ReflectorOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		return r.ListAndWatchWithContext(ctx)
	}
	kcRun := func(list func() (runtime.Object, error), store kc.Store) error {
		lw := &kc.ListWatch{
			ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return list() },
			WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return nil, errors.New("no watch") },
		}
		r := kc.NewReflectorWithOptions(lw, &v1.Pod{}, store, kc.ReflectorOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		return r.ListAndWatchWithContext(ctx)
	}
	failing := func() (runtime.Object, error) { return nil, errCause }
	notAList := func() (runtime.Object, error) { return &v1.Pod{}, nil }
	empty := func() (runtime.Object, error) {
		return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}}, nil
	}
	return []wrapCase{
		{"Reflector.ListAndWatch with a failing list",
			func() error { return cgRun(failing, cg.NewStore(cg.MetaNamespaceKeyFunc)) },
			func() error { return kcRun(failing, kc.NewStore(kc.MetaNamespaceKeyFunc)) }},
		{"Reflector.ListAndWatch with a list that is not a list",
			func() error { return cgRun(notAList, cg.NewStore(cg.MetaNamespaceKeyFunc)) },
			func() error { return kcRun(notAList, kc.NewStore(kc.MetaNamespaceKeyFunc)) }},
		{"Reflector.ListAndWatch into a store whose Replace fails",
			func() error { return cgRun(empty, failingStoreCG{cg.NewStore(cg.MetaNamespaceKeyFunc)}) },
			func() error { return kcRun(empty, failingStoreKC{kc.NewStore(kc.MetaNamespaceKeyFunc)}) }},
	}
}

// TestErrorsCarryTheirCauseAsInClientGo pins, for every error path of the
// queues, stores and Reflector that has a cause (a failing transformer, key
// function, known-objects store, process function, list or store), that
// kcache's error reads as client-go's, and wraps what client-go's wraps: the
// same errors.Is answer for the cause and the same chain of error types.
func TestErrorsCarryTheirCauseAsInClientGo(t *testing.T) {
	var cases []wrapCase
	for _, group := range [][]wrapCase{deltaFIFOWrapCases(), deltaFIFOKeyWrapCases(), realFIFOWrapCases(), realFIFOKnownWrapCases(), fifoAndHeapWrapCases(), storeWrapCases(), reflectorWrapCases(), watchListWrapCases()} {
		cases = append(cases, group...)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := errorChain(c.cg())
			got := errorChain(c.kc())
			if got != want {
				t.Errorf("kcache:    %s\nclient-go: %s", got, want)
			}
		})
	}
}

// watchListWrapCases are one ListAndWatch each of a watch list streamed into
// a store or queue that fails (the list then fails too).
func watchListWrapCases() []wrapCase {
	stream := func() (watch.Interface, error) {
		fw := watch.NewFakeWithChanSize(2, false)
		fw.Add(wrapPod)
		fw.Action(watch.Bookmark, &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "7",
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}})
		// NB: closed once drained, so a stream that succeeds ends the run.
		fw.Stop()
		return fw, nil
	}
	cgStream := func(store cg.ReflectorStore) error {
		lw := &cg.ListWatch{
			ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return nil, errors.New("no list") },
			WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return stream() },
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		return cg.NewReflectorWithOptions(lw, &v1.Pod{}, store, cg.ReflectorOptions{}).ListAndWatchWithContext(ctx)
	}
	kcStream := func(store kc.ReflectorStore) error {
		lw := &kc.ListWatch{
			ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return nil, errors.New("no list") },
			WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return stream() },
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		return kc.NewReflectorWithOptions(lw, &v1.Pod{}, store, kc.ReflectorOptions{}).ListAndWatchWithContext(ctx)
	}
	return []wrapCase{
		{"Reflector.ListAndWatch streaming a watch list into a store whose Replace fails",
			func() error { return cgStream(failingStoreCG{cg.NewStore(cg.MetaNamespaceKeyFunc)}) },
			func() error { return kcStream(failingStoreKC{kc.NewStore(kc.MetaNamespaceKeyFunc)}) }},
		{"Reflector.ListAndWatch streaming a watch list into a queue whose transformer fails",
			func() error {
				return cgStream(cg.NewRealFIFOWithOptions(cg.RealFIFOOptions{KnownObjects: cg.NewStore(cg.MetaNamespaceKeyFunc), Transformer: failingTransform}))
			},
			func() error {
				return kcStream(kc.NewRealFIFOWithOptions(kc.RealFIFOOptions{KnownObjects: kc.NewStore(kc.MetaNamespaceKeyFunc), Transformer: failingTransform}))
			}},
	}
}
