package conformance

import (
	"errors"
	"fmt"

	kc "github.com/kcache-go/cache"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	cg "k8s.io/client-go/tools/cache"
)

// storeLib is what one library gives the shared store side (storeLibSide):
// its constructors, its MetaNamespaceIndexFunc, and the conversions between
// its own types and the neutral ones. Nothing in it prints or compares.
// Implemented by storeClientGo and storeKCache, which are the generic
// helpers below instantiated with the library's types, plus the few
// calls that need the library's functions.
type storeLib interface {
	// build makes row's Store or Indexer (as a storeStore) or
	// ThreadSafeStore (as a storeThreadSafe), with b's options.
	build(row storeRow, b storeBuild) any
	// metaNamespaceIndexFunc is the library's MetaNamespaceIndexFunc.
	metaNamespaceIndexFunc(obj any) ([]string, error)
	// in converts a neutral value (tombstones and explicit keys, deeply)
	// to the library's types; out converts back.
	in(obj any) any
	out(obj any) any
	// keyError reports the object and cause of a KeyError in err's chain.
	keyError(err error) (obj any, inner error, ok bool)
	// indexerNames lists the indexers of an Indexer or ThreadSafeStore
	// and whether GetIndexers returned nil.
	indexerNames(subject any) (names []string, isNil bool)
	// addIndexers calls the AddIndexers of an Indexer or ThreadSafeStore.
	addIndexers(subject any, funcs storeIndexFuncs) error
	// transact runs txns on a TransactionStore (ok false if subject is not
	// one) and returns its *TransactionError in neutral form.
	transact(subject any, txns []storeTxn, in func(any) any) (te *storeTxnError, ok bool)
	// transactThreadSafe runs txns on a ThreadSafeStoreWithTransaction;
	// false if subject is not one.
	transactThreadSafe(subject any, txns []storeTxn, in func(any) any) bool
	// implements prints which optional interfaces subject has.
	implements(subject any) string
}

// storeBuild is what a side hands its library to build the store under test.
type storeBuild struct {
	// indexers builds the index functions of catalog names (nil gives nil).
	indexers func(names []string) storeIndexFuncs
	// transformer is the store's transformer, or nil for none.
	transformer func(obj any) (any, error)
	// metrics receives what the store reports to its metrics provider.
	metrics *storeMetricLog
}

// storeIndexFuncs are index functions by index name, library-neutral.
type storeIndexFuncs map[string]func(obj any) ([]string, error)

// storeTxnError is a *TransactionError in neutral form.
type storeTxnError struct {
	SuccessfulIndices []int
	TotalTransactions int
	Errors            []error
	// message is what the library's Error() returned.
	message string
}

// storeClientGo binds client-go's store API.
type storeClientGo struct {
	storeValuesOf[cg.DeletedFinalStateUnknown, cg.ExplicitKey]
	storeIndexersOf[cg.Indexers, cg.IndexFunc]
	storeKeyErrorsOf[cg.KeyError]
	storeTransactOf[cg.TransactionStore, cg.Transaction, cg.TransactionType, cg.TransactionError]
	storeInterfacesOf[cg.Indexer, cg.TransactionStore, cg.ThreadSafeStoreWithTransaction, cg.TransformingStore, cg.ReflectorStore]
}

// storeKCache binds kcache's store API.
type storeKCache struct {
	storeValuesOf[kc.DeletedFinalStateUnknown, kc.ExplicitKey]
	storeIndexersOf[kc.Indexers, kc.IndexFunc]
	storeKeyErrorsOf[kc.KeyError]
	storeTransactOf[kc.TransactionStore, kc.Transaction, kc.TransactionType, kc.TransactionError]
	storeInterfacesOf[kc.Indexer, kc.TransactionStore, kc.ThreadSafeStoreWithTransaction, kc.TransformingStore, kc.ReflectorStore]
}

// metaNamespaceIndexFunc implements storeLib.
func (storeClientGo) metaNamespaceIndexFunc(obj any) ([]string, error) {
	return cg.MetaNamespaceIndexFunc(obj)
}

