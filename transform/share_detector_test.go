package transform

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache"
)

// sharingTransform is the recommended transform with ShareIdenticalPodParts
// opted in.
var sharingTransform = Chain(Recommended, ShareIdenticalPodParts)

// detectorChildEnv makes the test below run as the child that holds the
// detector: the root package reads KUBE_CACHE_MUTATION_DETECTOR when the
// process starts, so the enabled detector needs a process of its own.
const detectorChildEnv = "KCACHE_TRANSFORM_DETECTOR_CHILD"

func TestTheMutationDetectorReportsNoMutationOfPodsWhoseEqualTwinsAreTransformedAndReTransformed(t *testing.T) {
	if os.Getenv(detectorChildEnv) == "1" {
		detectNoMutationOfRetransformedPods()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), detectorChildEnv+"=1", "KUBE_CACHE_MUTATION_DETECTOR=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the mutation detector reported a mutation: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Mutation detector is enabled") {
		t.Fatalf("the child ran without the mutation detector:\n%s", out)
	}
}

// detectNoMutationOfRetransformedPods watches pods transformed by
// Recommended, and by Recommended with sharing,
// transforms them again (a resync or relist) and checks once: the enabled
// detector panics, failing the child, if any watched pod was altered.
func detectNoMutationOfRetransformedPods() {
	d := cache.NewCacheMutationDetector("pods")
	for _, tr := range []cache.TransformFunc{Recommended, sharingTransform} {
		var cached []*corev1.Pod
		for i := 0; i < 50; i++ {
			pod := distinctPod("detector", i%5)
			obj, _ := tr(pod)
			d.AddObject(obj)
			cached = append(cached, pod)
		}
		for _, pod := range cached { // a resync or relist transforms them again
			_, _ = tr(pod)
			_, _ = tr(pod.DeepCopy()) // and a later version of it, decoded anew
		}
	}
	stop := make(chan struct{})
	close(stop)
	d.Run(stop) // checks once, then returns: the stop channel is closed
}
