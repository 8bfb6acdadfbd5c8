package harness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// Options configure a Cluster.
type Options struct {
	// BinDir holds the kube-apiserver and etcd binaries (see Build).
	BinDir string
	// Dir is where the cluster keeps its PKI, data and logs. It must exist.
	Dir string
	// APIServerArgs are added to kube-apiserver's command line, e.g.
	// "--watch-cache-sizes=secrets#0".
	APIServerArgs []string
	// ReadyTimeout bounds the wait for etcd and for /readyz; default 3 minutes.
	ReadyTimeout time.Duration
	// Log receives progress lines; nil discards them.
	Log func(format string, args ...any)
}

// Cluster is one etcd and one kube-apiserver on loopback. Its methods are not
// safe for concurrent use; tests share one Cluster and call Stop once.
type Cluster struct {
	// opts are the options Start was given, defaulted.
	opts Options
	// pki is the cluster's certificates and tokens.
	pki *pki
	// EtcdEndpoint is etcd's client URL.
	EtcdEndpoint string
	// APIServerURL is kube-apiserver's https URL.
	APIServerURL string
	// apiserverPort is kube-apiserver's secure port, kept across restarts.
	apiserverPort int
	// etcd and apiserver are the running processes; nil when stopped.
	etcd, apiserver *exec.Cmd
}

// Start generates the PKI, starts etcd and kube-apiserver on free loopback
// ports and waits until the API server answers /readyz with "ok". On error
// everything already started is stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 3 * time.Minute
	}
	if opts.Log == nil {
		opts.Log = func(string, ...any) {}
	}
	for _, b := range binaries() {
		if _, err := os.Stat(filepath.Join(opts.BinDir, b.name)); err != nil {
			return nil, fmt.Errorf("%s is not built in %s (run harness.Build first): %w", b.name, opts.BinDir, err)
		}
	}
	p, err := newPKI(filepath.Join(opts.Dir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("generating PKI: %w", err)
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		opts:          opts,
		pki:           p,
		EtcdEndpoint:  "http://127.0.0.1:" + strconv.Itoa(ports[0]),
		APIServerURL:  "https://127.0.0.1:" + strconv.Itoa(ports[2]),
		apiserverPort: ports[2],
	}
	if err := c.startEtcd(ctx, ports[0], ports[1]); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.StartAPIServer(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// RESTConfig returns a client configuration with cluster-admin rights.
func (c *Cluster) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            c.APIServerURL,
		BearerToken:     c.pki.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.caCert},
		QPS:             1000,
		Burst:           2000,
	}
}

func (c *Cluster) startEtcd(ctx context.Context, clientPort, peerPort int) error {
	client := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	args := []string{
		"--name=kcache-e2e",
		"--data-dir=" + filepath.Join(c.opts.Dir, "etcd-data"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=kcache-e2e=" + peer,
		"--unsafe-no-fsync", "--quota-backend-bytes=8589934592", "--log-level=warn",
	}
	cmd, err := c.launch("etcd", args)
	if err != nil {
		return err
	}
	c.etcd = cmd
	return c.waitFor(ctx, "etcd", func() bool {
		body, err := httpGet(http.DefaultClient, c.EtcdEndpoint+"/health", "")
		return err == nil && strings.Contains(body, `"health":"true"`)
	})
}

// StartAPIServer starts kube-apiserver (again, after StopAPIServer) on the
// same port and waits until it is ready.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	args := []string{
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.apiserverPort),
		"--etcd-servers=" + c.EtcdEndpoint,
		"--tls-cert-file=" + c.pki.path(serverCertFile),
		"--tls-private-key-file=" + c.pki.path(serverKeyFile),
		"--client-ca-file=" + c.pki.path(caCertFile),
		"--token-auth-file=" + c.pki.path(tokensFile),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.pki.path(saPublicFile),
		"--service-account-signing-key-file=" + c.pki.path(saPrivateFile),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--cert-dir=" + filepath.Join(c.opts.Dir, "apiserver-certs"),
		"--profiling=false",
	}
	cmd, err := c.launch("kube-apiserver", append(args, c.opts.APIServerArgs...))
	if err != nil {
		return err
	}
	c.apiserver = cmd
	httpClient, err := c.readyzClient()
	if err != nil {
		return err
	}
	return c.waitFor(ctx, "kube-apiserver /readyz", func() bool {
		body, err := httpGet(httpClient, c.APIServerURL+"/readyz", c.pki.adminToken)
		return err == nil && body == "ok"
	})
}

// APIServerPID is the process id of the running kube-apiserver, or 0 when
// it is stopped (for measuring its CPU time from /proc).
func (c *Cluster) APIServerPID() int {
	if c.apiserver == nil || c.apiserver.Process == nil {
		return 0
	}
	return c.apiserver.Process.Pid
}

// StopAPIServer stops kube-apiserver, leaving etcd running. Open watches
// end, as in a real control-plane restart.
func (c *Cluster) StopAPIServer() {
	stopProcess(c.apiserver, 3*time.Second)
	c.apiserver = nil
}

// Stop stops kube-apiserver and etcd. It is safe to call more than once.
func (c *Cluster) Stop() {
	c.StopAPIServer()
	stopProcess(c.etcd, 3*time.Second)
	c.etcd = nil
}

// launch starts a server binary with its output in Dir/<name>.log. The child
// is killed if the test process dies, so a crashed or timed-out test never
// leaves servers behind.
func (c *Cluster) launch(name string, args []string) (*exec.Cmd, error) {
	logFile, err := os.OpenFile(filepath.Join(c.opts.Dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(c.opts.BinDir, name), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { _ = cmd.Wait(); logFile.Close() }()
	c.opts.Log("harness: started %s (pid %d), log %s", name, cmd.Process.Pid, logFile.Name())
	return cmd, nil
}

// waitFor polls ready every 100ms until it is true, the ready timeout passes
// or ctx ends.
func (c *Cluster) waitFor(ctx context.Context, what string, ready func() bool) error {
	start := time.Now()
	deadline := start.Add(c.opts.ReadyTimeout)
	for !ready() {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s; see the logs in %s", what, c.opts.ReadyTimeout, c.opts.Dir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	c.opts.Log("harness: %s ready in %s", what, time.Since(start).Round(10*time.Millisecond))
	return nil
}

func (c *Cluster) readyzClient() (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.pki.caCert) {
		return nil, errors.New("cannot load the generated CA")
	}
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}, nil
}

// stopProcess sends SIGTERM to the process group, then SIGKILL after grace.
// kube-apiserver would otherwise wait up to a minute for open watches.
func stopProcess(cmd *exec.Cmd, grace time.Duration) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	pgid := -cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if syscall.Kill(cmd.Process.Pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	for i := 0; i < 100 && syscall.Kill(cmd.Process.Pid, 0) == nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

func httpGet(client *http.Client, url, token string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return strings.TrimSpace(string(body)), err
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
