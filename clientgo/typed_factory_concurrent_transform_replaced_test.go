package clientgo

import (
	"reflect"
	"testing"

	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
)

// TestWithConcurrentTransformAnInformersOwnSetTransformEndsTheEarlyPass
// builds a pods informer of a factory given a transform (which drops
// labels), then sets the informer's own transform (the identity), as a
// caller may before starting it: client-go's factory, this package's
// without WithConcurrentTransform and this package's with it store the
// same pods, the labels kept (the factory's transform no longer runs,
// neither early on fastlw's decode workers nor in the informer).
func TestWithConcurrentTransformAnInformersOwnSetTransformEndsTheEarlyPass(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	identity := func(obj interface{}) (interface{}, error) { return obj, nil }
	want := runPodsInformer(t, informers.NewSharedInformerFactoryWithOptions, &transformCalls{perName: map[string]int{}}, false, identity)
	for _, concurrent := range []bool{false, true} {
		got := runPodsInformer(t, NewSharedInformerFactoryWithOptions, &transformCalls{perName: map[string]int{}}, concurrent, identity)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("WithConcurrentTransform=%v: stored (first 3)\n client-go %v\n kcache    %v", concurrent, want[:3], got[:3])
		}
	}
}