// metaNamespaceIndexFunc implements storeLib.
func (storeKCache) metaNamespaceIndexFunc(obj any) ([]string, error) {
	return kc.MetaNamespaceIndexFunc(obj)
}

// build implements storeLib.
func (l storeClientGo) build(row storeRow, b storeBuild) any {
	var opts []cg.StoreOption
	var tssOpts []cg.ThreadSafeStoreOption
	if b.transformer != nil {
		opts = append(opts, cg.WithTransformer(b.transformer))
	}
	if row.metricsName != "" {
		id := storeInformerID[*cg.InformerName, cg.InformerNameAndResource](b.metrics, row.metricsName, cg.NewInformerName)
		provider := storeMetricsOf[cg.InformerNameAndResource, cg.GaugeMetric, cg.HistogramMetric]{b.metrics}
		opts = append(opts, cg.WithStoreMetrics(id, provider))
		tssOpts = append(tssOpts, cg.WithThreadSafeStoreMetrics(id, provider))
	}
	keyFunc := storePick(row, cg.MetaNamespaceKeyFunc, cg.DeletionHandlingMetaNamespaceKeyFunc)
	switch row.Kind {
	case "store":
		return cg.NewStore(keyFunc, opts...)
	case "indexer":
		return cg.NewIndexer(keyFunc, l.indexers(b.indexers(row.Indexers)), opts...)
	case "threadSafeStore":
		return cg.NewThreadSafeStore(l.indexers(b.indexers(row.Indexers)), storeIndices[cg.Indices](row), tssOpts...)
	}
	return nil
}

// build implements storeLib.
func (l storeKCache) build(row storeRow, b storeBuild) any {
	var opts []kc.StoreOption
	var tssOpts []kc.ThreadSafeStoreOption
	if b.transformer != nil {
		opts = append(opts, kc.WithTransformer(b.transformer))
	}
	if row.metricsName != "" {
		id := storeInformerID[*kc.InformerName, kc.InformerNameAndResource](b.metrics, row.metricsName, kc.NewInformerName)
		provider := storeMetricsOf[kc.InformerNameAndResource, kc.GaugeMetric, kc.HistogramMetric]{b.metrics}
		opts = append(opts, kc.WithStoreMetrics(id, provider))
		tssOpts = append(tssOpts, kc.WithThreadSafeStoreMetrics(id, provider))
	}
	keyFunc := storePick(row, kc.MetaNamespaceKeyFunc, kc.DeletionHandlingMetaNamespaceKeyFunc)
	switch row.Kind {
	case "store":
		return kc.NewStore(keyFunc, opts...)
	case "indexer":
		return kc.NewIndexer(keyFunc, l.indexers(b.indexers(row.Indexers)), opts...)
	case "threadSafeStore":
		return kc.NewThreadSafeStore(l.indexers(b.indexers(row.Indexers)), storeIndices[kc.Indices](row), tssOpts...)
	}
	return nil
}

// transactThreadSafe implements storeLib.
func (storeClientGo) transactThreadSafe(subject any, txns []storeTxn, in func(any) any) bool {
	return storeTransactThreadSafe[cg.ThreadSafeStoreWithTransaction](subject, txns, in,
		func(t cg.Transaction, key string) cg.ThreadSafeStoreTransaction {
			return cg.ThreadSafeStoreTransaction{Transaction: t, Key: key}
		})
}

// transactThreadSafe implements storeLib.
func (storeKCache) transactThreadSafe(subject any, txns []storeTxn, in func(any) any) bool {
	return storeTransactThreadSafe[kc.ThreadSafeStoreWithTransaction](subject, txns, in,
		func(t kc.Transaction, key string) kc.ThreadSafeStoreTransaction {
			return kc.ThreadSafeStoreTransaction{Transaction: t, Key: key}
		})
}

