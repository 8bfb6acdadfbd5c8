package conformance

import (
	"errors"
	"fmt"
	"k8s.io/apimachinery/pkg/util/sets"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	cg "k8s.io/client-go/tools/cache"
)

// storeClientGoSide wraps client-go's Store, Indexer or ThreadSafeStore as
// a storeSide. Exactly one of store and tss is set; indexer is set when the
// store is an Indexer. Used by one goroutine only. The other side's file is
// this one with the other package: change both together.
type storeClientGoSide struct {
	// w names objects and provides the transformer.
	w *storeWorld
	// store is the Store or Indexer under test, or nil.
	store cg.Store
	// indexer is store as an Indexer (NewStore's result is one too), or nil.
	indexer cg.Indexer
	// tss is the ThreadSafeStore under test, or nil.
	tss cg.ThreadSafeStore
	// transforms counts transformer calls.
	transforms int
	// metrics records what the store reports to its metrics provider.
	metrics storeMetricLog
}

// newStoreClientGoSide builds client-go's side of a run row.
func newStoreClientGoSide(w *storeWorld, row storeRow) *storeClientGoSide {
	s := &storeClientGoSide{w: w}
	var opts []cg.StoreOption
	var tssOpts []cg.ThreadSafeStoreOption
	if row.Transformer {
		opts = append(opts, cg.WithTransformer(s.transformer))
	}
	if row.metricsName != "" {
		id := s.informerID(row.metricsName)
		opts = append(opts, cg.WithStoreMetrics(id, storeClientGoMetrics{&s.metrics}))
		tssOpts = append(tssOpts, cg.WithThreadSafeStoreMetrics(id, storeClientGoMetrics{&s.metrics}))
	}
	keyFunc := cg.MetaNamespaceKeyFunc
	if row.KeyFunc == "DeletionHandlingMetaNamespaceKeyFunc" {
		keyFunc = cg.DeletionHandlingMetaNamespaceKeyFunc
	}
	switch row.Kind {
	case "store":
		s.store = cg.NewStore(keyFunc, opts...)
		// NewStore's result is an Indexer too; users may assert it.
		s.indexer, _ = s.store.(cg.Indexer)
	case "indexer":
		s.indexer = cg.NewIndexer(keyFunc, s.indexers(row.Indexers), opts...)
		s.store = s.indexer
	case "threadSafeStore":
		indices := cg.Indices{}
		if row.NilIndices {
			indices = nil
		}
		for name, byValue := range row.Indices {
			one := cg.Indices{name: {}}
			for value, keys := range byValue {
				one[name][value] = sets.New(keys...)
			}
			indices[name] = one[name]
		}
		s.tss = cg.NewThreadSafeStore(s.indexers(row.Indexers), indices, tssOpts...)
	}
	return s
}

// informerID registers name for pods; a registration error is logged as a
// metric event so both sides must agree on it too.
func (s *storeClientGoSide) informerID(name string) cg.InformerNameAndResource {
	informer, err := cg.NewInformerName(name)
	if err != nil {
		s.metrics.record("NewInformerName error: " + err.Error())
		return cg.InformerNameAndResource{}
	}
	return informer.WithResource(storePodsResource)
}

// storeClientGoMetrics is a metrics provider that records every metric it
// creates and every value set on them in one log.
type storeClientGoMetrics struct {
	// log receives the events.
	log *storeMetricLog
}

// NewQueuedItemMetric records the creation and returns a recording gauge.
func (m storeClientGoMetrics) NewQueuedItemMetric(id cg.InformerNameAndResource) cg.GaugeMetric {
	return m.log.gauge("queued-items", id.Name(), id.GroupVersionResource().String())
}

// NewProcessingLatencyMetric records the creation and returns a recording histogram.
func (m storeClientGoMetrics) NewProcessingLatencyMetric(id cg.InformerNameAndResource) cg.HistogramMetric {
	return m.log.gauge("processing-latency", id.Name(), id.GroupVersionResource().String())
}

