package conformance

import (
	"errors"
	"fmt"
	"k8s.io/apimachinery/pkg/util/sets"
	"strconv"
	"strings"

	kc "github.com/kcache-go/cache"
	"k8s.io/apimachinery/pkg/api/meta"
)

// storeKCacheSide wraps kcache's Store, Indexer or ThreadSafeStore as
// a storeSide. Exactly one of store and tss is set; indexer is set when the
// store is an Indexer. Used by one goroutine only. The other side's file is
// this one with the other package: change both together.
type storeKCacheSide struct {
	// w names objects and provides the transformer.
	w *storeWorld
	// store is the Store or Indexer under test, or nil.
	store kc.Store
	// indexer is store as an Indexer (NewStore's result is one too), or nil.
	indexer kc.Indexer
	// tss is the ThreadSafeStore under test, or nil.
	tss kc.ThreadSafeStore
	// transforms counts transformer calls.
	transforms int
	// metrics records what the store reports to its metrics provider.
	metrics storeMetricLog
}

// newStoreKCacheSide builds kcache's side of a run row.
func newStoreKCacheSide(w *storeWorld, row storeRow) *storeKCacheSide {
	s := &storeKCacheSide{w: w}
	var opts []kc.StoreOption
	var tssOpts []kc.ThreadSafeStoreOption
	if row.Transformer {
		opts = append(opts, kc.WithTransformer(s.transformer))
	}
	if row.metricsName != "" {
		id := s.informerID(row.metricsName)
		opts = append(opts, kc.WithStoreMetrics(id, storeKCacheMetrics{&s.metrics}))
		tssOpts = append(tssOpts, kc.WithThreadSafeStoreMetrics(id, storeKCacheMetrics{&s.metrics}))
	}
	keyFunc := kc.MetaNamespaceKeyFunc
	if row.KeyFunc == "DeletionHandlingMetaNamespaceKeyFunc" {
		keyFunc = kc.DeletionHandlingMetaNamespaceKeyFunc
	}
	switch row.Kind {
	case "store":
		s.store = kc.NewStore(keyFunc, opts...)
		// NewStore's result is an Indexer too; users may assert it.
		s.indexer, _ = s.store.(kc.Indexer)
	case "indexer":
		s.indexer = kc.NewIndexer(keyFunc, s.indexers(row.Indexers), opts...)
		s.store = s.indexer
	case "threadSafeStore":
		indices := kc.Indices{}
		if row.NilIndices {
			indices = nil
		}
		for name, byValue := range row.Indices {
			one := kc.Indices{name: {}}
			for value, keys := range byValue {
				one[name][value] = sets.New(keys...)
			}
			indices[name] = one[name]
		}
		s.tss = kc.NewThreadSafeStore(s.indexers(row.Indexers), indices, tssOpts...)
	}
	return s
}

// informerID registers name for pods; a registration error is logged as a
// metric event so both sides must agree on it too.
func (s *storeKCacheSide) informerID(name string) kc.InformerNameAndResource {
	informer, err := kc.NewInformerName(name)
	if err != nil {
		s.metrics.record("NewInformerName error: " + err.Error())
		return kc.InformerNameAndResource{}
	}
	return informer.WithResource(storePodsResource)
}

// storeKCacheMetrics is a metrics provider that records every metric it
// creates and every value set on them in one log.
type storeKCacheMetrics struct {
	// log receives the events.
	log *storeMetricLog
}

// NewQueuedItemMetric records the creation and returns a recording gauge.
func (m storeKCacheMetrics) NewQueuedItemMetric(id kc.InformerNameAndResource) kc.GaugeMetric {
	return m.log.gauge("queued-items", id.Name(), id.GroupVersionResource().String())
}

// NewProcessingLatencyMetric records the creation and returns a recording histogram.
func (m storeKCacheMetrics) NewProcessingLatencyMetric(id kc.InformerNameAndResource) kc.HistogramMetric {
	return m.log.gauge("processing-latency", id.Name(), id.GroupVersionResource().String())
}

// NewStoreResourceVersionMetric records the creation and returns a recording gauge.
func (m storeKCacheMetrics) NewStoreResourceVersionMetric(id kc.InformerNameAndResource) kc.GaugeMetric {
	return m.log.gauge("store-resource-version", id.Name(), id.GroupVersionResource().String())
}

// transformer adapts the world's neutral transformer and counts calls.
func (s *storeKCacheSide) transformer(obj any) (any, error) {
	s.transforms++
	out, err := s.w.transform(s.out(obj))
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	return s.in(out), nil
}

// transformCalls implements storeSide.
func (s *storeKCacheSide) transformCalls() int { return s.transforms }

// in converts a neutral value to kcache's types.
func (s *storeKCacheSide) in(obj any) any {
	switch o := obj.(type) {
	case storeTombstone:
		return kc.DeletedFinalStateUnknown{Key: o.Key, Obj: s.in(o.Obj)}
	case storeExplicitKey:
		return kc.ExplicitKey(o)
	}
	return obj
}

