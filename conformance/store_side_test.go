package conformance

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
)

// storeLibSide wraps one library's Store, Indexer or ThreadSafeStore as a
// storeSide. Every call it makes and every answer it prints is written once
// here, for both libraries; lib supplies only what names the library's own
// types (store_side_libs_test.go). Exactly one of store and tss is set;
// indexer is set when the store is an Indexer. Used by one goroutine only.
type storeLibSide struct {
	// w names objects and provides the transformer.
	w *storeWorld
	// lib is the library under this side.
	lib storeLib
	// store is the Store or Indexer under test, or nil.
	store storeStore
	// indexer is store as an Indexer (NewStore's result is one too), or nil.
	indexer storeIndexer
	// tss is the ThreadSafeStore under test, or nil.
	tss storeThreadSafe
	// transforms counts transformer calls.
	transforms int
	// metrics records what the store reports to its metrics provider.
	metrics storeMetricLog
}

// storeStore is the part of a Store the side drives; both libraries'
// Stores have it.
type storeStore interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	List() []any
	ListKeys() []string
	Get(obj any) (item any, exists bool, err error)
	GetByKey(key string) (item any, exists bool, err error)
	Replace(list []any, resourceVersion string) error
	Resync() error
	Bookmark(resourceVersion string)
	LastStoreSyncResourceVersion() string
}

