package transform_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	kcache "github.com/kcache-go/cache"
	fcache "github.com/kcache-go/cache/testing"
	"github.com/kcache-go/cache/transform"
)

// templatePod is a decoded pod of template tmpl (env value env), named
// name.
func templatePod(tmpl int, env, name string) *corev1.Pod {
	raw := fmt.Sprintf(`{"metadata": {"name": %q, "namespace": "ns", "labels": {"t": "%d"}},
  "spec": {"nodeSelector": {"t": "%d"}, "containers": [{"name": "c", "image": "img:%d", "args": ["--t=%d"],
    "env": [{"name": "E", "value": %q}], "resources": {"limits": {"cpu": "1000m", "memory": "1024Mi"}},
    "livenessProbe": {"httpGet": {"path": "/", "port": "http"}}}],
    "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": "1024Mi"}}]},
  "status": {"phase": "Running", "containerStatuses": [{"name": "c", "image": "img:%d", "ready": true,
    "allocatedResources": {"cpu": "1000m"}}]}}`, name, tmpl, tmpl, tmpl, tmpl, env, tmpl)
	pod := &corev1.Pod{}
	mustUnmarshal([]byte(raw), pod)
	return pod
}

// specsEqualOnUpdates runs Add/Update/Delete of pods of two templates
// through an informer with tf (none when nil) and returns reflect.DeepEqual(old.Spec,
// new.Spec) of every update, in order.
func specsEqualOnUpdates(t *testing.T, tf kcache.TransformFunc) []bool {
	source := fcache.NewFakeControllerSource()
	defer source.Shutdown()
	informer := kcache.NewSharedIndexInformer(source, &corev1.Pod{}, 0, kcache.Indexers{})
	if tf != nil {
		if err := informer.SetTransform(tf); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var equal []bool
	deleted := make(chan struct{})
	_, _ = informer.AddEventHandler(kcache.ResourceEventHandlerFuncs{
		UpdateFunc: func(o, n any) {
			mu.Lock()
			equal = append(equal, reflect.DeepEqual(o.(*corev1.Pod).Spec, n.(*corev1.Pod).Spec))
			mu.Unlock()
			_, _ = json.Marshal(n)
		},
		DeleteFunc: func(any) { close(deleted) },
	})
	defer runUntilSynced(t, informer)()
	source.Add(templatePod(0, "x", "a0"))
	source.Add(templatePod(0, "x", "a1"))
	source.Add(templatePod(1, "x", "b0"))
	source.Modify(templatePod(0, "x", "a0")) // same spec
	source.Modify(templatePod(1, "x", "a1")) // the other template
	source.Modify(templatePod(1, "y", "b0")) // env differs
	source.Modify(templatePod(1, "x", "b0")) // back
	source.Delete(templatePod(0, "x", "a0"))
	<-deleted
	mu.Lock()
	defer mu.Unlock()
	return equal
}

// sharingTransform is the recommended transform with ShareIdenticalPodParts
// opted in.
var sharingTransform = transform.Chain(transform.Recommended, transform.ShareIdenticalPodParts)

func TestAnInformerWithTheMemoryTransformsGivesHandlersTheSameOldAndNewComparisonsAsWithout(t *testing.T) {
	want := specsEqualOnUpdates(t, nil)
	for name, tf := range map[string]kcache.TransformFunc{
		"Recommended": transform.Recommended, "with ShareIdenticalPodParts": sharingTransform,
	} {
		got := specsEqualOnUpdates(t, tf)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(want, []bool{true, false, false, false}) {
			t.Fatalf("%s: old and new specs are equal on the updates %v with the transform, %v without", name, got, want)
		}
	}
}
