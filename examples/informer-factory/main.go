// Command informer-factory is a controller set-up that gets its informers
// from client-go's generated informer factory, reads through generated
// listers and unwraps tombstones with client-go's types — running on
// kcache. The one kcache line is the factory constructor:
//
//	factory := clientgo.NewSharedInformerFactoryWithOptions(client, resync, informers.WithNamespace(ns))
//
// instead of informers.NewSharedInformerFactoryWithOptions. Everything else,
// handler code included, keeps importing k8s.io/client-go/tools/cache.
//
// Without flags it runs against a fake clientset and prints what it saw;
// with -kubeconfig it watches a real cluster until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kcache-go/cache/clientgo"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig; empty runs against a fake clientset")
	namespace := flag.String("namespace", "default", "namespace to watch")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *kubeconfig, *namespace); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run sets up the factory, a handler and a lister, and reports. Against the
// fake clientset it also creates and deletes a pod and returns; against a
// cluster it runs until ctx ends.
func run(ctx context.Context, out io.Writer, kubeconfig, namespace string) error {
	client, demo, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	// The one line that puts the factory's informers on kcache.
	factory := clientgo.NewSharedInformerFactoryWithOptions(client, 10*time.Minute, informers.WithNamespace(namespace))

	pods := factory.Core().V1().Pods()
	deleted := make(chan string, 1)
	_, err = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) { fmt.Fprintf(out, "add %s\n", obj.(*corev1.Pod).Name) },
		DeleteFunc: func(obj interface{}) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				fmt.Fprintf(out, "delete %s\n", pod.Name)
				select {
				case deleted <- pod.Name:
				default:
				}
			}
		},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer factory.Shutdown() // after cancel: waits for the stopped informers
	defer cancel()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), pods.Informer().HasSynced) {
		return fmt.Errorf("pods did not sync")
	}
	_, onKcache := clientgo.KcacheInformer(pods.Informer())
	listed, err := pods.Lister().Pods(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "synced: %d pods in %s, informer on kcache: %v\n", len(listed), namespace, onKcache)
	if !demo {
		<-ctx.Done()
		return nil
	}
	return demoChurn(ctx, client, namespace, deleted)
}

// demoChurn creates and deletes one pod on the fake clientset and waits for
// the delete notification.
func demoChurn(ctx context.Context, client kubernetes.Interface, namespace string, deleted <-chan string) error {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "added-later"}}
	if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	if err := client.CoreV1().Pods(namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	select {
	case <-deleted:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newClient returns a clientset for kubeconfig, or a fake one holding two
// pods (demo is then true).
func newClient(kubeconfig string) (client kubernetes.Interface, demo bool, err error) {
	if kubeconfig == "" {
		return fake.NewClientset(
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}},
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"}},
		), true, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, false, err
	}
	client, err = kubernetes.NewForConfig(cfg)
	return client, false, err
}
