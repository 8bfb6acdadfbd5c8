package switcher

import (
	"fmt"
	"go/ast"
	"go/types"
)

// manualNewInformer is the value the lines to add by hand set.
const manualNewInformer = "clientgo.NewSharedIndexInformer (import \"" + kcacheClientgoPath + "\")"

func (st *fileState) manual(pos ast.Node, text string) {
	st.plan.manual = append(st.plan.manual, Entry{File: st.sf.Rel, Line: st.line(pos.Pos()), Text: text})
}

// planManual finds the calls of controller-runtime's constructors whose
// options are not a literal the option rules complete, and prints the line
// to add there. Options built from a literal in the same file, or whose
// NewInformer the file sets, need none.
func (st *fileState) planManual() {
	if !st.rs.forward {
		return
	}
	ast.Inspect(st.sf.AST, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !st.isCRConstructor(sel) {
			return true
		}
		withOptions := false
		for _, arg := range call.Args {
			rule, _, ok := st.optionRuleOf(st.info.TypeOf(arg))
			if !ok {
				continue
			}
			withOptions = true
			if _, isLit := unwrapLit(arg); !isLit && !st.completedElsewhere(arg) {
				st.manualFor(call, arg, rule)
			}
		}
		if !withOptions && st.pkgNameOf(sel).path == crClusterPath {
			st.manual(call, fmt.Sprintf("pass cluster.New the option func(o *cluster.Options) { o.Cache.NewInformer = %s }", manualNewInformer))
		}
		return true
	})
}

func (st *fileState) isCRConstructor(sel *ast.SelectorExpr) bool {
	ii := st.pkgNameOf(sel)
	if ii == nil {
		return false
	}
	for _, c := range crConstructors {
		if c.Path == ii.path && c.Name == sel.Sel.Name {
			return true
		}
	}
	return false
}

// manualFor prints the line that sets the NewInformer of the options arg.
func (st *fileState) manualFor(call *ast.CallExpr, arg ast.Expr, rule optionRule) {
	field := ".NewInformer"
	if rule.Nested != nil {
		field = ".Cache.NewInformer"
	}
	root := ast.Unparen(arg)
	if u, ok := root.(*ast.UnaryExpr); ok {
		root = ast.Unparen(u.X)
	}
	switch root.(type) {
	case *ast.Ident, *ast.SelectorExpr:
		st.manual(call, fmt.Sprintf("before %s: %s%s = %s", st.text(call.Fun), st.text(root), field, manualNewInformer))
	default:
		st.manual(call, fmt.Sprintf("set %s of the options %s gives %s: %s", field[1:], st.text(root), st.text(call.Fun), manualNewInformer))
	}
}

// completedElsewhere tells whether the variable e names gets its value
// from a composite literal in this file (which the option rules complete),
// or has its NewInformer set by hand here.
func (st *fileState) completedElsewhere(e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	obj := st.info.ObjectOf(id)
	found := false
	ast.Inspect(st.sf.AST, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			found = found || st.assignsFromLiteral(n.Lhs, n.Rhs, obj) || st.setsNewInformer(n.Lhs, obj)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, name := range n.Names {
				lhs[i] = name
			}
			found = found || st.assignsFromLiteral(lhs, n.Values, obj)
		}
		return !found
	})
	return found
}

func (st *fileState) assignsFromLiteral(lhs, rhs []ast.Expr, obj types.Object) bool {
	if len(lhs) != len(rhs) {
		return false
	}
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if _, isLit := unwrapLit(rhs[i]); ok && isLit && st.info.ObjectOf(id) == obj {
			return true
		}
	}
	return false
}

// setsNewInformer tells whether one of lhs is obj…NewInformer.
func (st *fileState) setsNewInformer(lhs []ast.Expr, obj types.Object) bool {
	for _, l := range lhs {
		sel, ok := l.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "NewInformer" {
			continue
		}
		x := sel.X
		for {
			s, ok := x.(*ast.SelectorExpr)
			if !ok {
				break
			}
			x = s.X
		}
		if id, ok := x.(*ast.Ident); ok && st.info.ObjectOf(id) == obj {
			return true
		}
	}
	return false
}
