package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// moduleRoot is the repository root, from this package's directory.
const moduleRoot = "../../.."

// TestTheRootGainsNoReferenceCycle pins the layering of the root package:
// every reference inside a cycle of its file graph must be on the allowed
// list in testdata (which may only shrink), and once that list is empty the
// graph must have no back reference at all.
func TestTheRootGainsNoReferenceCycle(t *testing.T) {
	l, err := load(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	g := buildGraph(l)
	ly := layout(g)
	allowed := readAllowed(t, filepath.Join("testdata", "allowed_cycle_edges.txt"))
	got := map[string]bool{}
	for _, e := range ly.cycleEdges {
		line := e.from + " -> " + e.to
		got[line] = true
		if !allowed[line] {
			t.Errorf("new reference inside a cycle: %s (%s); move the declaration to the file where it belongs",
				line, strings.Join(g.edges[e], ", "))
		}
	}
	for line := range allowed {
		if !got[line] {
			t.Errorf("allowed reference %q is no longer inside a cycle: remove it from testdata/allowed_cycle_edges.txt", line)
		}
	}
	if len(allowed) == 0 && len(ly.back) > 0 {
		t.Errorf("%d back references, want 0", len(ly.back))
	}
}

// readAllowed reads "from -> to" lines, skipping comments and blank lines.
func readAllowed(t *testing.T, name string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out
}

// TestArchitectureShowsTheCurrentPackageGraph checks that the package graph
// in ARCHITECTURE.md is what the tool draws today.
func TestArchitectureShowsTheCurrentPackageGraph(t *testing.T) {
	pg, err := packageGraph(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	writePackagesMermaid(&want, pg)
	doc, err := os.ReadFile(filepath.Join(moduleRoot, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- begin: go run ./internal/cmd/layers -packages -->\n```mermaid\n", "```\n<!-- end -->"
	_, rest, ok := strings.Cut(string(doc), begin)
	got, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("ARCHITECTURE.md lacks the generated block %q … %q", begin, end)
	}
	if got != want.String() {
		t.Errorf("ARCHITECTURE.md's package graph is stale; replace the block with the output of `go run ./internal/cmd/layers -packages`:\n%s", want.String())
	}
}

// TestLayoutCountsLayersByLongestPathAndBackReferencesByCycle pins how the
// tool counts, on small graphs.
func TestLayoutCountsLayersByLongestPathAndBackReferencesByCycle(t *testing.T) {
	for _, tc := range []struct {
		name       string
		edges      [][2]string
		wantLayers int
		wantBack   int
		wantCycle  int // references inside cycles
	}{
		{"a chain has one layer a node", [][2]string{{"a", "b"}, {"b", "c"}}, 3, 0, 0},
		{"a shortcut does not add a layer", [][2]string{{"a", "b"}, {"b", "c"}, {"a", "c"}}, 3, 0, 0},
		{"a two-node cycle has one back reference", [][2]string{{"a", "b"}, {"b", "a"}}, 2, 1, 2},
		{"a three-node cycle is cut once", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}}, 3, 1, 3},
		{"two separate cycles are cut once each", [][2]string{{"a", "b"}, {"b", "a"}, {"c", "d"}, {"d", "c"}, {"a", "c"}}, 3, 2, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := testGraph(tc.edges)
			ly := layout(g)
			if ly.layers != tc.wantLayers || len(ly.back) != tc.wantBack || len(ly.cycleEdges) != tc.wantCycle {
				t.Errorf("layers %d, back %v, cycle edges %v; want %d, %d, %d",
					ly.layers, ly.back, ly.cycleEdges, tc.wantLayers, tc.wantBack, tc.wantCycle)
			}
			for _, e := range ly.back {
				if ly.layer[e.from] > ly.layer[e.to] {
					t.Errorf("back reference %v runs down (layer %d to %d)", e, ly.layer[e.from], ly.layer[e.to])
				}
			}
		})
	}
}

// testGraph builds a graph from edges, each with a made-up identifier.
func testGraph(edges [][2]string) *graph {
	g := &graph{edges: map[edge][]string{}, succ: map[string][]string{}}
	for _, e := range edges {
		g.edges[edge{e[0], e[1]}] = []string{"x"}
		g.succ[e[0]] = append(g.succ[e[0]], e[1])
		for _, n := range e {
			if !slices.Contains(g.nodes, n) {
				g.nodes = append(g.nodes, n)
			}
		}
	}
	slices.Sort(g.nodes)
	for _, s := range g.succ {
		slices.Sort(s)
	}
	return g
}