// NewStoreResourceVersionMetric records the creation and returns a recording gauge.
func (m storeClientGoMetrics) NewStoreResourceVersionMetric(id cg.InformerNameAndResource) cg.GaugeMetric {
	return m.log.gauge("store-resource-version", id.Name(), id.GroupVersionResource().String())
}

// transformer adapts the world's neutral transformer and counts calls.
func (s *storeClientGoSide) transformer(obj any) (any, error) {
	s.transforms++
	out, err := s.w.transform(s.out(obj))
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	return s.in(out), nil
}

// transformCalls implements storeSide.
func (s *storeClientGoSide) transformCalls() int { return s.transforms }

// in converts a neutral value to client-go's types.
func (s *storeClientGoSide) in(obj any) any {
	switch o := obj.(type) {
	case storeTombstone:
		return cg.DeletedFinalStateUnknown{Key: o.Key, Obj: s.in(o.Obj)}
	case storeExplicitKey:
		return cg.ExplicitKey(o)
	}
	return obj
}

// out converts a client-go value back to its neutral form.
func (s *storeClientGoSide) out(obj any) any {
	switch o := obj.(type) {
	case cg.DeletedFinalStateUnknown:
		return storeTombstone{Key: o.Key, Obj: s.out(o.Obj)}
	case cg.ExplicitKey:
		return storeExplicitKey(o)
	}
	return obj
}

// indexers builds client-go Indexers from catalog names; nil names give nil.
func (s *storeClientGoSide) indexers(names []string) cg.Indexers {
	if names == nil {
		return nil
	}
	out := cg.Indexers{}
	for _, name := range names {
		out[name] = s.indexFunc(storeIndexDefByName(name))
	}
	return out
}

// indexFunc wraps a catalog entry as a client-go IndexFunc.
func (s *storeClientGoSide) indexFunc(def storeIndexDef) cg.IndexFunc {
	if def.own && def.strict {
		return cg.MetaNamespaceIndexFunc
	}
	if def.own {
		return func(obj any) ([]string, error) {
			if _, err := meta.Accessor(obj); err != nil {
				return nil, nil
			}
			return cg.MetaNamespaceIndexFunc(obj)
		}
	}
	return func(obj any) ([]string, error) { return def.fn(s.out(obj)) }
}

// apply implements storeSide.
func (s *storeClientGoSide) apply(op storeOp) string {
	return storeCatch(func() string {
		if s.tss != nil {
			return s.applyThreadSafe(op)
		}
		return s.applyStore(op)
	})
}

// applyStore performs op on the Store or Indexer.
func (s *storeClientGoSide) applyStore(op storeOp) string {
	switch op.Kind {
	case "Add":
		return s.errView(s.store.Add(s.in(op.Obj)))
	case "Update":
		return s.errView(s.store.Update(s.in(op.Obj)))
	case "Delete":
		return s.errView(s.store.Delete(s.in(op.Obj)))
	case "Replace":
		var list []any
		if op.Objs != nil {
			list = make([]any, len(op.Objs))
			for i, o := range op.Objs {
				list[i] = s.in(o)
			}
		}
		return s.errView(s.store.Replace(list, op.RV))
	case "Resync":
		return s.errView(s.store.Resync())
	case "Bookmark":
		s.store.Bookmark(op.RV)
		return "done"
	case "AddIndexers":
		if s.indexer == nil {
			return "not an indexer"
		}
		return s.errView(s.indexer.AddIndexers(s.indexers(op.Indexers)))
	case "Transaction":
		ts, ok := s.store.(cg.TransactionStore)
		if !ok {
			return "not a TransactionStore"
		}
		txns := make([]cg.Transaction, len(op.Txns))
		for i, t := range op.Txns {
			txns[i] = cg.Transaction{Object: s.in(t.Obj), Type: cg.TransactionType(t.Type)}
		}
		return s.txnErrView(ts.Transaction(txns...))
	case "Index":
		objs, err := s.indexer.Index(op.Indexers[0], s.in(op.Obj))
		return s.objects(objs) + s.errView(err)
	}
	return "unknown op " + op.Kind
}

