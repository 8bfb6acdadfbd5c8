package conformance

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// informerCatchCrashes turns utilruntime.ReallyCrash off and adds a panic
// handler that calls onPanic and, when onError is not nil, an error handler
// that calls it with the message and the error, under mu; the returned
// restore puts the previous settings back.
func informerCatchCrashes(mu *sync.Mutex, onPanic func(), onError func(msg string, err error)) (restore func()) {
	oldCrash, oldPanics, oldErrors := utilruntime.ReallyCrash, utilruntime.PanicHandlers, utilruntime.ErrorHandlers
	utilruntime.ReallyCrash = false
	utilruntime.PanicHandlers = append(append([]func(context.Context, interface{}){}, oldPanics...), func(context.Context, interface{}) {
		mu.Lock()
		defer mu.Unlock()
		onPanic()
	})
	if onError != nil {
		utilruntime.ErrorHandlers = append(append([]utilruntime.ErrorHandler{}, oldErrors...), func(_ context.Context, err error, msg string, _ ...interface{}) {
			mu.Lock()
			defer mu.Unlock()
			onError(msg, err)
		})
	}
	return func() {
		utilruntime.ReallyCrash, utilruntime.PanicHandlers, utilruntime.ErrorHandlers = oldCrash, oldPanics, oldErrors
	}
}

// informerCaptureLogger returns a logger at verbosity 10 that appends each
// line, as informerLogLine renders it, to logs under mu.
func informerCaptureLogger(mu *sync.Mutex, logs *[]string) logr.Logger {
	return funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		*logs = append(*logs, informerLogLine(prefix, args))
	}, funcr.Options{Verbosity: 10})
}
