// Package harness runs a real kube-apiserver and etcd on loopback for the
// kcache end-to-end tests: it builds both from the Go module proxy once,
// generates their PKI, starts them on free ports, waits until the API server
// is ready, and stops everything it started.
package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Versions of the servers the e2e module pins as Go tools (see its go.mod).
const (
	KubernetesVersion = "v1.36.2"
	EtcdVersion       = "v3.6.8"
)

// binary describes one server binary built from a tool of the e2e module.
type binary struct {
	// name is the file name in the binary directory.
	name string
	// pkg is the main package to build.
	pkg string
	// ldflags are passed to the linker.
	ldflags string
}

// binaries lists what Build produces.
func binaries() []binary {
	version := "k8s.io/component-base/version"
	apiserverFlags := strings.Join([]string{
		"-s -w",
		"-X " + version + ".gitMajor=1",
		"-X " + version + ".gitMinor=36",
		"-X " + version + ".gitVersion=" + KubernetesVersion,
		"-X " + version + ".gitTreeState=clean",
	}, " ")
	return []binary{
		{name: "kube-apiserver", pkg: "k8s.io/kubernetes/cmd/kube-apiserver", ldflags: apiserverFlags},
		{name: "etcd", pkg: "go.etcd.io/etcd/server/v3", ldflags: "-s -w"},
	}
}

// DefaultBinDir is where built servers are kept between runs: outside the
// repository, keyed by the versions, so a later run reuses them.
// KCACHE_E2E_BIN_DIR overrides it.
func DefaultBinDir() (string, error) {
	if dir := os.Getenv("KCACHE_E2E_BIN_DIR"); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "kcache-e2e", "k8s-"+KubernetesVersion+"-etcd-"+EtcdVersion), nil
}

// Build makes sure binDir holds kube-apiserver and etcd built from the e2e
// module in moduleDir. Binaries built from the same go.sum are reused; the
// first build on a fresh machine takes several minutes, later ones none.
// Progress goes to log.
func Build(ctx context.Context, moduleDir, binDir string, log func(format string, args ...any)) error {
	stamp, err := buildStamp(moduleDir)
	if err != nil {
		return err
	}
	stampFile := filepath.Join(binDir, "build-stamp")
	if have, err := os.ReadFile(stampFile); err == nil && string(have) == stamp && allPresent(binDir) {
		log("harness: reusing kube-apiserver and etcd in %s", binDir)
		return nil
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	for _, b := range binaries() {
		start := time.Now()
		log("harness: building %s (%s) into %s; the first build takes minutes", b.name, b.pkg, binDir)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags="+b.ldflags,
			"-o", filepath.Join(binDir, b.name), b.pkg)
		cmd.Dir = moduleDir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "CGO_ENABLED=0", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s failed: %v\n%s", b.name, err, out)
		}
		log("harness: built %s in %s", b.name, time.Since(start).Round(time.Second))
	}
	return os.WriteFile(stampFile, []byte(stamp), 0o644)
}

// allPresent reports whether every binary exists in binDir.
func allPresent(binDir string) bool {
	for _, b := range binaries() {
		if _, err := os.Stat(filepath.Join(binDir, b.name)); err != nil {
			return false
		}
	}
	return true
}

// buildStamp identifies what a build would produce: the module's go.sum, the
// Go version and the platform.
func buildStamp(moduleDir string) (string, error) {
	sum, err := os.ReadFile(filepath.Join(moduleDir, "go.sum"))
	if err != nil {
		return "", fmt.Errorf("reading the e2e module's go.sum: %w", err)
	}
	h := sha256.New()
	h.Write(sum)
	fmt.Fprintf(h, "%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return hex.EncodeToString(h.Sum(nil)), nil
}