// applyThreadSafe performs op on the ThreadSafeStore.
func (s *storeClientGoSide) applyThreadSafe(op storeOp) string {
	switch op.Kind {
	case "Add":
		s.tss.Add(op.Key, s.in(op.Obj))
	case "Update":
		s.tss.Update(op.Key, s.in(op.Obj))
	case "Delete":
		s.tss.Delete(op.Key)
	case "DeleteWithObject":
		s.tss.DeleteWithObject(op.Key, s.in(op.Obj))
	case "Replace":
		var items map[string]any
		if op.Items != nil {
			items = make(map[string]any, len(op.Items))
			for k, o := range op.Items {
				items[k] = s.in(o)
			}
		}
		s.tss.Replace(items, op.RV)
	case "Resync":
		return s.errView(s.tss.Resync())
	case "Bookmark":
		s.tss.Bookmark(op.RV)
	case "AddIndexers":
		return s.errView(s.tss.AddIndexers(s.indexers(op.Indexers)))
	case "Transaction":
		ts, ok := s.tss.(cg.ThreadSafeStoreWithTransaction)
		if !ok {
			return "not a ThreadSafeStoreWithTransaction"
		}
		txns := make([]cg.ThreadSafeStoreTransaction, len(op.Txns))
		for i, t := range op.Txns {
			txns[i] = cg.ThreadSafeStoreTransaction{
				Transaction: cg.Transaction{Object: s.in(t.Obj), Type: cg.TransactionType(t.Type)},
				Key:         t.Key,
			}
		}
		ts.Transaction(txns...)
	case "Index":
		objs, err := s.tss.Index(op.Indexers[0], s.in(op.Obj))
		return s.objects(objs) + s.errView(err)
	default:
		return "unknown op " + op.Kind
	}
	return "done"
}

// errView prints an error with its dynamic type, its message, and for a
// KeyError the offending object and the wrapped error's type.
func (s *storeClientGoSide) errView(err error) string {
	if err == nil {
		return " err=nil"
	}
	view := fmt.Sprintf(" err=%T{%s}", err, err.Error())
	var ke cg.KeyError
	if errors.As(err, &ke) {
		view += fmt.Sprintf(" KeyError.Obj=%s KeyError.Err=%T{%v}", s.w.describe(s.out(ke.Obj)), ke.Err, ke.Err)
	}
	if inner := errors.Unwrap(err); inner != nil {
		view += fmt.Sprintf(" unwraps=%T", inner)
	}
	return view
}

// txnErrView prints a *TransactionError field by field.
func (s *storeClientGoSide) txnErrView(te *cg.TransactionError) string {
	if te == nil {
		return "nil *TransactionError"
	}
	errs := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		errs[i] = s.errView(e)
	}
	return fmt.Sprintf("*TransactionError{SuccessfulIndices:%#v TotalTransactions:%d Errors:%d[%s] Error():%s}",
		te.SuccessfulIndices, te.TotalTransactions, len(te.Errors), strings.Join(errs, "; "), te.Error())
}

