package extras

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	kframework "github.com/kcache-go/cache/testing"
	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	cgframework "k8s.io/client-go/tools/cache/testing"
)

// source is the method set shared by both FakeControllerSource variants.
type source interface {
	Add(obj runtime.Object)
	Modify(obj runtime.Object)
	Delete(lastValue runtime.Object)
	AddDropWatch(obj runtime.Object)
	ModifyDropWatch(obj runtime.Object)
	DeleteDropWatch(lastValue runtime.Object)
	Change(e watch.Event, watchProbability float64)
	List(options metav1.ListOptions) (runtime.Object, error)
	Watch(options metav1.ListOptions) (watch.Interface, error)
	ResetWatch()
	Shutdown()
}

// sourceKit builds one implementation's sources.
type sourceKit struct {
	plain, pv, pvc func() source
}

// setSourceListError sets s's ListError, the field every fake source of
// either library has (its own or its embedded FakeControllerSource's).
func setSourceListError(s source, err error) {
	f := reflect.ValueOf(s).Elem().FieldByName("ListError")
	if !f.IsValid() {
		panic(fmt.Sprintf("%T has no ListError", s))
	}
	f.Set(reflect.ValueOf(&err).Elem())
}

var clientGoSources = sourceKit{
	plain: func() source { return cgframework.NewFakeControllerSource() },
	pv:    func() source { return cgframework.NewFakePVControllerSource() },
	pvc:   func() source { return cgframework.NewFakePVCControllerSource() },
}

var kcacheSources = sourceKit{
	plain: func() source { return kframework.NewFakeControllerSource() },
	pv:    func() source { return kframework.NewFakePVControllerSource() },
	pvc:   func() source { return kframework.NewFakePVCControllerSource() },
}

// sourceObject makes the object named by "kind/name" (kind pod, pv or pvc).
func sourceObject(ref string) runtime.Object {
	kind, name, _ := strings.Cut(ref, "/")
	om := metav1.ObjectMeta{Name: name}
	switch kind {
	case "pv":
		return &v1.PersistentVolume{ObjectMeta: om}
	case "pvc":
		om.Namespace = "ns"
		return &v1.PersistentVolumeClaim{ObjectMeta: om}
	}
	om.Namespace = "ns"
	return &v1.Pod{ObjectMeta: om}
}

func describeObject(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%T %s@%s", obj, m.GetName(), m.GetResourceVersion())
}

// describeList renders a list result: its type, resource version and its
// items, sorted (the fakes list in map order).
func describeList(obj runtime.Object, err error) string {
	if err != nil {
		return fmt.Sprintf("%v error: %v", obj, err)
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return "extract error: " + err.Error()
	}
	var names []string
	for _, it := range items {
		names = append(names, describeObject(it))
	}
	sort.Strings(names)
	lm, _ := meta.ListAccessor(obj)
	return fmt.Sprintf("%T rv=%s items=%v", obj, lm.GetResourceVersion(), names)
}

// playSource returns the player of fake_source.txt for one implementation.
func playSource(kit sourceKit) player {
	return func(t *testing.T, sc scenario) []string {
		var trace []string
		s := map[string]func() source{"plain": kit.plain, "pv": kit.pv, "pvc": kit.pvc}[sc.options["kind"]]()
		var watchers []watch.Interface
		kept := map[string]runtime.Object{}
		for _, step := range sc.steps {
			trace = append(trace, strings.Join(step, " ")+" -> "+capturePanic(func() string {
				return sourceStep(s, kit, step, &watchers, kept)
			}))
		}
		s.Shutdown()
		for i, w := range watchers {
			for e := range w.ResultChan() {
				trace = append(trace, fmt.Sprintf("watcher %d: %s %s", i, e.Type, describeObject(e.Object)))
			}
		}
		return trace
	}
}

// sourceStep performs one step and describes its result. The "-same"
// steps hand the source the same object (kept by reference) every time;
// "set-rv" changes a kept object's resource version behind the source's
// back; the "-bad" steps hand it nil, a nil *v1.Pod or an object without
// object metadata.
func sourceStep(s source, kit sourceKit, step []string, watchers *[]watch.Interface, kept map[string]runtime.Object) string {
	arg := func(i int) string {
		if i < len(step) {
			return step[i]
		}
		return ""
	}
	switch step[0] {
	case "add", "modify", "delete", "add-drop", "modify-drop", "delete-drop":
		obj := sourceObject(arg(1))
		map[string]func(runtime.Object){
			"add": s.Add, "modify": s.Modify, "delete": s.Delete,
			"add-drop": s.AddDropWatch, "modify-drop": s.ModifyDropWatch, "delete-drop": s.DeleteDropWatch,
		}[step[0]](obj)
		return describeObject(obj)
	case "add-same", "modify-same", "delete-same":
		obj, ok := kept[arg(1)]
		if !ok {
			obj = sourceObject(arg(1))
			kept[arg(1)] = obj
		}
		map[string]func(runtime.Object){
			"add-same": s.Add, "modify-same": s.Modify, "delete-same": s.Delete,
		}[step[0]](obj)
		return describeObject(obj)
	case "add-bad", "modify-bad", "delete-bad":
		obj := map[string]runtime.Object{"nil": nil, "nilpod": (*v1.Pod)(nil), "status": &metav1.Status{}}[arg(1)]
		map[string]func(runtime.Object){
			"add-bad": s.Add, "modify-bad": s.Modify, "delete-bad": s.Delete,
		}[step[0]](obj)
		return "ok"
	case "set-rv":
		obj, ok := kept[arg(1)]
		if !ok {
			return "not kept"
		}
		m, _ := meta.Accessor(obj)
		m.SetResourceVersion(arg(2))
		return describeObject(obj)
	case "change":
		p, _ := strconv.ParseFloat(arg(3), 64)
		obj := sourceObject(arg(2))
		s.Change(watch.Event{Type: watch.EventType(arg(1)), Object: obj}, p)
		return describeObject(obj)
	case "list":
		return describeList(s.List(metav1.ListOptions{}))
	case "list-error":
		var err error
		if len(step) > 1 {
			err = fmt.Errorf("%s", strings.Join(step[1:], " "))
		}
		setSourceListError(s, err)
		return "set"
	case "watch":
		w, err := s.Watch(metav1.ListOptions{ResourceVersion: strings.Trim(arg(1), `"`)})
		if err != nil {
			return fmt.Sprintf("error %T expired=%v: %v", err, apierrors.IsResourceExpired(err), err)
		}
		*watchers = append(*watchers, w)
		return fmt.Sprintf("watcher %d", len(*watchers)-1)
	case "reset":
		s.ResetWatch()
		return "reset"
	}
	return "unknown step"
}

func TestFakeControllerSourceMatchesClientGo(t *testing.T) {
	defer goleak.VerifyNone(t)
	compareTraces(t, "fake_source.txt", klogged(playSource(clientGoSources)), klogged(playSource(kcacheSources)))
}
