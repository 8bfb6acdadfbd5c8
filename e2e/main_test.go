package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kcache-go/cache/e2e/harness"
)

// cluster is the API server every test of this package talks to; TestMain
// starts it before the tests and stops it after them.
var cluster *harness.Cluster

// apiserverArgs turn off the watch cache for secrets, so that secrets go
// through the etcd path while configmaps go through the watch cache, and let
// the API server compact etcd often, so that 410 Gone can be provoked.
var apiserverArgs = []string{
	"--watch-cache-sizes=secrets#0",
	"--etcd-compaction-interval=5s",
}

func TestMain(m *testing.M) {
	installGates()
	code, err := runSuite(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: FAIL: %v\n", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// runSuite builds the servers (once per machine), starts them, runs the
// tests and stops the servers. A build or start failure fails the suite: it
// never passes without a server.
func runSuite(m *testing.M) (int, error) {
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	moduleDir, err := os.Getwd()
	if err != nil {
		return 0, err
	}
	binDir, err := harness.DefaultBinDir()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := harness.Build(ctx, moduleDir, binDir, logf); err != nil {
		return 0, fmt.Errorf("cannot build kube-apiserver %s and etcd %s: %w", harness.KubernetesVersion, harness.EtcdVersion, err)
	}
	logf("e2e: servers available after %s", time.Since(start).Round(time.Second))

	dir, err := os.MkdirTemp("", "kcache-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	cluster, err = harness.Start(ctx, harness.Options{BinDir: binDir, Dir: dir, APIServerArgs: apiserverArgs, Log: logf})
	if err != nil {
		return 0, fmt.Errorf("cannot start the test cluster: %w", err)
	}
	defer cluster.Stop()
	return m.Run(), nil
}
