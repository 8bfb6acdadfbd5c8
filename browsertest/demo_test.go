package browsertest

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// demo is a running kcache-demo process.
type demo struct {
	// baseURL is where it serves, e.g. http://127.0.0.1:4321.
	baseURL string
	// mu guards output.
	mu sync.Mutex
	// output holds the lines it printed so far.
	output []string
}

// buildDemo compiles cmd/kcache-demo of the enclosing repository into a
// temporary directory.
func buildDemo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kcache-demo")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/kcache-demo")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the demo: %v\n%s", err, out)
	}
	return bin
}

// debugURLLine is the demo's line announcing its debug page.
var debugURLLine = regexp.MustCompile(`debug page: (http://127\.0\.0\.1:\d+)/debug/kcache`)

// startDemo runs bin with args and waits until it printed its URL. The demo
// is interrupted and waited for by t.Cleanup; its output is logged then.
func startDemo(t *testing.T, bin string, args ...string) *demo {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-listen=127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &demo{}
	urlFound := make(chan string, 1)
	var readers sync.WaitGroup
	readers.Go(func() { d.read(stdout, urlFound) })
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		readers.Wait()
		_ = cmd.Wait()
		t.Logf("demo output:\n%s", d.text())
	})
	select {
	case d.baseURL = <-urlFound:
	case <-time.After(time.Minute):
		t.Fatalf("the demo printed no URL:\n%s", d.text())
	}
	return d
}

// read collects the demo's output lines and sends the URL once seen.
func (d *demo) read(r io.Reader, urlFound chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		d.mu.Lock()
		d.output = append(d.output, line)
		d.mu.Unlock()
		if m := debugURLLine.FindStringSubmatch(line); m != nil {
			urlFound <- m[1]
		}
	}
}

// text returns the output so far.
func (d *demo) text() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.output, "\n")
}

// withDeadline returns a context ending after d, cancelled by t.Cleanup.
func withDeadline(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
