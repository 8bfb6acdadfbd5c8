package fastlw_test

import (
	"fmt"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// slowLabel is an idempotent transform that takes a second (fake time,
// under synctest) to label a pod, and nothing on a pod it labelled: it
// stands for a page whose items take long to decode.
func slowLabel(obj interface{}) (interface{}, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Labels["seen"] == "yes" {
		return obj, nil
	}
	time.Sleep(time.Second)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["seen"] = "yes"
	return pod, nil
}

// TestAPageWhoseItemsDecodeSlowerThanItArrivesIsNotCutByTheRequestsDeadline
// lists a page of twenty pods that arrives at once but whose items take a
// second each to decode (the early transform), under a deadline of ten
// seconds: the Timeout of the client's http.Client, or the caller's
// context. On client-go the deadline covers the request, its body read
// included, not the decoding, which follows Request.Do: the list succeeds.
// fastlw's must too, with the same items.
func TestAPageWhoseItemsDecodeSlowerThanItArrivesIsNotCutByTheRequestsDeadline(t *testing.T) {
	pods := make([]string, 20)
	for i := range pods {
		pods[i] = pod(fmt.Sprintf("p%02d", i), strconv.Itoa(i+1), "")
	}
	page := scriptedAnswer{contentType: "application/json", body: podList(`"metadata":{"resourceVersion":"30"},`, pods...), boundToRequest: true}
	tests := []struct {
		name          string
		caller        callerContext
		clientTimeout time.Duration
	}{
		{name: "the client's Timeout", clientTimeout: 10 * time.Second},
		{name: "the caller's deadline", caller: deadlineAfter(10 * time.Second)},
	}
	plainLister := func(c rest.Interface) cache.ListerWatcherWithContext {
		return transformedAfter{clientGoPlain(c), slowLabel}
	}
	fastLister := func(c rest.Interface) cache.ListerWatcherWithContext {
		return fastlw.New(fastlw.Config{Client: c, Resource: "pods", Namespace: "ns", Transform: slowLabel, Workers: 1, MaxInFlight: 2})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				withTimeout := func(tr *scriptTransport) { tr.clientTimeout = tt.clientTimeout }
				plain := runScript(t, []scriptedAnswer{page}, listSide(plainLister, metav1.ListOptions{}, tt.caller), withTimeout)
				fast := runScript(t, []scriptedAnswer{page}, listSide(fastLister, metav1.ListOptions{}, tt.caller), withTimeout)
				if plain.out.err != nil || len(plain.out.events) != 1 {
					t.Fatalf("client-go: %d pages, error %v; want the page", len(plain.out.events), plain.out.err)
				}
				requireSameWatch(t, plain.out, fast.out)
				if plain.requests != fast.requests {
					t.Fatalf("client-go sent %d requests, fastlw %d", plain.requests, fast.requests)
				}
			})
		})
	}
}
