package main

import (
	"sort"
)

// layering is the graph drawn in layers: every reference runs from a higher
// layer down to a lower one, except the back references.
type layering struct {
	layer      map[string]int // 0 for the leaves
	layers     int            // number of layers
	cycles     [][]string     // strongly connected components of more than one node, each sorted
	cycleEdges []edge         // references inside a cycle, sorted
	back       []edge         // references that run up (or sideways), sorted
}

// layout assigns layers. Each cycle is cut by a small feedback arc set
// (Eades–Lin–Smyth ordering inside the cycle); with those references left
// out the graph is acyclic and each node's layer is the length of the
// longest path from it down to a leaf. A cut reference that then runs
// downwards anyway is kept as an ordinary one; the rest are the back
// references. The graph is acyclic exactly when there are none.
func layout(g *graph) *layering {
	ly := &layering{layer: map[string]int{}}
	cut := map[edge]bool{}
	for _, scc := range stronglyConnected(g) {
		if len(scc) < 2 {
			continue
		}
		ly.cycles = append(ly.cycles, scc)
		in := map[string]bool{}
		for _, n := range scc {
			in[n] = true
		}
		for _, n := range scc {
			for _, m := range g.succ[n] {
				if in[m] {
					ly.cycleEdges = append(ly.cycleEdges, edge{n, m})
				}
			}
		}
		for _, e := range feedbackArcs(g, scc, in) {
			cut[e] = true
		}
	}
	var depth func(string) int
	depth = func(n string) int {
		if d, ok := ly.layer[n]; ok {
			return d
		}
		d := 0
		for _, m := range g.succ[n] {
			if !cut[edge{n, m}] {
				d = max(d, depth(m)+1)
			}
		}
		ly.layer[n] = d
		return d
	}
	for _, n := range g.nodes {
		ly.layers = max(ly.layers, depth(n)+1)
	}
	for e := range cut {
		if ly.layer[e.from] <= ly.layer[e.to] {
			ly.back = append(ly.back, e)
		}
	}
	sortEdges(ly.cycleEdges)
	sortEdges(ly.back)
	return ly
}

func sortEdges(es []edge) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].from != es[j].from {
			return es[i].from < es[j].from
		}
		return es[i].to < es[j].to
	})
}

// stronglyConnected returns the strongly connected components of g (Tarjan),
// each sorted, in a deterministic order.
func stronglyConnected(g *graph) [][]string {
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(string)
	visit = func(n string) {
		index[n] = len(index)
		low[n] = index[n]
		stack = append(stack, n)
		onStack[n] = true
		for _, m := range g.succ[n] {
			if _, ok := index[m]; !ok {
				visit(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
		}
		if low[n] != index[n] {
			return
		}
		var scc []string
		for {
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[m] = false
			scc = append(scc, m)
			if m == n {
				break
			}
		}
		sort.Strings(scc)
		out = append(out, scc)
	}
	for _, n := range g.nodes {
		if _, ok := index[n]; !ok {
			visit(n)
		}
	}
	return out
}

// feedbackArcs picks references inside one cycle (the nodes scc, members in)
// whose removal leaves it acyclic: those that run against the order
// elsOrder gives the nodes.
func feedbackArcs(g *graph, scc []string, in map[string]bool) []edge {
	out, inc := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, n := range scc {
		out[n], inc[n] = map[string]bool{}, map[string]bool{}
	}
	for _, n := range scc {
		for _, m := range g.succ[n] {
			if in[m] && m != n {
				out[n][m], inc[m][n] = true, true
			}
		}
	}
	pos := elsOrder(scc, out, inc)
	var arcs []edge
	for _, n := range scc {
		for _, m := range g.succ[n] {
			if in[m] && pos[m] < pos[n] {
				arcs = append(arcs, edge{n, m})
			}
		}
	}
	return arcs
}

// elsOrder orders the nodes of scc the Eades–Lin–Smyth way and returns each
// node's position: repeatedly, a sink goes to the end, else a source to the
// front, else the node with most outgoing minus incoming references to the
// front (ties by name, so the order is deterministic). It consumes out and
// inc, the references inside scc.
func elsOrder(scc []string, out, inc map[string]map[string]bool) map[string]int {
	left := map[string]bool{}
	for _, n := range scc {
		left[n] = true
	}
	remove := func(n string) {
		delete(left, n)
		for m := range out[n] {
			delete(inc[m], n)
		}
		for m := range inc[n] {
			delete(out[m], n)
		}
	}
	var front, back []string
	for len(left) > 0 {
		if n, ok := pick(scc, left, func(n string) bool { return len(out[n]) == 0 }); ok {
			back = append(back, n)
			remove(n)
			continue
		}
		if n, ok := pick(scc, left, func(n string) bool { return len(inc[n]) == 0 }); ok {
			front = append(front, n)
			remove(n)
			continue
		}
		best, bestScore := "", 0
		for _, n := range scc {
			if score := len(out[n]) - len(inc[n]); left[n] && (best == "" || score > bestScore) {
				best, bestScore = n, score
			}
		}
		front = append(front, best)
		remove(best)
	}
	pos := map[string]int{}
	for i, n := range front {
		pos[n] = i
	}
	for i, n := range back { // sinks were found last-first
		pos[n] = len(scc) - 1 - i
	}
	return pos
}

// pick returns the first node of order still left that satisfies ok.
func pick(order []string, left map[string]bool, ok func(string) bool) (string, bool) {
	for _, n := range order {
		if left[n] && ok(n) {
			return n, true
		}
	}
	return "", false
}
