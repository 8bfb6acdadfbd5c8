package fastlw_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/transform"
)

// labelSeen is an idempotent transform that labels pods seen=yes, so that a
// test can tell a transformed pod.
func labelSeen(obj interface{}) (interface{}, error) {
	if pod, ok := obj.(*corev1.Pod); ok {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels["seen"] = "yes"
	}
	return obj, nil
}

// TestAnInformerWhoseTransformAlsoRunsOnTheDecodeWorkersStoresAndNotifiesAsWithTheInformersTransformAlone
// runs a kcache SharedIndexInformer with Chain(labelSeen, Recommended) as
// its transform on the plain ListerWatcher, on fastlw, and on fastlw with
// the same function as Config.Transform (the early pass), against one fake
// apiserver (600 pods, then every kind of change), WatchList off and on,
// JSON and protobuf: the same handler events in the same order and the same
// store, every pod of it transformed.
func TestAnInformerWhoseTransformAlsoRunsOnTheDecodeWorkersStoresAndNotifiesAsWithTheInformersTransformAlone(t *testing.T) {
	const pods = 600
	want := pods + 4
	tf := transform.Chain(labelSeen, transform.Recommended)
	onEveryListPathAndFormat(t, pods, func(t *testing.T, _ *testEnv, client rest.Interface, _ bool) {
		plain := runInformer(t, cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), tf, want)
		late := runInformer(t, fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil), tf, want)
		early := runInformer(t, fastlw.New(fastlw.Config{Client: client, Resource: "pods", Namespace: "ns", Transform: tf}), tf, want)
		requireSameRun(t, "fastlw", plain, late, pods)
		requireSameRun(t, "fastlw+early", plain, early, pods)
		for _, pod := range early.store {
			if pod.Labels["seen"] != "yes" {
				t.Fatalf("pod %s was not transformed", pod.Name)
			}
		}
	})
}

// TestTheEarlyTransformSeesListItemsAndTheObjectsOfAddedModifiedAndDeletedEventsOnly
// lists and watches through fastlw with a Config.Transform that labels
// pods: every list item and the object of every ADDED, MODIFIED and DELETED
// event comes out labelled, the bookmark's object does not.
func TestTheEarlyTransformSeesListItemsAndTheObjectsOfAddedModifiedAndDeletedEventsOnly(t *testing.T) {
	for _, format := range []string{"json", "protobuf"} {
		t.Run(format, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			env := startEnv(scenario{pods: newPods(3), watchSteps: changes(), watchEnd: endHang})
			defer env.close()
			lw := fastlw.New(fastlw.Config{Client: env.client(t, format), Resource: "pods", Namespace: "ns", Transform: labelSeen})
			list, err := lw.ListWithContext(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, pod := range list.(*corev1.PodList).Items {
				if pod.Labels["seen"] != "yes" {
					t.Fatalf("list item %s not transformed", pod.Name)
				}
			}
			w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "100"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			for range changes() {
				e := <-w.ResultChan()
				labelled := e.Object.(*corev1.Pod).Labels["seen"] == "yes"
				if labelled != (e.Type != watch.Bookmark) {
					t.Fatalf("%s event: labelled %v", e.Type, labelled)
				}
			}
		})
	}
}

// TestAnEarlyTransformThatFailsOrReturnsAnotherTypeLeavesTheObjectAsTheTransformLeftIt
// watches with transforms that label the pod and then fail, or return
// something that is not a pod: the event carries the decoded pod, labelled
// (the informer's own transform reports the error, as on the plain path).
func TestAnEarlyTransformThatFailsOrReturnsAnotherTypeLeavesTheObjectAsTheTransformLeftIt(t *testing.T) {
	cases := []struct {
		name   string
		result func(obj interface{}) (interface{}, error)
	}{
		{"an error", func(obj interface{}) (interface{}, error) { return nil, errors.New("refused") }},
		{"a string", func(interface{}) (interface{}, error) { return "not a pod", nil }},
		{"a node", func(interface{}) (interface{}, error) { return &corev1.Node{}, nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			env := startEnv(scenario{pods: newPods(1), watchSteps: changes()[:1], watchEnd: endHang})
			defer env.close()
			tf := func(obj interface{}) (interface{}, error) { _, _ = labelSeen(obj); return c.result(obj) }
			lw := fastlw.New(fastlw.Config{Client: env.client(t, "json"), Resource: "pods", Namespace: "ns", Transform: tf})
			w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "100"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			e := <-w.ResultChan()
			if pod, ok := e.Object.(*corev1.Pod); !ok || pod.Name != "pod-new" || pod.Labels["seen"] != "yes" {
				t.Fatalf("event object %#v", e.Object)
			}
		})
	}
}
