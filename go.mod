module github.com/kcache-go/cache

go 1.26.0

require (
	github.com/go-logr/logr v1.4.3 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	k8s.io/api v0.36.2 // indirect
	k8s.io/apimachinery v0.36.2 // indirect
	k8s.io/client-go v0.36.2 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	k8s.io/utils v0.0.0-20260210185600-b8788abfbbc2 // indirect
)
