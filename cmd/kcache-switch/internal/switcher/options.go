package switcher

import (
	"fmt"
	"go/ast"
	"go/types"
)

// planOptions applies the option rules to every composite literal of
// controller-runtime's option types: forward it adds the field that puts
// the informers on kcache; -revert removes exactly what forward adds.
func (st *fileState) planOptions() {
	handled := map[*ast.CompositeLit]bool{}
	ast.Inspect(st.sf.AST, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || handled[lit] {
			return true
		}
		rule, named, ok := st.optionRuleOf(st.info.TypeOf(lit))
		if !ok {
			return true
		}
		if st.rs.forward {
			st.completeOption(lit, rule, named)
		} else {
			st.revertOption(lit, rule, handled)
		}
		return true
	})
}

// optionRuleOf returns the option rule of a literal's or argument's type
// (a pointer to it included).
func (st *fileState) optionRuleOf(t types.Type) (optionRule, *types.Named, bool) {
	if t == nil {
		return optionRule{}, nil, false
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return optionRule{}, nil, false
	}
	r := ref{named.Obj().Pkg().Path(), named.Obj().Name()}
	for _, rule := range optionRules {
		if rule.Type == r {
			return rule, named, true
		}
	}
	return optionRule{}, nil, false
}

// completeOption gives lit the rule's field when it lacks it, or notes
// why it does not.
func (st *fileState) completeOption(lit *ast.CompositeLit, rule optionRule, named *types.Named) {
	typeName := lastElem(rule.Type.Path) + "." + rule.Type.Name
	if i := keyedIndex(lit, rule.Field); i >= 0 {
		st.keptOption(lit.Elts[i].(*ast.KeyValueExpr), rule, typeName)
		return
	}
	if len(lit.Elts) > 0 && keyedIndex(lit, "") < 0 {
		st.note(lit.Pos(), fmt.Sprintf("controller-runtime %s literal without field names: not completed", typeName))
		return
	}
	if obj, _, _ := types.LookupFieldOrMethod(named, false, named.Obj().Pkg(), rule.Field); obj == nil {
		st.note(lit.Pos(), fmt.Sprintf("this controller-runtime's %s has no field %s: not switched", typeName, rule.Field))
		return
	}
	if ok, reason := st.newInformerActive(); !ok {
		st.note(lit.Pos(), fmt.Sprintf("controller-runtime %s not switched: %s", typeName, reason))
		return
	}
	value := st.newInformerValue()
	if rule.Nested != nil {
		value = st.nameFor(crCachePath, crAliases) + ".Options{NewInformer: " + value + "}"
	}
	st.insertElt(lit, rule.Field+": "+value)
	st.change(lit.Pos(), fmt.Sprintf("controller-runtime %s: %s: %s added", typeName, rule.Field, value))
}

// keptOption notes a field the rule would set that lit already sets:
// nothing when it is kcache's already, a line to add by hand when
// manager.Options.Cache is not a literal, a note otherwise.
func (st *fileState) keptOption(kv *ast.KeyValueExpr, rule optionRule, typeName string) {
	if rule.Nested != nil {
		if _, isLit := unwrapLit(kv.Value); !isLit && !st.completedElsewhere(kv.Value) {
			st.manual(kv, fmt.Sprintf("%s.Cache is set from %s: set its NewInformer to %s",
				typeName, st.text(kv.Value), manualNewInformer))
		}
		return
	}
	if st.refersTo(kv.Value, rule.Value) || st.refersTo(kv.Value, ref{clientgoCachePath, "NewSharedIndexInformer"}) {
		return // kcache's already, or switched by the call rules
	}
	st.note(kv.Pos(), fmt.Sprintf("controller-runtime %s keeps its own NewInformer (%s)", typeName, st.text(kv.Value)))
}

// newInformerActive tells whether the module's kcache has
// clientgo.NewSharedIndexInformer.
func (st *fileState) newInformerActive() (bool, string) {
	if p := st.rs.targets[kcacheClientgoPath]; p == nil && st.rs.vendored {
		return false, st.rs.noPackage(kcacheClientgoPath)
	} else if p == nil || p.Scope().Lookup(crNewInformer.Name) == nil {
		return false, "the module's build has no " + kcacheClientgoPath + "." + crNewInformer.Name
	}
	return true, ""
}

func (st *fileState) newInformerValue() string {
	return st.nameFor(kcacheClientgoPath, clientgoAliases) + "." + crNewInformer.Name
}

// revertOption removes NewInformer: clientgo.NewSharedIndexInformer from a
// cache.Options literal, and a Cache field whose literal holds only that.
func (st *fileState) revertOption(lit *ast.CompositeLit, rule optionRule, handled map[*ast.CompositeLit]bool) {
	typeName := lastElem(rule.Type.Path) + "." + rule.Type.Name
	i := keyedIndex(lit, rule.Field)
	if i < 0 {
		return
	}
	kv := lit.Elts[i].(*ast.KeyValueExpr)
	if rule.Nested == nil {
		if st.refersTo(kv.Value, rule.Value) {
			st.removeElt(lit, i)
			st.change(kv.Pos(), fmt.Sprintf("controller-runtime %s: NewInformer: %s removed", typeName, st.text(kv.Value)))
		}
		return
	}
	inner, isLit := unwrapLit(kv.Value)
	if !isLit || len(inner.Elts) != 1 || keyedIndex(inner, "NewInformer") != 0 {
		return
	}
	if st.refersTo(inner.Elts[0].(*ast.KeyValueExpr).Value, crNewInformer) {
		handled[inner] = true
		st.removeElt(lit, i)
		st.change(kv.Pos(), fmt.Sprintf("controller-runtime %s: Cache: %s removed", typeName, st.text(kv.Value)))
	}
}

// refersTo tells whether e names the package-level function r.
func (st *fileState) refersTo(e ast.Expr, r ref) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != r.Name {
		return false
	}
	ii := st.pkgNameOf(sel)
	return ii != nil && ii.path == r.Path
}

// keyedIndex returns the index of lit's element keyed field (any keyed
// element for ""), or -1.
func keyedIndex(lit *ast.CompositeLit, field string) int {
	for i, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if id, ok := kv.Key.(*ast.Ident); ok && (field == "" || id.Name == field) {
			return i
		}
	}
	return -1
}

// unwrapLit returns the composite literal e is (or takes the address of).
func unwrapLit(e ast.Expr) (*ast.CompositeLit, bool) {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	lit, ok := e.(*ast.CompositeLit)
	return lit, ok
}

// text returns the source of a node.
func (st *fileState) text(n ast.Node) string {
	return string(st.sf.Src[st.offset(n.Pos()):st.offset(n.End())])
}
