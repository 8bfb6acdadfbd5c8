package fastlw

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// watchRetryPause is how long client-go's Request.Watch waits before it
// opens a watch again after its connection failed before an answer (a
// probable EOF or a timeout): it takes the failure for an answer asking
// to retry after one second.
const watchRetryPause = time.Second

// watchMaxRetries is how many times a Request retries by default
// (Request.MaxRetries); fastlw's requests keep the default, as
// cache.NewListWatchFromClient's do.
const watchMaxRetries = 10

// reopenWatchOnPlainPath answers a watch whose opening through
// Request.Stream failed at the connection (a probable EOF or a timeout),
// which Stream does not retry but Request.Watch does: after
// watchRetryPause (or once ctx ended) it waits on the client's rate
// limiter, as Request.Watch waits before each retry (failing, when the
// limiter refuses, with the error client-go's retry gives but for its
// mention of the first attempt's error), and opens the watch
// with Request.Watch and the retries the first attempts left (attempts is
// how many requests Stream sent), so that the later attempts, their pauses
// and the answer (a watch, an error, or an empty watch once the retries
// ran out) are client-go's own. When Stream used every retry, the answer
// is the empty watch Request.Watch gives then. The watch decodes on the
// plain path.
func (lw *ListerWatcher) reopenWatchOnPlainPath(ctx context.Context, sent metav1.ListOptions, attempts int) (watch.Interface, error) {
	retries := watchMaxRetries - attempts
	if retries < 0 {
		return watch.NewEmptyWatch(), nil
	}
	pause := time.NewTimer(watchRetryPause)
	defer pause.Stop()
	select {
	case <-pause.C:
	case <-ctx.Done():
	}
	if limiter := lw.cfg.Client.GetRateLimiter(); limiter != nil {
		if err := limiter.Wait(ctx); err != nil {
			return nil, fmt.Errorf("client rate limiter Wait returned an error: %w", err)
		}
	}
	return lw.request(lw.cfg.Client, sent).MaxRetries(retries).Watch(ctx)
}
