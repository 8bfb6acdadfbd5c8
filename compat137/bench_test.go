package compat137

import (
	"testing"

	kc "github.com/kcache-go/cache"
	v1 "k8s.io/api/core/v1"
	cg "k8s.io/client-go/tools/cache"
)

// benchSink keeps the handler's work observable.
var benchSink int

// BenchmarkTypedTombstoneDelete delivers one tombstone per op to a typed
// handler of each library: both hand the handler a pointer to a copy of
// the tombstone.
func BenchmarkTypedTombstoneDelete(b *testing.B) {
	p := pod("ns", "a", "1")
	var cgTomb any = cg.DeletedFinalStateUnknown{Key: "ns/a", Obj: p}
	var kcTomb any = kc.DeletedFinalStateUnknown{Key: "ns/a", Obj: p}
	var cr, kr recorder
	ci := newRecordingInformerCG(&cr)
	ki := newRecordingInformerKC(&kr)
	_, _ = cg.NewTypedSharedIndexInformer[*v1.Pod](ci).AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{
		DeleteFunc: func(d cg.DeletedObject[*v1.Pod]) { benchSink += len(d.FinalStateUnknown.Key) }})
	_, _ = kc.NewTypedSharedIndexInformer[*v1.Pod](ki).AddTypedEventHandler(kc.TypedResourceEventHandlerFuncs[*v1.Pod]{
		DeleteFunc: func(d kc.DeletedObject[*v1.Pod]) { benchSink += len(d.FinalStateUnknown.Key) }})
	b.Run("impl=client-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ci.adapter.OnDelete(cgTomb)
		}
	})
	b.Run("impl=kcache", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ki.adapter.OnDelete(kcTomb)
		}
	})
}

// BenchmarkTypedDispatch delivers one add, update and plain delete per op
// to a typed handler of each library.
func BenchmarkTypedDispatch(b *testing.B) {
	p := pod("ns", "a", "1")
	var cr, kr recorder
	ci := newRecordingInformerCG(&cr)
	ki := newRecordingInformerKC(&kr)
	_, _ = cg.NewTypedSharedIndexInformer[*v1.Pod](ci).AddTypedEventHandler(cg.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc:    func(p *v1.Pod) { benchSink += len(p.Name) },
		UpdateFunc: func(_, p *v1.Pod) { benchSink += len(p.Name) },
		DeleteFunc: func(d cg.DeletedObject[*v1.Pod]) { benchSink += len(d.GetName()) }})
	_, _ = kc.NewTypedSharedIndexInformer[*v1.Pod](ki).AddTypedEventHandler(kc.TypedResourceEventHandlerFuncs[*v1.Pod]{
		AddFunc:    func(p *v1.Pod) { benchSink += len(p.Name) },
		UpdateFunc: func(_, p *v1.Pod) { benchSink += len(p.Name) },
		DeleteFunc: func(d kc.DeletedObject[*v1.Pod]) { benchSink += len(d.GetName()) }})
	b.Run("impl=client-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ci.adapter.OnAdd(p, false)
			ci.adapter.OnUpdate(p, p)
			ci.adapter.OnDelete(p)
		}
	})
	b.Run("impl=kcache", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ki.adapter.OnAdd(p, false)
			ki.adapter.OnUpdate(p, p)
			ki.adapter.OnDelete(p)
		}
	})
}
