package e2e

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kcache-go/cache/e2e/harness"
	"github.com/kcache-go/cache/internal/realisticpods"
)

// timeResolution rounds the durations the benchmark prints.
const timeResolution = time.Millisecond

// benchRow is one row of the tables: a configuration, a list path and a
// content type.
type benchRow struct {
	config, path, contentType string
}

// benchResults are the samples of every row, one per round.
type benchResults map[benchRow][]syncSample

func (r benchResults) add(row benchRow, s syncSample) { r[row] = append(r[row], s) }

// benchMetric is one column: a value of a sample, its format, and whether
// a ratio to client-go's value follows it.
type benchMetric struct {
	header string
	format string
	value  func(syncSample) float64
	ratio  bool
}

const mib = 1 << 20

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// phaseMetrics are the columns of one phase's table; timeHeader names
// its elapsed time.
func phaseMetrics(timeHeader string, phase func(syncSample) phaseCost) []benchMetric {
	return []benchMetric{
		{timeHeader, "%.0f", func(s syncSample) float64 { return millis(phase(s).elapsed) }, true},
		{"CPU s", "%.2f", func(s syncSample) float64 { return phase(s).cpu }, true},
		{"apiserver CPU s", "%.2f", func(s syncSample) float64 { return phase(s).serverCPU }, false},
		{"peak heap MiB", "%.1f", func(s syncSample) float64 { return phase(s).peak / mib }, true},
		{"retained B/pod", "%.0f", func(s syncSample) float64 { return phase(s).retained }, true},
		{"pages", "%.0f", func(s syncSample) float64 { return phase(s).pages }, false},
	}
}

// syncMetrics are the columns of the initial-sync table.
var syncMetrics = phaseMetrics("sync ms", func(s syncSample) phaseCost { return s.sync })

// relistMetrics are the columns of the relist table: the relist's, and
// its time from the 410.
var relistMetrics = append(phaseMetrics("relist ms", func(s syncSample) phaseCost { return s.relist }),
	benchMetric{"from 410 ms", "%.0f", func(s syncSample) float64 { return millis(s.from410) }, false})

// table renders both tables: a row per list path, content type and
// configuration, each value the median of the rounds, ratio columns
// against client-go plain on the same path and content type.
func (r benchResults) table() string {
	var b strings.Builder
	b.WriteString("initial sync (from Run to HasSynced; peak and retained heap above the baseline before Run):\n")
	r.render(&b, syncMetrics)
	b.WriteString("relist after a 410 Gone (relist: from the relist's first request to every cached pod replaced; from 410: the reflector's backoff included):\n")
	r.render(&b, relistMetrics)
	return b.String()
}

func (r benchResults) render(b *strings.Builder, cols []benchMetric) {
	fmt.Fprintf(b, "  %-9s %-8s %-23s", "path", "type", "config")
	for _, c := range cols {
		fmt.Fprintf(b, " %15s", c.header)
		if c.ratio {
			fmt.Fprintf(b, " %6s", "×cg")
		}
	}
	b.WriteString("\n")
	for _, mode := range syncModes {
		for _, ct := range benchContentTypes {
			base := r[benchRow{syncConfigs[0].name, mode.name, ct}]
			for _, cfg := range syncConfigs {
				samples := r[benchRow{cfg.name, mode.name, ct}]
				if len(samples) == 0 {
					continue // a path or type KCACHE_BENCH_E2E_ONLY left out
				}
				fmt.Fprintf(b, "  %-9s %-8s %-23s", mode.name, ct, cfg.name)
				for _, c := range cols {
					v := medianOf(samples, c.value)
					fmt.Fprintf(b, " %15s", fmt.Sprintf(c.format, v))
					if c.ratio {
						fmt.Fprintf(b, " %6.2f", v/medianOf(base, c.value))
					}
				}
				b.WriteString("\n")
			}
		}
	}
}

// medianOf is the median of value over samples (the mean of the middle
// two for an even count); 0 for none. The soak test uses it too.
func medianOf[S any](samples []S, value func(S) float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	vs := make([]float64, len(samples))
	for i, s := range samples {
		vs[i] = value(s)
	}
	slices.Sort(vs)
	m := len(vs) / 2
	if len(vs)%2 == 0 {
		return (vs[m-1] + vs[m]) / 2
	}
	return vs[m]
}

// benchMachine describes the machine and the shape of the data.
func benchMachine(shape *benchShape, n int) string {
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("machine: %d CPUs (%s), GOMAXPROCS %d, %s, load average %s; kube-apiserver %s, etcd %s\n"+
		"shape: %d pods in %d namespaces (%d per app, %d per namespace, ~%d per node); stored %.0f B/pod as JSON, %.0f B/pod as protobuf; %.1f managedFields entries per pod",
		runtime.NumCPU(), cpuModel(), runtime.GOMAXPROCS(0), runtime.Version(), strings.TrimSpace(string(load)),
		harness.KubernetesVersion, harness.EtcdVersion,
		n, max(1, n/realisticpods.PodsPerNamespace), realisticpods.PodsPerApp, realisticpods.PodsPerNamespace, realisticpods.PodsPerNode,
		float64(shape.bytes["json"])/float64(n), float64(shape.bytes["protobuf"])/float64(n), shape.managedFields)
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
