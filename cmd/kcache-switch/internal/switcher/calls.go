package switcher

import (
	"fmt"
	"go/ast"
)

// planCalls rewrites every reference to a function a call rule maps (in
// calls or as values, e.g. NewInformer: cache.NewSharedIndexInformer),
// except through an import the plan switches as a whole, wraps (or
// unwraps) the calls a wrap rule covers, and notes the references it
// cannot rewrite.
func (st *fileState) planCalls() {
	ast.Inspect(st.sf.AST, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && !st.isCovered(call.Pos()) {
			st.planWrap(call)
			return true
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		ii := st.pkgNameOf(sel)
		if ii == nil || ii.newPath != ii.path {
			return true
		}
		if st.isCovered(sel.Pos()) {
			ii.rewritten++ // removed with its option
			return false
		}
		st.planCall(sel, ii)
		return false
	})
}

// planCall rewrites one reference pkg.Name through import ii, or notes why
// it stays.
func (st *fileState) planCall(sel *ast.SelectorExpr, ii *importInfo) {
	m, ok := st.rs.call(ii.path, sel.Sel.Name)
	if !ok {
		if st.rs.forward && ii.path == clientgoCachePath && keptConstructors[sel.Sel.Name] {
			st.note(sel.Pos(), fmt.Sprintf("%s.%s stays client-go's: clientgo has no counterpart (the file keeps client-go's tools/cache)", ii.name, sel.Sel.Name))
		}
		return
	}
	if ok, reason := st.rs.status(m); !ok {
		st.note(sel.Pos(), fmt.Sprintf("%s %s.%s not switched: %s", m.what, ii.name, sel.Sel.Name, reason))
		return
	}
	name := st.nameFor(m.to.Path, m.toAliases)
	text := name + "." + m.to.Name
	st.replace(sel.Pos(), sel.End(), text)
	ii.rewritten++
	what := m.what
	if st.sf.Generator != "" {
		what += " (" + st.sf.Generator + ")"
	}
	st.change(sel.Pos(), fmt.Sprintf("%s: %s.%s → %s", what, ii.name, sel.Sel.Name, text))
}