// reads implements storeSide.
func (s *storeClientGoSide) reads(p storeProbe, labelled bool) []storeRead {
	out := make([]storeRead, 0, 64)
	add := func(call, answer string) { out = append(out, storeRead{call, answer}) }
	add("implements()", s.implements())
	add("metric events since the last read", s.metrics.drain())
	if s.tss != nil {
		for _, k := range p.keys {
			item, exists := s.tss.Get(k)
			add(storeLabel(labelled, "Get(%q)", k), s.w.describe(s.out(item))+storeExists(exists))
		}
		add("List()", s.objects(s.tss.List()))
		add("ListKeys()", storeKeysView(s.tss.ListKeys()))
		add("LastStoreSyncResourceVersion()", strconv.Quote(s.tss.LastStoreSyncResourceVersion()))
		return s.indexReads(out, s.tss, p, labelled)
	}
	for _, o := range p.objs {
		item, exists, err := s.store.Get(s.in(o))
		add(storeLabel(labelled, "Get(%s)", s.w.describe(o)), s.w.describe(s.out(item))+storeExists(exists)+s.errView(err))
	}
	for _, k := range p.keys {
		item, exists, err := s.store.GetByKey(k)
		add(storeLabel(labelled, "GetByKey(%q)", k), s.w.describe(s.out(item))+storeExists(exists)+s.errView(err))
	}
	add("List()", s.objects(s.store.List()))
	add("ListKeys()", storeKeysView(s.store.ListKeys()))
	add("LastStoreSyncResourceVersion()", strconv.Quote(s.store.LastStoreSyncResourceVersion()))
	if s.indexer != nil {
		out = s.indexReads(out, s.indexer, p, labelled)
	}
	return out
}

// implements prints which optional interfaces the store under test has.
func (s *storeClientGoSide) implements() string {
	var subject any = s.store
	if s.tss != nil {
		subject = s.tss
	}
	_, indexer := subject.(cg.Indexer)
	_, txn := subject.(cg.TransactionStore)
	_, tssTxn := subject.(cg.ThreadSafeStoreWithTransaction)
	_, transforming := subject.(cg.TransformingStore)
	_, reflectorStore := subject.(cg.ReflectorStore)
	return fmt.Sprintf("Indexer=%t TransactionStore=%t ThreadSafeStoreWithTransaction=%t TransformingStore=%t ReflectorStore=%t",
		indexer, txn, tssTxn, transforming, reflectorStore)
}

// storeClientGoIndexReader is what Indexer and ThreadSafeStore share.
type storeClientGoIndexReader interface {
	Index(indexName string, obj any) ([]any, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	ListIndexFuncValues(indexName string) []string
	ByIndex(indexName, indexedValue string) ([]any, error)
	GetIndexers() cg.Indexers
}

// indexReads appends the index reads of p to out.
func (s *storeClientGoSide) indexReads(out []storeRead, r storeClientGoIndexReader, p storeProbe, labelled bool) []storeRead {
	add := func(call, answer string) { out = append(out, storeRead{call, answer}) }
	indexers := r.GetIndexers()
	names := make([]string, 0, len(indexers))
	for name := range indexers {
		names = append(names, name)
	}
	add("GetIndexers()", storeSortedView(names, indexers == nil))
	for i, name := range p.indexNames {
		add(storeLabel(labelled, "ListIndexFuncValues(%q)", name), storeKeysView(r.ListIndexFuncValues(name)))
		for _, v := range p.values[i] {
			objs, err := r.ByIndex(name, v)
			add(storeLabel(labelled, "ByIndex(%q, %q)", name, v), s.objects(objs)+s.errView(err))
			keys, err := r.IndexKeys(name, v)
			add(storeLabel(labelled, "IndexKeys(%q, %q)", name, v), storeOrderedKeysView(keys)+s.errView(err))
		}
		for _, o := range p.objs[:1] {
			objs, err := r.Index(name, s.in(o))
			add(storeLabel(labelled, "Index(%q, %s)", name, s.w.describe(o)), s.objects(objs)+s.errView(err))
		}
	}
	return out
}

// objects prints client-go objects as a sorted set of neutral names.
func (s *storeClientGoSide) objects(objs []any) string {
	neutral := make([]any, len(objs))
	for i, o := range objs {
		neutral[i] = s.out(o)
	}
	return storeObjectsView(s.w, neutral, objs == nil)
}
