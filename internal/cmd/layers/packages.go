package main

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// clientGoCache is the package kcache replaces; only interop and test code
// may import it.
const clientGoCache = "k8s.io/client-go/tools/cache"

// clientGoNode is how the package graph names clientGoCache.
const clientGoNode = "client-go tools/cache"

// pkgGraph is the import graph of the repository's packages, grouped (see
// groupOf): code edges come from non-test files, test edges from _test.go
// files only.
type pkgGraph struct {
	nodes []string        // sorted, the root first
	code  map[edge]bool   // imports of non-test files
	test  map[edge]bool   // imports only test files make
	seen  map[string]bool // every group with a file or an import
}

// rootNode names the module root package in the package graph.
const rootNode = "cache (root)"

// packageGraph walks the repository at dir (nested modules included, each
// directory's import path being the root module path plus the directory,
// as this repository lays them out; testdata and hidden directories are
// skipped) and records which group imports which.
func packageGraph(dir string) (*pkgGraph, error) {
	module, err := modulePath(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	pg := &pkgGraph{code: map[edge]bool{}, test: map[edge]bool{}, seen: map[string]bool{}}
	fset := token.NewFileSet()
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		return pg.addFile(fset, dir, module, p)
	})
	if err != nil {
		return nil, err
	}
	for e := range pg.code {
		delete(pg.test, e)
	}
	for n := range pg.seen {
		if n != rootNode {
			pg.nodes = append(pg.nodes, n)
		}
	}
	sort.Strings(pg.nodes)
	pg.nodes = append([]string{rootNode}, pg.nodes...)
	return pg, nil
}

// addFile records the imports of the Go file p (under dir, of module).
func (pg *pkgGraph) addFile(fset *token.FileSet, dir, module, p string) error {
	rel, err := filepath.Rel(dir, filepath.Dir(p))
	if err != nil {
		return err
	}
	from := groupOf(filepath.ToSlash(rel))
	pg.seen[from] = true
	f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
	if err != nil {
		return err
	}
	isTest := strings.HasSuffix(p, "_test.go")
	for _, imp := range f.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		to, ok := importGroup(module, ip)
		if !ok || to == from {
			continue
		}
		pg.seen[to] = true
		if isTest {
			pg.test[edge{from, to}] = true
		} else {
			pg.code[edge{from, to}] = true
		}
	}
	return nil
}

// importGroup maps an import path to its group: a package of the module,
// client-go's tools/cache (or a subpackage), or none.
func importGroup(module, ip string) (string, bool) {
	if ip == clientGoCache || strings.HasPrefix(ip, clientGoCache+"/") {
		return clientGoNode, true
	}
	if ip == module {
		return rootNode, true
	}
	if rel, ok := strings.CutPrefix(ip, module+"/"); ok {
		return groupOf(rel), true
	}
	return "", false
}

// groupOf names the node of the package at rel (slash-separated, relative
// to the module root): the root; internal/… for every internal package (the
// root's machinery and test helpers); cmd/X and metrics/X by their first
// two elements; everything else (clientgo, transform, e2e, benchmarks, …,
// their subpackages included) by its first element.
func groupOf(rel string) string {
	if rel == "." || rel == "" {
		return rootNode
	}
	parts := strings.Split(rel, "/")
	switch {
	case parts[0] == "internal":
		return "internal/…"
	case (parts[0] == "cmd" || parts[0] == "metrics") && len(parts) > 1:
		return path.Join(parts[0], parts[1])
	}
	return parts[0]
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// writePackagesMermaid prints the package graph as a mermaid flowchart: an
// arrow from importer to imported, solid for code, dotted for test-only
// imports.
func writePackagesMermaid(w io.Writer, pg *pkgGraph) {
	id := map[string]string{}
	fmt.Fprintln(w, "flowchart TD")
	for i, n := range pg.nodes {
		id[n] = fmt.Sprintf("p%d", i)
		fmt.Fprintf(w, "  %s[\"%s\"]\n", id[n], n)
	}
	for _, kind := range []struct {
		edges map[edge]bool
		arrow string
	}{{pg.code, "-->"}, {pg.test, "-.->"}} {
		var es []edge
		for e := range kind.edges {
			es = append(es, e)
		}
		sortEdges(es)
		for _, e := range es {
			fmt.Fprintf(w, "  %s %s %s\n", id[e.from], kind.arrow, id[e.to])
		}
	}
}
