// Command kcache-demo runs a kcache SharedIndexInformer with three event
// handlers and prints, every second, how it is doing: the initial sync
// time, the notification rate, the cache size and each handler's backlog.
//
// By default the pods come from an embedded, in-process simulated cluster
// (10,000 pods, steady churn, a dropped watch every few seconds and an
// occasional 410 Gone that forces a relist), so it runs anywhere with
// nothing installed. With -kubeconfig it watches the pods of a real cluster.
//
// It also serves, on a loopback port (-listen), the live page of its
// informers at /debug/kcache (package debug) and the Prometheus metrics at
// /metrics (package metrics/prometheus), and prints their URLs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	cache "github.com/kcache-go/cache"
	kcacheprom "github.com/kcache-go/cache/metrics/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// demoOptions are the command-line settings.
type demoOptions struct {
	// duration bounds the run; zero runs until interrupted.
	duration time.Duration
	// pods is the simulated cluster's pod count.
	pods int
	// churn is the simulated changes per second.
	churn int
	// dropEvery is how often the simulated cluster drops every watch.
	dropEvery time.Duration
	// goneEvery is how often it compacts its history and sends 410 Gone.
	goneEvery time.Duration
	// auditCost is the slow handler's time per notification.
	auditCost time.Duration
	// kubeconfig, when set, selects a real cluster.
	kubeconfig string
	// verboseLogs keeps klog output on stderr.
	verboseLogs bool
	// listen is the address of the debug page and /metrics.
	listen string
}

func parseOptions() demoOptions {
	var o demoOptions
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "how long to run (0 = until interrupted)")
	flag.IntVar(&o.pods, "pods", 10000, "pods in the simulated cluster")
	flag.IntVar(&o.churn, "churn", 2000, "changes per second in the simulated cluster (0: none)")
	flag.DurationVar(&o.dropEvery, "drop-every", 5*time.Second, "drop every watch this often (simulated cluster)")
	flag.DurationVar(&o.goneEvery, "gone-every", 13*time.Second, "compact history and send 410 Gone this often (simulated cluster)")
	flag.DurationVar(&o.auditCost, "audit-cost", 200*time.Microsecond, "time the slow audit handler spends per notification")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "watch the pods of the cluster in this kubeconfig instead of the simulated one")
	flag.BoolVar(&o.verboseLogs, "v", false, "show informer log messages (relists, watch errors)")
	flag.StringVar(&o.listen, "listen", "127.0.0.1:0", "address serving /debug/kcache and /metrics (port 0: any free port)")
	flag.Parse()
	return o
}

func main() {
	o := parseOptions()
	if !o.verboseLogs {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "kcache-demo:", err)
		os.Exit(1)
	}
}

// run wires source, informer and handlers, and reports until ctx ends.
func run(ctx context.Context, o demoOptions) error {
	var lw cache.ListerWatcher
	var cluster *simulatedCluster
	if o.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
		if err != nil {
			return err
		}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		lw = cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", v1.NamespaceAll, fields.Everything())
		fmt.Printf("watching pods of the cluster in %s for %v\n", o.kubeconfig, o.duration)
	} else {
		cluster = newSimulatedCluster(o.pods)
		lw = cluster
		go simulate(ctx, cluster, o)
		fmt.Printf("simulated cluster: %d pods, %d changes/s, watches dropped every %v, 410 Gone every %v; running %v\n",
			o.pods, o.churn, o.dropEvery, o.goneEvery, o.duration)
	}

	stopServing, err := serveObservability(ctx, o.listen)
	if err != nil {
		return err
	}
	defer stopServing()
	name, err := cache.NewInformerName("kcache-demo")
	if err != nil {
		return err
	}
	defer name.Release()
	informer := cache.NewSharedIndexInformerWithOptions(lw, &v1.Pod{}, cache.SharedIndexInformerOptions{
		Indexers:   cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Identifier: name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
		// Given explicitly so that the store's resource version is published
		// too (the process-wide provider reaches the queue only, as in client-go).
		InformerMetricsProvider: kcacheprom.InformerMetricsProvider(),
	})
	r := &reporter{start: time.Now(), informer: informer, cluster: cluster, counter: &counterHandler{},
		web: &webPodHandler{perNode: map[string]int{}}, audit: &slowAuditHandler{cost: o.auditCost}}
	if err := r.addHandlers(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { informer.RunWithContext(ctx); close(done) }()
	r.loop(ctx)
	<-done
	r.summary()
	return nil
}

// simulate drives churn and disruptions in the simulated cluster until ctx
// ends.
func simulate(ctx context.Context, c *simulatedCluster, o demoOptions) {
	const tick = 10 * time.Millisecond
	perTick := max(1, o.churn*int(tick)/int(time.Second))
	churn := time.NewTicker(tick)
	defer churn.Stop()
	drop := time.NewTicker(o.dropEvery)
	defer drop.Stop()
	gone := time.NewTicker(o.goneEvery)
	defer gone.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-churn.C:
			if o.churn > 0 {
				c.churn(perTick)
			}
		case <-drop.C:
			c.dropWatches()
		case <-gone.C:
			c.expireHistory()
		}
	}
}
