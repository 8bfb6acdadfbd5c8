package factory

import (
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// Start starts a typed factory's pod informer; the constructor is the
// file's only use of the informers package, whose import goes.
func Start(client kubernetes.Interface, stop <-chan struct{}) {
	f := informers.NewSharedInformerFactory(client, 10*time.Minute)
	f.Core().V1().Pods().Informer()
	f.Start(stop)
}
