package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/reflectortest"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// reflectorHandlerErrors are the errors a round may end with, by name
// (see reflectortest.MakeError), plus wrapped and very-short-watch ones.
func reflectorHandlerErrors() map[string]func(name string) (error, error) {
	out := map[string]func(string) (error, error){}
	for _, name := range []string{"expired", "gone", "tooLargeRV", "internal", "tooManyRequests", "connectionRefused", "connectionReset",
		"badRequest", "forbidden", "serviceUnavailable", "eof", "unexpectedEOF", "plain", "timeout"} {
		e := reflectortest.MakeError(name)
		out[name] = func(string) (error, error) { return e, e }
		wrapped := fmt.Errorf("failed to list *v1.Pod: %w", e)
		out["wrapped "+name] = func(string) (error, error) { return wrapped, wrapped }
	}
	out["very short watch"] = func(name string) (error, error) {
		return &cache.VeryShortWatchError{Name: name}, &kcache.VeryShortWatchError{Name: name}
	}
	return out
}

// reflectorHandlerLogs calls handle with a capturing context logger.
func reflectorHandlerLogs(handle func(ctx context.Context)) string {
	var lines []string
	logger := funcr.New(func(prefix, args string) { lines = append(lines, strings.TrimSpace(prefix+" "+args)) }, funcr.Options{Verbosity: 10})
	handle(klog.NewContext(context.Background(), logger))
	return strings.Join(lines, "\n")
}

func TestDefaultWatchErrorHandlerLogsEveryErrorAsClientGoDoes(t *testing.T) {
	informerSetGates(t, map[features.Feature]bool{features.WatchListClient: false})
	cr := cache.NewNamedReflector("handler", &cache.ListWatch{}, &v1.Pod{}, cache.NewStore(cache.MetaNamespaceKeyFunc), 0)
	kr := kcache.NewNamedReflector("handler", &kcache.ListWatch{}, &v1.Pod{}, kcache.NewStore(kcache.MetaNamespaceKeyFunc), 0)
	for name, make := range reflectorHandlerErrors() {
		t.Run(name, func(t *testing.T) {
			ce, ke := make("handler")
			want := reflectorHandlerLogs(func(ctx context.Context) { cache.DefaultWatchErrorHandler(ctx, cr, ce) })
			got := reflectorHandlerLogs(func(ctx context.Context) { kcache.DefaultWatchErrorHandler(ctx, kr, ke) })
			if want != got {
				t.Errorf("client-go logs:\n%s\nkcache logs:\n%s", want, got)
			}
		})
	}
}