// out converts a kcache value back to its neutral form.
func (s *storeKCacheSide) out(obj any) any {
	switch o := obj.(type) {
	case kc.DeletedFinalStateUnknown:
		return storeTombstone{Key: o.Key, Obj: s.out(o.Obj)}
	case kc.ExplicitKey:
		return storeExplicitKey(o)
	}
	return obj
}

// indexers builds kcache Indexers from catalog names; nil names give nil.
func (s *storeKCacheSide) indexers(names []string) kc.Indexers {
	if names == nil {
		return nil
	}
	out := kc.Indexers{}
	for _, name := range names {
		out[name] = s.indexFunc(storeIndexDefByName(name))
	}
	return out
}

// indexFunc wraps a catalog entry as a kcache IndexFunc.
func (s *storeKCacheSide) indexFunc(def storeIndexDef) kc.IndexFunc {
	if def.own && def.strict {
		return kc.MetaNamespaceIndexFunc
	}
	if def.own {
		return func(obj any) ([]string, error) {
			if _, err := meta.Accessor(obj); err != nil {
				return nil, nil
			}
			return kc.MetaNamespaceIndexFunc(obj)
		}
	}
	return func(obj any) ([]string, error) { return def.fn(s.out(obj)) }
}

// apply implements storeSide.
func (s *storeKCacheSide) apply(op storeOp) string {
	return storeCatch(func() string {
		if s.tss != nil {
			return s.applyThreadSafe(op)
		}
		return s.applyStore(op)
	})
}

// applyStore performs op on the Store or Indexer.
func (s *storeKCacheSide) applyStore(op storeOp) string {
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
		ts, ok := s.store.(kc.TransactionStore)
		if !ok {
			return "not a TransactionStore"
		}
		txns := make([]kc.Transaction, len(op.Txns))
		for i, t := range op.Txns {
			txns[i] = kc.Transaction{Object: s.in(t.Obj), Type: kc.TransactionType(t.Type)}
		}
		return s.txnErrView(ts.Transaction(txns...))
	case "Index":
		objs, err := s.indexer.Index(op.Indexers[0], s.in(op.Obj))
		return s.objects(objs) + s.errView(err)
	}
	return "unknown op " + op.Kind
}

// applyThreadSafe performs op on the ThreadSafeStore.
func (s *storeKCacheSide) applyThreadSafe(op storeOp) string {
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
		ts, ok := s.tss.(kc.ThreadSafeStoreWithTransaction)
		if !ok {
			return "not a ThreadSafeStoreWithTransaction"
		}
		txns := make([]kc.ThreadSafeStoreTransaction, len(op.Txns))
		for i, t := range op.Txns {
			txns[i] = kc.ThreadSafeStoreTransaction{
				Transaction: kc.Transaction{Object: s.in(t.Obj), Type: kc.TransactionType(t.Type)},
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
func (s *storeKCacheSide) errView(err error) string {
	if err == nil {
		return " err=nil"
	}
	view := fmt.Sprintf(" err=%T{%s}", err, err.Error())
	var ke kc.KeyError
	if errors.As(err, &ke) {
		view += fmt.Sprintf(" KeyError.Obj=%s KeyError.Err=%T{%v}", s.w.describe(s.out(ke.Obj)), ke.Err, ke.Err)
	}
	if inner := errors.Unwrap(err); inner != nil {
		view += fmt.Sprintf(" unwraps=%T", inner)
	}
	return view
}

// txnErrView prints a *TransactionError field by field.
func (s *storeKCacheSide) txnErrView(te *kc.TransactionError) string {
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
func (s *storeKCacheSide) reads(p storeProbe, labelled bool) []storeRead {
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
func (s *storeKCacheSide) implements() string {
	var subject any = s.store
	if s.tss != nil {
		subject = s.tss
	}
	_, indexer := subject.(kc.Indexer)
	_, txn := subject.(kc.TransactionStore)
	_, tssTxn := subject.(kc.ThreadSafeStoreWithTransaction)
	_, transforming := subject.(kc.TransformingStore)
	_, reflectorStore := subject.(kc.ReflectorStore)
	return fmt.Sprintf("Indexer=%t TransactionStore=%t ThreadSafeStoreWithTransaction=%t TransformingStore=%t ReflectorStore=%t",
		indexer, txn, tssTxn, transforming, reflectorStore)
}

// storeKCacheIndexReader is what Indexer and ThreadSafeStore share.
type storeKCacheIndexReader interface {
	Index(indexName string, obj any) ([]any, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	ListIndexFuncValues(indexName string) []string
	ByIndex(indexName, indexedValue string) ([]any, error)
	GetIndexers() kc.Indexers
}

// indexReads appends the index reads of p to out.
func (s *storeKCacheSide) indexReads(out []storeRead, r storeKCacheIndexReader, p storeProbe, labelled bool) []storeRead {
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

// objects prints kcache objects as a sorted set of neutral names.
func (s *storeKCacheSide) objects(objs []any) string {
	neutral := make([]any, len(objs))
	for i, o := range objs {
		neutral[i] = s.out(o)
	}
	return storeObjectsView(s.w, neutral, objs == nil)
}
