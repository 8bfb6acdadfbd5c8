package cache

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"
	"weak"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// layoutObj is an immutable test object: the key it is stored under and its
// indexed value.
type layoutObj struct {
	key, value string
	pad        [64]byte
}

func layoutValueIndex(obj interface{}) ([]string, error) {
	return []string{obj.(*layoutObj).value}, nil
}

func TestConcurrentReadsSeeOneConsistentSnapshotWhileWritersChurnTheRecords(t *testing.T) {
	defer goleak.VerifyNone(t)
	const keys, writes = 300, 4000
	// "pre" gives no value of its own: its members are the preloaded keys,
	// detached until written and detached again by every delete.
	preloaded := sets.New[string]()
	for i := 0; i < keys; i += 3 {
		preloaded.Insert(fmt.Sprintf("k%d", i))
	}
	none := func(interface{}) ([]string, error) { return nil, nil }
	s := NewThreadSafeStore(Indexers{"v": layoutValueIndex, "pre": none}, Indices{"pre": {"p": preloaded}})
	for _, e := range churnWhileReading(func(w int) {
		for i := 0; i < writes; i++ {
			k := fmt.Sprintf("k%d", (i*7+w*13)%keys)
			switch i % 9 {
			case 0, 1, 2, 3:
				s.Update(k, &layoutObj{key: k, value: fmt.Sprint(i % 3)})
			case 4, 5, 6:
				s.Delete(k)
			case 7:
				if i == 2005 || i == 3601 {
					items := map[string]interface{}{}
					for j := 0; j < keys/2; j++ {
						kj := fmt.Sprintf("k%d", j*2)
						items[kj] = &layoutObj{key: kj, value: fmt.Sprint(j % 3)}
					}
					s.Replace(items, "1")
				}
			default:
				s.Add(k, &layoutObj{key: k, value: "2"})
			}
		}
	}, func(report func(string)) {
		seen := map[*layoutObj]bool{}
		keysSeen := map[string]bool{}
		for _, o := range s.List() {
			lo, ok := o.(*layoutObj)
			if !ok {
				report(fmt.Sprintf("List gave %#v", o))
				continue
			}
			if seen[lo] || keysSeen[lo.key] {
				report("List holds " + lo.key + " twice")
			}
			seen[lo], keysSeen[lo.key] = true, true
		}
		for _, v := range []string{"0", "1", "2"} {
			objs, _ := s.ByIndex("v", v)
			for _, o := range objs {
				if o == nil || o.(*layoutObj).value != v {
					report(fmt.Sprintf("ByIndex(v, %s) gave %v", v, o))
				}
			}
			ks, _ := s.IndexKeys("v", v)
			for _, k := range ks {
				if obj, ok := s.Get(k); ok && obj.(*layoutObj).key != k {
					report("Get(" + k + ") gave the object of " + obj.(*layoutObj).key)
				}
			}
		}
		pre, _ := s.ByIndex("pre", "p")
		preKeys, _ := s.IndexKeys("pre", "p")
		// NB: a Replace drops the preloaded content (as in client-go), so
		// each read sees all of it or none.
		for _, n := range []int{len(pre), len(preKeys)} {
			if n != 0 && n != preloaded.Len() {
				report(fmt.Sprintf("the preloaded value holds %d members, want 0 or %d", n, preloaded.Len()))
			}
		}
		for _, o := range pre {
			if o == nil {
				continue
			}
			if lo, ok := o.(*layoutObj); !ok || !preloaded.Has(lo.key) {
				report(fmt.Sprintf("ByIndex(pre, p) gave %#v", o))
			}
		}
		lk := s.ListKeys()
		dup := map[string]bool{}
		for _, k := range lk {
			if dup[k] {
				report("ListKeys holds " + k + " twice")
			}
			dup[k] = true
		}
	}) {
		t.Error(e)
	}
}