// storePick chooses row's key function: deletionHandling for
// "DeletionHandlingMetaNamespaceKeyFunc", plain otherwise.
func storePick[F any](row storeRow, plain, deletionHandling F) F {
	if row.KeyFunc == "DeletionHandlingMetaNamespaceKeyFunc" {
		return deletionHandling
	}
	return plain
}

// storeIndices builds row's initial Indices in a library's Indices type
// (nil when row.NilIndices).
func storeIndices[M ~map[string]I, I ~map[string]sets.Set[string]](row storeRow) M {
	indices := M{}
	if row.NilIndices {
		indices = nil
	}
	for name, byValue := range row.Indices {
		one := I{}
		for value, keys := range byValue {
			one[value] = sets.New(keys...)
		}
		indices[name] = one
	}
	return indices
}

// storeInformerID registers name for pods; a registration error is logged
// as a metric event so both sides must agree on it too.
func storeInformerID[N interface {
	WithResource(schema.GroupVersionResource) ID
}, ID any](log *storeMetricLog, name string, newName func(string) (N, error)) ID {
	informer, err := newName(name)
	if err != nil {
		log.record("NewInformerName error: " + err.Error())
		var none ID
		return none
	}
	return informer.WithResource(storePodsResource)
}

// storeInformerIdentity is what the metrics provider reads of an identifier.
type storeInformerIdentity interface {
	Name() string
	GroupVersionResource() schema.GroupVersionResource
}

// storeMetricsOf is a library's metrics provider (ID its identifier type,
// G and H its gauge and histogram types) that records every metric it
// creates and every value set on them in one log.
type storeMetricsOf[ID storeInformerIdentity, G, H any] struct {
	// log receives the events.
	log *storeMetricLog
}

// NewQueuedItemMetric records the creation and returns a recording gauge.
func (m storeMetricsOf[ID, G, H]) NewQueuedItemMetric(id ID) G {
	return any(m.log.gauge("queued-items", id.Name(), id.GroupVersionResource().String())).(G)
}

// NewProcessingLatencyMetric records the creation and returns a recording histogram.
func (m storeMetricsOf[ID, G, H]) NewProcessingLatencyMetric(id ID) H {
	return any(m.log.gauge("processing-latency", id.Name(), id.GroupVersionResource().String())).(H)
}

// NewStoreResourceVersionMetric records the creation and returns a recording gauge.
func (m storeMetricsOf[ID, G, H]) NewStoreResourceVersionMetric(id ID) G {
	return any(m.log.gauge("store-resource-version", id.Name(), id.GroupVersionResource().String())).(G)
}

// storeTombstoneFields is the shape both libraries' DeletedFinalStateUnknown have.
type storeTombstoneFields = struct {
	Key string
	Obj any
}

// storeValuesOf converts between the neutral values and a library's
// tombstone type T and explicit key type K.
type storeValuesOf[T ~storeTombstoneFields, K ~string] struct{}

// in implements storeLib.
func (v storeValuesOf[T, K]) in(obj any) any {
	switch o := obj.(type) {
	case storeTombstone:
		return T(storeTombstoneFields{Key: o.Key, Obj: v.in(o.Obj)})
	case storeExplicitKey:
		return K(o)
	}
	return obj
}

// out implements storeLib.
func (v storeValuesOf[T, K]) out(obj any) any {
	switch o := obj.(type) {
	case T:
		fields := storeTombstoneFields(o)
		return storeTombstone{Key: fields.Key, Obj: v.out(fields.Obj)}
	case K:
		return storeExplicitKey(o)
	}
	return obj
}

// storeIndexersOf builds and reads a library's Indexers type M (of index
// functions F).
type storeIndexersOf[M ~map[string]F, F ~func(obj any) ([]string, error)] struct{}

// indexers converts neutral index functions to M; nil stays nil.
func (storeIndexersOf[M, F]) indexers(funcs storeIndexFuncs) M {
	if funcs == nil {
		return nil
	}
	out := M{}
	for name, fn := range funcs {
		out[name] = F(fn)
	}
	return out
}

