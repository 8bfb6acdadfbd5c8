package benchmarks

import (
	"flag"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestMain silences klog for the whole package.
//
// NB: the WatchList benchmarks swap client-go's feature gates, which logs
// an error line through klog in the middle of a benchmark's result line;
// benchmarks/cmd/ratios then cannot read that result. Errors reach stderr
// through klog's stderr threshold even when it logs to a writer, so the
// threshold is raised too.
func TestMain(m *testing.M) {
	flags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(flags)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := flags.Set(name, value); err != nil {
			panic(err)
		}
	}
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}
