package main

import (
	"fmt"
	"io"
	"strings"
)

// writeReport prints the counts, the nodes of each layer (highest first),
// the cycles and each back reference with the identifiers behind it.
func writeReport(w io.Writer, g *graph, ly *layering, allEdges bool) {
	files := 0
	for _, n := range g.nodes {
		if strings.HasSuffix(n, ".go") {
			files++
		}
	}
	fmt.Fprintf(w, "nodes %d (%d files, %d packages), edges %d, layers %d, back references %d\n",
		len(g.nodes), files, len(g.nodes)-files, len(g.edges), ly.layers, len(ly.back))
	inCycles := 0
	for _, c := range ly.cycles {
		inCycles += len(c)
	}
	fmt.Fprintf(w, "cycles %d (%d nodes, %d references inside them)\n", len(ly.cycles), inCycles, len(ly.cycleEdges))
	byLayer := make([][]string, ly.layers)
	for _, n := range g.nodes {
		byLayer[ly.layer[n]] = append(byLayer[ly.layer[n]], n)
	}
	fmt.Fprintln(w, "\nlayers (highest first):")
	for i := len(byLayer) - 1; i >= 0; i-- {
		fmt.Fprintf(w, "  %2d: %s\n", i, strings.Join(byLayer[i], " "))
	}
	if len(ly.cycles) > 0 {
		fmt.Fprintln(w, "\ncycles:")
		for _, c := range ly.cycles {
			fmt.Fprintf(w, "  %s\n", strings.Join(c, " "))
		}
	}
	if len(ly.back) > 0 {
		fmt.Fprintln(w, "\nback references (from, layer -> to, layer: identifiers):")
		for _, e := range ly.back {
			fmt.Fprintf(w, "  %s (%d) -> %s (%d): %s\n", e.from, ly.layer[e.from], e.to, ly.layer[e.to],
				strings.Join(g.edges[e], ", "))
		}
	}
	if allEdges {
		fmt.Fprintln(w, "\nedges:")
		var es []edge
		for e := range g.edges {
			es = append(es, e)
		}
		sortEdges(es)
		for _, e := range es {
			fmt.Fprintf(w, "  %s -> %s: %s\n", e.from, e.to, strings.Join(g.edges[e], ", "))
		}
	}
}

// writeFilesMermaid prints the file graph as a mermaid flowchart, one
// subgraph a layer (highest on top); back references are dotted.
func writeFilesMermaid(w io.Writer, g *graph, ly *layering) {
	id := map[string]string{}
	for i, n := range g.nodes {
		id[n] = fmt.Sprintf("n%d", i)
	}
	fmt.Fprintln(w, "flowchart TB")
	for l := ly.layers - 1; l >= 0; l-- {
		fmt.Fprintf(w, "  subgraph L%d [layer %d]\n", l, l)
		for _, n := range g.nodes {
			if ly.layer[n] == l {
				fmt.Fprintf(w, "    %s[\"%s\"]\n", id[n], n)
			}
		}
		fmt.Fprintln(w, "  end")
	}
	back := map[edge]bool{}
	for _, e := range ly.back {
		back[e] = true
	}
	var es []edge
	for e := range g.edges {
		es = append(es, e)
	}
	sortEdges(es)
	for _, e := range es {
		arrow := "-->"
		if back[e] {
			arrow = "-.->"
		}
		fmt.Fprintf(w, "  %s %s %s\n", id[e.from], arrow, id[e.to])
	}
}