// indexerNames implements storeLib.
func (storeIndexersOf[M, F]) indexerNames(subject any) ([]string, bool) {
	indexers := subject.(interface{ GetIndexers() M }).GetIndexers()
	names := make([]string, 0, len(indexers))
	for name := range indexers {
		names = append(names, name)
	}
	return names, indexers == nil
}

// addIndexers implements storeLib.
func (x storeIndexersOf[M, F]) addIndexers(subject any, funcs storeIndexFuncs) error {
	return subject.(interface{ AddIndexers(M) error }).AddIndexers(x.indexers(funcs))
}

// storeTxnFields is the shape both libraries' Transaction have.
type storeTxnFields[TT ~string] = struct {
	Object any
	Type   TT
}

// storeTxns converts neutral transactions to a library's Transaction type.
func storeTxns[X ~storeTxnFields[TT], TT ~string](txns []storeTxn, in func(any) any) []X {
	out := make([]X, len(txns))
	for i, t := range txns {
		out[i] = X(storeTxnFields[TT]{Object: in(t.Obj), Type: TT(t.Type)})
	}
	return out
}

// storeTransactThreadSafe runs txns on subject when it is an S, pairing
// each Transaction with its key through pair.
func storeTransactThreadSafe[S interface{ Transaction(...P) }, P any, X ~storeTxnFields[TT], TT ~string](
	subject any, txns []storeTxn, in func(any) any, pair func(X, string) P) bool {
	ts, ok := subject.(S)
	if !ok {
		return false
	}
	plain := storeTxns[X](txns, in)
	all := make([]P, len(txns))
	for i, t := range txns {
		all[i] = pair(plain[i], t.Key)
	}
	ts.Transaction(all...)
	return true
}

// storeTxnErrorFields is the shape both libraries' TransactionError have.
type storeTxnErrorFields = struct {
	SuccessfulIndices []int
	TotalTransactions int
	Errors            []error
}

// storeKeyErrorsOf reads a library's KeyError type KE.
type storeKeyErrorsOf[KE ~struct {
	Obj any
	Err error
}] struct{}

// keyError implements storeLib.
func (storeKeyErrorsOf[KE]) keyError(err error) (any, error, bool) {
	var ke KE
	if !errors.As(err, &ke) {
		return nil, nil, false
	}
	fields := struct {
		Obj any
		Err error
	}(ke)
	return fields.Obj, fields.Err, true
}

// storeTransactOf runs a library's TransactionStore S, of Transaction X
// (of TransactionType TT) and TransactionError TE.
type storeTransactOf[S interface{ Transaction(...X) *TE }, X ~storeTxnFields[TT], TT ~string, TE ~storeTxnErrorFields] struct{}

// transact implements storeLib.
func (storeTransactOf[S, X, TT, TE]) transact(subject any, txns []storeTxn, in func(any) any) (*storeTxnError, bool) {
	ts, ok := subject.(S)
	if !ok {
		return nil, false
	}
	te := ts.Transaction(storeTxns[X](txns, in)...)
	if te == nil {
		return nil, true
	}
	fields := storeTxnErrorFields(*te)
	return &storeTxnError{fields.SuccessfulIndices, fields.TotalTransactions, fields.Errors, any(te).(error).Error()}, true
}

// storeInterfacesOf reports which of a library's optional interfaces a
// store has: Indexer I, TransactionStore T, ThreadSafeStoreWithTransaction
// W, TransformingStore F and ReflectorStore R.
type storeInterfacesOf[I, T, W, F, R any] struct{}

// implements implements storeLib.
func (storeInterfacesOf[I, T, W, F, R]) implements(subject any) string {
	_, indexer := subject.(I)
	_, txn := subject.(T)
	_, tssTxn := subject.(W)
	_, transforming := subject.(F)
	_, reflectorStore := subject.(R)
	return fmt.Sprintf("Indexer=%t TransactionStore=%t ThreadSafeStoreWithTransaction=%t TransformingStore=%t ReflectorStore=%t",
		indexer, txn, tssTxn, transforming, reflectorStore)
}
