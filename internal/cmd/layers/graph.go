package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
)

// edge is a reference of node from to node to: from uses at least one
// declaration that lives in to.
type edge struct{ from, to string }

// graph is the reference graph of the root package: one node per non-test
// file (its base name, e.g. "reflector.go") and one per package of the same
// module the root imports (its path inside the module, e.g. "internal/ring").
type graph struct {
	nodes []string            // sorted
	edges map[edge][]string   // the identifiers behind each edge, sorted
	succ  map[string][]string // successors of each node, sorted
}

// buildGraph records an edge A→B for every identifier in file A that denotes
// a declaration of file B or of package B: a package-level type, func, var
// or const, a method (also through a selection or a promoted method) or a
// struct field (named after its struct). Declarations local to a function,
// the universe and packages of other modules are not nodes and give no edge;
// neither does a reference inside one file.
func buildGraph(l *loaded) *graph {
	g := &graph{edges: map[edge][]string{}, succ: map[string][]string{}}
	fileOf := map[string]bool{}
	for _, n := range l.names {
		fileOf[n] = true
		g.nodes = append(g.nodes, n)
	}
	owners := fieldOwners(l.files)
	seen := map[edge]map[string]bool{}
	for id, obj := range l.info.Uses {
		from := filepath.Base(l.fset.Position(id.Pos()).Filename)
		to, name, ok := target(l, obj, owners, fileOf)
		if !ok || to == from {
			continue
		}
		e := edge{from, to}
		if seen[e] == nil {
			seen[e] = map[string]bool{}
		}
		seen[e][name] = true
	}
	for e, names := range seen {
		for n := range names {
			g.edges[e] = append(g.edges[e], n)
		}
		sort.Strings(g.edges[e])
		g.succ[e.from] = append(g.succ[e.from], e.to)
	}
	pkgNodes := map[string]bool{}
	for _, succ := range g.succ {
		for _, to := range succ {
			if !fileOf[to] {
				pkgNodes[to] = true
			}
		}
	}
	for p := range pkgNodes {
		g.nodes = append(g.nodes, p)
	}
	sort.Strings(g.nodes)
	for _, succ := range g.succ {
		sort.Strings(succ)
	}
	return g
}

// target names the node that declares obj and how the identifier is shown.
func target(l *loaded, obj types.Object, owners map[token.Pos]string, fileOf map[string]bool) (node, name string, ok bool) {
	if obj == nil || obj.Pkg() == nil {
		return "", "", false
	}
	if obj.Pkg() != l.pkg {
		rel, inModule := strings.CutPrefix(obj.Pkg().Path(), l.module+"/")
		if !inModule {
			return "", "", false
		}
		return rel, obj.Pkg().Name() + "." + describe(obj, owners), true
	}
	if !declaredAtPackageLevel(l.pkg, obj) {
		return "", "", false
	}
	file := filepath.Base(l.fset.Position(obj.Pos()).Filename)
	if !fileOf[file] {
		return "", "", false
	}
	return file, describe(obj, owners), true
}

// declaredAtPackageLevel reports whether obj is a package-level declaration
// of pkg or a method or field (which belong to a type declaration).
func declaredAtPackageLevel(pkg *types.Package, obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Parent() == pkg.Scope() || o.Signature().Recv() != nil
	case *types.Var:
		return o.Parent() == pkg.Scope() || o.IsField()
	case *types.TypeName, *types.Const:
		return o.Parent() == pkg.Scope()
	}
	return false
}

// describe names obj as a reader finds it: T.Method, T.field, or Name.
func describe(obj types.Object, owners map[token.Pos]string) string {
	switch o := obj.(type) {
	case *types.Func:
		if recv := o.Signature().Recv(); recv != nil {
			return recvName(recv.Type()) + "." + o.Name()
		}
	case *types.Var:
		if o.IsField() {
			if owner, ok := owners[o.Pos()]; ok {
				return owner + "." + o.Name()
			}
			return "?." + o.Name()
		}
	}
	return obj.Name()
}

// recvName is the name of a method's receiver type, without pointer or type
// arguments.
func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := t.(type) {
	case *types.Named:
		return n.Obj().Name()
	case *types.Alias:
		return n.Obj().Name()
	}
	return "interface"
}

// fieldOwners maps the position of each struct field name declared in a
// package-level (or local) type to the name of the type declaring it.
func fieldOwners(files []*ast.File) map[token.Pos]string {
	owners := map[token.Pos]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			ast.Inspect(spec.Type, func(n ast.Node) bool {
				if field, ok := n.(*ast.Field); ok {
					for _, name := range field.Names {
						owners[name.Pos()] = spec.Name.Name
					}
					if len(field.Names) == 0 { // embedded: the field is named by its type
						owners[embeddedName(field.Type).Pos()] = spec.Name.Name
					}
				}
				return true
			})
			return true
		})
	}
	return owners
}

// embeddedName is the identifier that names an embedded field: T in T, *T,
// pkg.T or T[A].
func embeddedName(x ast.Expr) *ast.Ident {
	for {
		switch e := x.(type) {
		case *ast.Ident:
			return e
		case *ast.StarExpr:
			x = e.X
		case *ast.SelectorExpr:
			return e.Sel
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		default:
			return ast.NewIdent("_")
		}
	}
}
