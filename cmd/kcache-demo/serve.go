package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/kcache-go/cache/debug"
	kcacheprom "github.com/kcache-go/cache/metrics/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveObservability registers kcache's metrics on a new registry and
// serves it at /metrics, and the informers' page at /debug/kcache, on addr;
// it prints both URLs. It must run before the informer is created, so that
// the informer's Reflector and queue report to the registry. The returned
// function shuts the server down.
func serveObservability(ctx context.Context, addr string) (func(), error) {
	reg := prometheus.NewRegistry()
	if err := kcacheprom.Register(reg); err != nil {
		return nil, err
	}
	reg.MustRegister(collectors.NewGoCollector())
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("/debug/kcache", debug.Handler())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println("kcache-demo: serving:", err)
		}
	}()
	base := "http://" + ln.Addr().String()
	fmt.Printf("debug page: %s/debug/kcache (JSON: ?format=json)  metrics: %s/metrics\n", base, base)
	return func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		<-served
	}, nil
}
