// Command layers draws the root package of kcache as a graph of its files
// and the module packages it imports, and reports how the references run.
//
// A node is a non-test .go file of the package in -dir, or a package of the
// same module that the package imports (e.g. internal/ring). There is an
// edge A→B when file A names a declaration of B: a package-level type,
// func, var or const, a method (also through a selection or promotion) or
// a struct field. The layers: cut each cycle by a small feedback arc set,
// then a node's layer is the longest path from it down to a leaf (layer 0).
// A back reference is a cut edge that runs from a lower layer up to a
// higher one (or sideways); there is none exactly when the graph has no
// cycle. See README.md ("Layout") and ARCHITECTURE.md.
//
// Usage:
//
//	go run ./internal/cmd/layers [-dir .] [-edges] [-mermaid] [-cycle-edges]
//	go run ./internal/cmd/layers -packages [-dir .]
//
// By default it prints the counts, the layers and each back reference with
// the identifiers behind it. -edges also prints every edge; -cycle-edges
// prints only the references inside a cycle, one "from -> to" a line (the
// format of testdata/allowed_cycle_edges.txt); -mermaid prints the file
// graph as a mermaid flowchart; -packages prints the import graph of the
// module's packages (the repository under -dir, nested modules included)
// as a mermaid flowchart.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	dir := flag.String("dir", ".", "directory of the package to draw (the module root for -packages)")
	edges := flag.Bool("edges", false, "also list every edge with its identifiers")
	mermaid := flag.Bool("mermaid", false, "print the file graph as a mermaid flowchart")
	cycleEdges := flag.Bool("cycle-edges", false, "print only the references inside a cycle")
	packages := flag.Bool("packages", false, "print the module's package import graph as a mermaid flowchart")
	flag.Parse()
	if err := run(os.Stdout, *dir, *edges, *mermaid, *cycleEdges, *packages); err != nil {
		fmt.Fprintln(os.Stderr, "layers:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, dir string, edges, mermaid, cycleEdges, packages bool) error {
	if packages {
		pg, err := packageGraph(dir)
		if err != nil {
			return err
		}
		writePackagesMermaid(w, pg)
		return nil
	}
	l, err := load(dir)
	if err != nil {
		return err
	}
	g := buildGraph(l)
	ly := layout(g)
	switch {
	case cycleEdges:
		for _, e := range ly.cycleEdges {
			fmt.Fprintf(w, "%s -> %s\n", e.from, e.to)
		}
	case mermaid:
		writeFilesMermaid(w, g, ly)
	default:
		writeReport(w, g, ly, edges)
	}
	return nil
}
