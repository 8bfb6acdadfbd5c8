// Command ratios reads `go test -bench` output on stdin and prints, for
// every benchmark that has both an `impl=client-go` and an `impl=kcache`
// sub-benchmark, each metric of both and the ratio kcache/client-go.
// Repeated runs (-count) are averaged. A ratio below 1 means kcache is
// cheaper on that metric.
//
// Usage:
//
//	go test -run '^$' -bench . -benchmem ./benchmarks/ | go run ./benchmarks/cmd/ratios
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

// implNames are the two sides, reference first.
var implNames = [2]string{"client-go", "kcache"}

// procSuffix matches the -GOMAXPROCS suffix go test appends to names.
var procSuffix = regexp.MustCompile(`-\d+$`)

// sample accumulates one metric of one side.
type sample struct {
	// sum is the total of the values seen.
	sum float64
	// n is how many values were seen.
	n int
}

// mean returns the average, or 0 when nothing was seen.
func (s sample) mean() float64 {
	if s.n == 0 {
		return 0
	}
	return s.sum / float64(s.n)
}

// bench holds the metrics of one benchmark for both sides, by unit.
type bench struct {
	// units keeps the units in the order they first appeared.
	units []string
	// values maps unit to the samples of client-go (0) and kcache (1).
	values map[string]*[2]sample
}

// table is every benchmark seen, in order of first appearance.
type table struct {
	// order lists benchmark names as first seen.
	order []string
	// benches maps a name without the impl part to its metrics.
	benches map[string]*bench
}

func main() {
	t, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
	if len(t.order) == 0 {
		fmt.Fprintln(os.Stderr, "ratios: no impl=client-go / impl=kcache benchmark lines on stdin")
		os.Exit(1)
	}
	t.print(os.Stdout)
}

// parse reads benchmark result lines and groups them by benchmark and side.
func parse(r io.Reader) (*table, error) {
	t := &table{benches: map[string]*bench{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for sc.Scan() {
		t.addLine(sc.Text())
	}
	return t, sc.Err()
}

// addLine records one "BenchmarkX/impl=Y-N  iters  v unit  v unit ..." line;
// other lines are ignored.
func (t *table) addLine(line string) {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
		return
	}
	name := procSuffix.ReplaceAllString(fields[0], "")
	base, side, ok := splitImpl(name)
	if !ok {
		return
	}
	b := t.benches[base]
	if b == nil {
		b = &bench{values: map[string]*[2]sample{}}
		t.benches[base] = b
		t.order = append(t.order, base)
	}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			continue
		}
		unit := fields[i+1]
		if b.values[unit] == nil {
			b.values[unit] = &[2]sample{}
			b.units = append(b.units, unit)
		}
		b.values[unit][side].sum += v
		b.values[unit][side].n++
	}
}

// splitImpl removes the "impl=..." element from a benchmark name and says
// which side it was.
func splitImpl(name string) (base string, side int, ok bool) {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		for s, impl := range implNames {
			if p == "impl="+impl {
				rest := append(append([]string{}, parts[:i]...), parts[i+1:]...)
				return strings.Join(rest, "/"), s, true
			}
		}
	}
	return "", 0, false
}

// print writes one row per benchmark and metric with both values and the
// ratio kcache/client-go.
func (t *table) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tmetric\tclient-go\tkcache\tkcache/client-go\t")
	for _, name := range t.order {
		b := t.benches[name]
		for _, unit := range b.units {
			v := b.values[unit]
			ref, got := v[0].mean(), v[1].mean()
			ratio := "n/a"
			switch {
			case v[0].n == 0 || v[1].n == 0:
				ratio = "missing side"
			case ref != 0:
				ratio = strconv.FormatFloat(got/ref, 'f', 3, 64)
			case got == 0:
				ratio = "1.000"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, unit, format(ref), format(got), ratio)
		}
	}
	tw.Flush()
}

// format prints a metric value compactly.
func format(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
