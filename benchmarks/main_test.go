package benchmarks

import (
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain silences klog for the whole package.
//
// NB: the WatchList benchmarks swap client-go's feature gates, which logs
// an error line through klog in the middle of a benchmark's result line;
// benchmarks/cmd/ratios then cannot read that result.
func TestMain(m *testing.M) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}
