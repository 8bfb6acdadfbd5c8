package extras

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenario is one named script of a testdata file.
type scenario struct {
	// name is the text after "===".
	name string
	// options are the key=value words after the name.
	options map[string]string
	// steps are the script lines, each split into words.
	steps [][]string
}

// loadScenarios reads testdata/<file>: "=== name [key=value...]" starts a
// scenario, each other non-blank line not starting with '#' is a step.
func loadScenarios(t *testing.T, file string) []scenario {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []scenario
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=== "):
			out = append(out, parseHeader(strings.TrimPrefix(line, "=== ")))
		case len(out) == 0:
			t.Fatalf("%s: step %q before the first scenario", file, line)
		default:
			out[len(out)-1].steps = append(out[len(out)-1].steps, strings.Fields(line))
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parseHeader splits "name words... key=value..." into a scenario.
func parseHeader(header string) scenario {
	sc := scenario{options: map[string]string{}}
	var name []string
	for _, word := range strings.Fields(header) {
		if k, v, ok := strings.Cut(word, "="); ok {
			sc.options[k] = v
			continue
		}
		name = append(name, word)
	}
	sc.name = strings.Join(name, " ")
	return sc
}

// player runs the steps of one scenario against one implementation and
// returns one trace line per step (and any closing lines).
type player func(t *testing.T, sc scenario) []string

// compareTraces plays every scenario of file against client-go and kcache
// and fails on the first differing line.
func compareTraces(t *testing.T, file string, clientGo, kcache player) {
	for _, sc := range loadScenarios(t, file) {
		t.Run(sc.name, func(t *testing.T) {
			want := clientGo(t, sc)
			got := kcache(t, sc)
			for i := 0; i < len(want) || i < len(got); i++ {
				var w, g string
				if i < len(want) {
					w = want[i]
				}
				if i < len(got) {
					g = got[i]
				}
				if w != g {
					t.Fatalf("trace line %d differs\nclient-go: %s\nkcache:    %s\nclient-go trace:\n%s", i, w, g, strings.Join(want, "\n"))
				}
			}
			if len(want) == 0 {
				t.Fatal("empty trace")
			}
			t.Logf("identical traces:\n%s", strings.Join(got, "\n"))
		})
	}
}

// capturePanic runs f and returns "panic: <value>" if it panicked, else
// the result of f.
func capturePanic(f func() string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %T %v", r, r)
		}
	}()
	return f()
}

// klogged wraps p so that everything logged through klog's global logger
// (at any verbosity) while the scenario plays ends its trace, except the
// feature gates' one-time report.
func klogged(p player) player {
	return func(t *testing.T, sc scenario) []string {
		logger, rec := newCaptureLogger()
		restore := routeKlog(t, logger, "10")
		trace := p(t, sc)
		restore()
		for _, line := range rec.take() {
			// NB: client-go's features package logs every gate's default
			// once per process, on the first read by either library.
			if !strings.Contains(line, `"Feature gate default state"`) {
				trace = append(trace, "klog: "+line)
			}
		}
		return trace
	}
}
