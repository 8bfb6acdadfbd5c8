package switcher

import (
	"fmt"
	"go/ast"
	"go/types"
)

// planCalls rewrites every reference to a function a call rule maps (in
// calls or as values, e.g. NewInformer: cache.NewSharedIndexInformer),
// except through an import the plan switches as a whole, wraps (or
// unwraps) the calls a wrap rule covers, and notes the references it
// cannot rewrite.
func (st *fileState) planCalls() {
	ast.Inspect(st.sf.AST, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && !st.isCovered(call.Pos()) {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				st.called[sel] = true
			}
			st.planWrap(call)
			return true
		}
		if id, ok := n.(*ast.Ident); ok {
			st.noteDotUse(id)
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
		if w, covered := wrapRuleOf(ii.path, sel.Sel.Name); covered && st.rs.forward && !st.called[sel] {
			st.note(sel.Pos(), fmt.Sprintf("%s %s.%s used as a value stays client-go's: only its calls are wrapped; wrap what it returns in %s.%s by hand",
				w.What, ii.name, sel.Sel.Name, lastElem(w.Wrap.Path), w.Wrap.Name))
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

// noteDotUse notes a reference, through a dot import the plan keeps, to a
// function a rule covers: the rules rewrite qualified references only.
func (st *fileState) noteDotUse(id *ast.Ident) {
	fn, ok := st.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil || !st.dotImports(fn.Pkg().Path()) {
		return
	}
	path, name := fn.Pkg().Path(), fn.Name()
	_, mapped := st.rs.call(path, name)
	_, wrapped := wrapRuleOf(path, name)
	kept := path == clientgoCachePath && keptConstructors[name]
	if mapped || (st.rs.forward && (wrapped || kept)) {
		st.note(id.Pos(), fmt.Sprintf("%s through the dot import of %q not switched: the rules rewrite qualified references only", name, path))
	}
}

// dotImports tells whether the file dot-imports path and the plan keeps
// that import.
func (st *fileState) dotImports(path string) bool {
	for _, ii := range st.imports {
		if ii.spec.Name != nil && ii.spec.Name.Name == "." && ii.path == path && ii.newPath == path {
			return true
		}
	}
	return false
}