// storeIndexReader is what both libraries' Indexer and ThreadSafeStore
// share, but for the methods that name the library's Indexers type.
type storeIndexReader interface {
	Index(indexName string, obj any) ([]any, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	ListIndexFuncValues(indexName string) []string
	ByIndex(indexName, indexedValue string) ([]any, error)
}

// storeIndexer is the part of an Indexer the side drives.
type storeIndexer interface {
	storeStore
	storeIndexReader
}

// storeThreadSafe is the part of a ThreadSafeStore the side drives.
type storeThreadSafe interface {
	storeIndexReader
	Add(key string, obj any)
	Update(key string, obj any)
	Delete(key string)
	DeleteWithObject(key string, obj any)
	Get(key string) (item any, exists bool)
	List() []any
	ListKeys() []string
	Replace(items map[string]any, resourceVersion string)
	Resync() error
	Bookmark(resourceVersion string)
	LastStoreSyncResourceVersion() string
}

// newStoreSides builds client-go's and kcache's sides of a run row.
func newStoreSides(w *storeWorld, row storeRow) (clientGo, kcache *storeLibSide) {
	return newStoreLibSide(w, row, storeClientGo{}), newStoreLibSide(w, row, storeKCache{})
}

// newStoreLibSide builds lib's side of a run row.
func newStoreLibSide(w *storeWorld, row storeRow, lib storeLib) *storeLibSide {
	s := &storeLibSide{w: w, lib: lib}
	b := storeBuild{indexers: s.indexers, metrics: &s.metrics}
	if row.Transformer {
		b.transformer = s.transformer
	}
	switch built := lib.build(row, b).(type) {
	case storeThreadSafe:
		s.tss = built
	case storeStore:
		s.store = built
		// NewStore's result is an Indexer too; users may assert it.
		s.indexer, _ = built.(storeIndexer)
	case nil:
	default:
		panic(fmt.Sprintf("the %s store is a %T, neither a Store nor a ThreadSafeStore", row.Kind, built))
	}
	return s
}

// transformer adapts the world's neutral transformer and counts calls.
func (s *storeLibSide) transformer(obj any) (any, error) {
	s.transforms++
	out, err := s.w.transform(s.lib.out(obj))
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	return s.lib.in(out), nil
}

// transformCalls implements storeSide.
func (s *storeLibSide) transformCalls() int { return s.transforms }

// indexers builds the index functions of catalog names; nil names give nil.
func (s *storeLibSide) indexers(names []string) storeIndexFuncs {
	if names == nil {
		return nil
	}
	out := storeIndexFuncs{}
	for _, name := range names {
		out[name] = s.indexFunc(storeIndexDefByName(name))
	}
	return out
}

// indexFunc wraps a catalog entry as an index function of the library.
func (s *storeLibSide) indexFunc(def storeIndexDef) func(obj any) ([]string, error) {
	if def.own && def.strict {
		return s.lib.metaNamespaceIndexFunc
	}
	if def.own {
		return func(obj any) ([]string, error) {
			if _, err := meta.Accessor(obj); err != nil {
				return nil, nil
			}
			return s.lib.metaNamespaceIndexFunc(obj)
		}
	}
	return func(obj any) ([]string, error) { return def.fn(s.lib.out(obj)) }
}

// apply implements storeSide.
func (s *storeLibSide) apply(op storeOp) string {
	return storeCatch(func() string {
		if s.tss != nil {
			return s.applyThreadSafe(op)
		}
		return s.applyStore(op)
	})
}

// applyStore performs op on the Store or Indexer.
func (s *storeLibSide) applyStore(op storeOp) string {
	switch op.Kind {
	case "Add":
		return s.errView(s.store.Add(s.lib.in(op.Obj)))
	case "Update":
		return s.errView(s.store.Update(s.lib.in(op.Obj)))
	case "Delete":
		return s.errView(s.store.Delete(s.lib.in(op.Obj)))
	case "Replace":
		var list []any
		if op.Objs != nil {
			list = make([]any, len(op.Objs))
			for i, o := range op.Objs {
				list[i] = s.lib.in(o)
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
		return s.errView(s.lib.addIndexers(s.indexer, s.indexers(op.Indexers)))
	case "Transaction":
		te, ok := s.lib.transact(s.store, op.Txns, s.lib.in)
		if !ok {
			return "not a TransactionStore"
		}
		return s.txnErrView(te)
	case "Index":
		objs, err := s.indexer.Index(op.Indexers[0], s.lib.in(op.Obj))
		return s.objects(objs) + s.errView(err)
	}
	return "unknown op " + op.Kind
}

// applyThreadSafe performs op on the ThreadSafeStore.
func (s *storeLibSide) applyThreadSafe(op storeOp) string {
	switch op.Kind {
	case "Add":
		s.tss.Add(op.Key, s.lib.in(op.Obj))
	case "Update":
		s.tss.Update(op.Key, s.lib.in(op.Obj))
	case "Delete":
		s.tss.Delete(op.Key)
	case "DeleteWithObject":
		s.tss.DeleteWithObject(op.Key, s.lib.in(op.Obj))
	case "Replace":
		var items map[string]any
		if op.Items != nil {
			items = make(map[string]any, len(op.Items))
			for k, o := range op.Items {
				items[k] = s.lib.in(o)
			}
		}
		s.tss.Replace(items, op.RV)
	case "Resync":
		return s.errView(s.tss.Resync())
	case "Bookmark":
		s.tss.Bookmark(op.RV)
	case "AddIndexers":
		return s.errView(s.lib.addIndexers(s.tss, s.indexers(op.Indexers)))
	case "Transaction":
		if !s.lib.transactThreadSafe(s.tss, op.Txns, s.lib.in) {
			return "not a ThreadSafeStoreWithTransaction"
		}
	case "Index":
		objs, err := s.tss.Index(op.Indexers[0], s.lib.in(op.Obj))
		return s.objects(objs) + s.errView(err)
	default:
		return "unknown op " + op.Kind
	}
	return "done"
}

// errView prints an error with its dynamic type, its message, and for a
// KeyError the offending object and the wrapped error's type.
func (s *storeLibSide) errView(err error) string {
	if err == nil {
		return " err=nil"
	}
	view := fmt.Sprintf(" err=%T{%s}", err, err.Error())
	if obj, inner, ok := s.lib.keyError(err); ok {
		view += fmt.Sprintf(" KeyError.Obj=%s KeyError.Err=%T{%v}", s.w.describe(s.lib.out(obj)), inner, inner)
	}
	if inner := errors.Unwrap(err); inner != nil {
		view += fmt.Sprintf(" unwraps=%T", inner)
	}
	return view
}

// txnErrView prints a *TransactionError field by field.
func (s *storeLibSide) txnErrView(te *storeTxnError) string {
	if te == nil {
		return "nil *TransactionError"
	}
	errs := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		errs[i] = s.errView(e)
	}
	return fmt.Sprintf("*TransactionError{SuccessfulIndices:%#v TotalTransactions:%d Errors:%d[%s] Error():%s}",
		te.SuccessfulIndices, te.TotalTransactions, len(te.Errors), strings.Join(errs, "; "), te.message)
}

// reads implements storeSide.
func (s *storeLibSide) reads(p storeProbe, labelled bool) []storeRead {
	out := make([]storeRead, 0, 64)
	add := func(call, answer string) { out = append(out, storeRead{call, answer}) }
	add("implements()", s.implements())
	add("metric events since the last read", s.metrics.drain())
	if s.tss != nil {
		for _, k := range p.keys {
			item, exists := s.tss.Get(k)
			add(storeLabel(labelled, "Get(%q)", k), s.w.describe(s.lib.out(item))+storeExists(exists))
		}
		add("List()", s.objects(s.tss.List()))
		add("ListKeys()", storeKeysView(s.tss.ListKeys()))
		add("LastStoreSyncResourceVersion()", strconv.Quote(s.tss.LastStoreSyncResourceVersion()))
		return s.indexReads(out, s.tss, p, labelled)
	}
	for _, o := range p.objs {
		item, exists, err := s.store.Get(s.lib.in(o))
		add(storeLabel(labelled, "Get(%s)", s.w.describe(o)), s.w.describe(s.lib.out(item))+storeExists(exists)+s.errView(err))
	}
	for _, k := range p.keys {
		item, exists, err := s.store.GetByKey(k)
		add(storeLabel(labelled, "GetByKey(%q)", k), s.w.describe(s.lib.out(item))+storeExists(exists)+s.errView(err))
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
func (s *storeLibSide) implements() string {
	var subject any = s.store
	if s.tss != nil {
		subject = s.tss
	}
	return s.lib.implements(subject)
}

// indexReads appends the index reads of p to out.
func (s *storeLibSide) indexReads(out []storeRead, r storeIndexReader, p storeProbe, labelled bool) []storeRead {
	add := func(call, answer string) { out = append(out, storeRead{call, answer}) }
	names, isNil := s.lib.indexerNames(r)
	add("GetIndexers()", storeSortedView(names, isNil))
	for i, name := range p.indexNames {
		add(storeLabel(labelled, "ListIndexFuncValues(%q)", name), storeKeysView(r.ListIndexFuncValues(name)))
		for _, v := range p.values[i] {
			objs, err := r.ByIndex(name, v)
			add(storeLabel(labelled, "ByIndex(%q, %q)", name, v), s.objects(objs)+s.errView(err))
			keys, err := r.IndexKeys(name, v)
			add(storeLabel(labelled, "IndexKeys(%q, %q)", name, v), storeOrderedKeysView(keys)+s.errView(err))
		}
		for _, o := range p.objs[:1] {
			objs, err := r.Index(name, s.lib.in(o))
			add(storeLabel(labelled, "Index(%q, %s)", name, s.w.describe(o)), s.objects(objs)+s.errView(err))
		}
	}
	return out
}

// objects prints the library's objects as a sorted set of neutral names.
func (s *storeLibSide) objects(objs []any) string {
	neutral := make([]any, len(objs))
	for i, o := range objs {
		neutral[i] = s.lib.out(o)
	}
	return storeObjectsView(s.w, neutral, objs == nil)
}