func TestADeletedObjectIsNotRetainedByTheStore(t *testing.T) {
	rows := []struct {
		name string
		// run stores the victim under "victim" (via put) and then drops it.
		run func(s ThreadSafeStore, put func())
	}{
		{"after Delete", func(s ThreadSafeStore, put func()) { put(); s.Delete("victim") }},
		{"after Update with another object", func(s ThreadSafeStore, put func()) {
			put()
			s.Update("victim", &layoutObj{key: "victim", value: "a"})
		}},
		{"after Replace without it", func(s ThreadSafeStore, put func()) {
			put()
			s.Replace(map[string]interface{}{"other": &layoutObj{key: "other", value: "a"}}, "1")
		}},
		{"after its free slot is reused", func(s ThreadSafeStore, put func()) {
			put()
			s.Delete("victim")
			s.Add("next", &layoutObj{key: "next", value: "a"})
		}},
		{"after a delete that detaches its record (changed in place)", func(s ThreadSafeStore, put func()) {
			put()
			o, _ := s.Get("victim")
			o.(*layoutObj).value = "moved"
			s.Delete("victim")
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			s := NewThreadSafeStore(Indexers{"v": layoutValueIndex}, Indices{})
			for i := 0; i < 2000; i++ {
				k := fmt.Sprintf("k%d", i)
				s.Add(k, &layoutObj{key: k, value: "a"})
			}
			var wp weak.Pointer[layoutObj]
			func() {
				o := &layoutObj{key: "victim", value: "a"}
				wp = weak.Make(o)
				row.run(s, func() { s.Add("victim", o) })
			}()
			if !weakTargetCollected(wp) {
				t.Fatal("the dropped object is still reachable from the store")
			}
			runtime.KeepAlive(s)
		})
	}
}

func TestAHugeDeletedKeyIsFreedAndAListedKeyPinsOnlyItsOwnBytes(t *testing.T) {
	s := NewThreadSafeStore(Indexers{"v": layoutValueIndex}, Indices{})
	var huge weak.Pointer[byte]
	var small string
	func() {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 'h'
		}
		hk := string(b)
		huge = weak.Make(unsafe.StringData(hk))
		s.Add(hk, &layoutObj{key: hk, value: "a"})
		s.Add(strings.Repeat("s", 3), &layoutObj{key: "sss", value: "a"})
		for _, k := range s.ListKeys() {
			if len(k) == 3 {
				small = k
			}
		}
		ks, _ := s.IndexKeys("v", "a")
		if len(ks) != 2 {
			t.Fatalf("IndexKeys gave %d keys", len(ks))
		}
		s.Delete(hk)
	}()
	if !weakTargetCollected(huge) {
		t.Fatal("the deleted 1 MiB key is still reachable")
	}
	if small != "sss" {
		t.Fatalf("kept key %q", small)
	}
	runtime.KeepAlive(s)
}

func TestConcurrentNamedReadsOfAKeyFunctionIndexerSeeTheObjectOfTheirKey(t *testing.T) {
	defer goleak.VerifyNone(t)
	ix := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	pod := func(ns, name, rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	}
	namespaces := []string{"", "a", strings.Repeat("n", 150)} // the last one builds its key past the stack buffer
	for _, e := range churnWhileReading(func(w int) {
		for i := 0; i < 3000; i++ {
			p := pod(namespaces[(i+w)%3], fmt.Sprintf("p%d", i%200), fmt.Sprint(i))
			switch i % 5 {
			case 0, 1, 2:
				_ = ix.Update(p)
			case 3:
				_ = ix.Delete(p)
			default:
				if i%1000 == 4 {
					_ = ix.Replace([]interface{}{pod("a", "p1", "1"), pod("", "p2", "1")}, "1")
				}
			}
		}
	}, func(report func(string)) {
		for _, ns := range namespaces {
			objs, _ := ix.ByIndex(NamespaceIndex, ns)
			for _, o := range objs {
				p := o.(*corev1.Pod)
				if p.Namespace != ns {
					report(fmt.Sprintf("ByIndex(%q) gave a pod of %q", ns, p.Namespace))
				}
				key, _ := MetaNamespaceKeyFunc(p)
				if got, ok, _ := ix.GetByKey(key); ok && got.(*corev1.Pod).Name != p.Name {
					report("GetByKey(" + key + ") gave " + got.(*corev1.Pod).Name)
				}
			}
		}
	}) {
		t.Error(e)
	}
}

// churnWhileReading runs write(w) on two writer goroutines (w is 0 and 1)
// and read over and over on two reader goroutines until both writers have
// returned, then returns what the readers reported: at most four messages,
// later ones are dropped. Every goroutine it starts has returned when it
// returns.
func churnWhileReading(write func(w int), read func(report func(msg string))) []string {
	errs := make(chan string, 4)
	report := func(msg string) {
		select {
		case errs <- msg:
		default:
		}
	}
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				read(report)
			}
		}()
	}
	for w := 0; w < 2; w++ {
		writers.Add(1)
		go func(w int) {
			defer writers.Done()
			write(w)
		}(w)
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	var reports []string
	for msg := range errs {
		reports = append(reports, msg)
	}
	return reports
}
