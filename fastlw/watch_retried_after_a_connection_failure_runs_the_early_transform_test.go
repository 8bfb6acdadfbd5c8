package fastlw_test

import (
	"context"
	"io"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// Config.Transform is "applied ... to the object of every ADDED, MODIFIED
// and DELETED watch event right after it is decoded": also on a watch whose
// first attempt failed at the connection, since the retried answer is
// streamed by fastlw like a first one.

// TestAWatchRetriedAfterAConnectionFailureRunsTheEarlyTransform fails the
// first attempt with an EOF: the event of the retry must be transformed,
// as the event of a first attempt is.
func TestAWatchRetriedAfterAConnectionFailureRunsTheEarlyTransform(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script []scriptedAnswer
	}{
		{"the first attempt answers", []scriptedAnswer{streamOK}},
		{"the retry after an EOF answers", []scriptedAnswer{{err: io.EOF}, streamOK}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				transformed := func(t *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
					lw := fastlw.New(fastlw.Config{Client: c, Resource: "pods", Namespace: "ns", Transform: labelSeen})
					return watchAllIn(ctx, lw, metav1.ListOptions{ResourceVersion: "100"})
				}
				run := runScript(t, tt.script, transformed, nil)
				if len(run.out.events) != 1 {
					t.Fatalf("got %v, %v; want the event", summary(run.out.events), run.out.err)
				}
				if pod := run.out.events[0].Object.(*corev1.Pod); pod.Labels["seen"] != "yes" {
					t.Fatalf("the event's pod was not transformed early: labels %v", pod.Labels)
				}
			})
		})
	}
}
