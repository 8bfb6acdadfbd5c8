package switcher

import (
	"fmt"
	"go/ast"
	"go/types"
	"regexp"
	"strings"
)

// wrapRule covers a family of client-go constructors that build one
// informer: the functions of every package whose path FromPath matches and
// whose name Name matches (and Skip does not). The switch leaves each call
// as it is and wraps it in Wrap (clientgo.OnKcache), which takes the fresh
// client-go informer's settings over into a kcache one; -revert unwraps
// Wrap(call) back to call. A wrapped call keeps the namespace, tweak,
// indexers and resync client-go's constructor chose.
type wrapRule struct {
	FromPath   *regexp.Regexp
	Name, Skip *regexp.Regexp
	Wrap       ref
	What       string
}

var onKcache = ref{kcacheClientgoPath, "OnKcache"}

// wrapRules: the typed single-informer constructors of client-go's
// informers/<group>/<version> packages (NewPodInformer,
// NewFilteredPodInformer, NewPodInformerWithOptions, …). client-go v0.37's
// NewTypedXInformer family returns v0.37-only types and is left to
// client-go (Skip). A project's own informer-gen output needs no row: its
// constructors call cache.NewSharedIndexInformer(WithOptions), which the
// call rows switch.
var wrapRules = []wrapRule{{
	FromPath: regexp.MustCompile(`^k8s\.io/client-go/informers/[a-z0-9]+/v[a-z0-9]+$`),
	Name:     regexp.MustCompile(`^New(Filtered)?[A-Z][A-Za-z0-9]*Informer(WithOptions)?$`),
	Skip:     regexp.MustCompile(`^New(Filtered)?Typed`),
	Wrap:     onKcache,
	What:     "typed informer",
}}

// wrapRuleOf returns the rule covering the function path.name.
func wrapRuleOf(path, name string) (wrapRule, bool) {
	for _, w := range wrapRules {
		if w.FromPath.MatchString(path) && w.Name.MatchString(name) && !w.Skip.MatchString(name) {
			return w, true
		}
	}
	return wrapRule{}, false
}

// wrapStatus tells whether calls to path.name can be wrapped in w.Wrap:
// the module's build must have w.Wrap taking and returning the
// constructor's result type. reason says why not.
func (rs *ruleset) wrapStatus(w wrapRule, path, name string) (ok bool, reason string) {
	lookup := func(r ref) *types.Signature {
		if p := rs.targets[r.Path]; p != nil {
			if f, ok := p.Scope().Lookup(r.Name).(*types.Func); ok {
				return f.Type().(*types.Signature)
			}
		}
		return nil
	}
	ctor, wrap := lookup(ref{path, name}), lookup(w.Wrap)
	switch {
	case rs.targets[w.Wrap.Path] == nil && rs.vendored:
		return false, rs.noPackage(w.Wrap.Path)
	case wrap == nil:
		return false, fmt.Sprintf("the kcache this module resolves has no %s.%s (an older kcache)", lastElem(w.Wrap.Path), w.Wrap.Name)
	case ctor == nil || ctor.Results().Len() != 1:
		return false, "not a constructor of one informer"
	case wrap.Params().Len() != 1 || !types.Identical(wrap.Params().At(0).Type(), ctor.Results().At(0).Type()) ||
		!types.Identical(wrap.Results().At(0).Type(), ctor.Results().At(0).Type()):
		return false, fmt.Sprintf("%s.%s does not take and return its result type", lastElem(w.Wrap.Path), w.Wrap.Name)
	}
	return true, ""
}

// planWrap wraps a call of a wrapRule's constructor (forward) or unwraps
// Wrap(call) (revert). A call already inside Wrap is left alone, so a
// second run changes nothing.
func (st *fileState) planWrap(call *ast.CallExpr) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	ii := st.pkgNameOf(sel)
	if ii == nil || ii.path != onKcache.Path || sel.Sel.Name != onKcache.Name || len(call.Args) != 1 {
		if ii != nil && st.rs.forward && !st.wrapped[call] {
			st.wrapCall(call, sel, ii)
		}
		return
	}
	inner, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
	if ok {
		st.wrapped[inner] = true
	}
	if st.rs.forward {
		return
	}
	if ok {
		if isel, isSel := ast.Unparen(inner.Fun).(*ast.SelectorExpr); isSel {
			if iii := st.pkgNameOf(isel); iii != nil {
				if _, covered := wrapRuleOf(iii.path, isel.Sel.Name); covered {
					st.replace(call.Pos(), call.Args[0].Pos(), "")
					st.replace(call.Args[0].End(), call.End(), "")
					ii.rewritten++
					st.change(call.Pos(), fmt.Sprintf("%s: %s → %s", wrapRules[0].What, st.short(call), st.short(inner)))
					return
				}
			}
		}
	}
	st.note(call.Pos(), fmt.Sprintf("%s(%s) stays kcache's: revert unwraps only %s of a typed constructor's call; unwrap it by hand",
		st.text(call.Fun), st.text(call.Args[0]), onKcache.Name))
}

// wrapCall wraps one call of a covered constructor, or notes why not.
func (st *fileState) wrapCall(call *ast.CallExpr, sel *ast.SelectorExpr, ii *importInfo) {
	w, ok := wrapRuleOf(ii.path, sel.Sel.Name)
	if !ok {
		return
	}
	if ok, reason := st.rs.wrapStatus(w, ii.path, sel.Sel.Name); !ok {
		st.note(sel.Pos(), fmt.Sprintf("%s %s.%s not switched: %s", w.What, ii.name, sel.Sel.Name, reason))
		return
	}
	name := st.nameFor(w.Wrap.Path, clientgoAliases)
	st.replace(call.Pos(), call.Pos(), name+"."+w.Wrap.Name+"(")
	st.replace(call.End(), call.End(), ")")
	st.change(call.Pos(), fmt.Sprintf("%s: %s → %s.%s(%s)", w.What, st.short(call), name, w.Wrap.Name, st.short(call)))
}

// short is a call's function and "(…)", for the report.
func (st *fileState) short(call *ast.CallExpr) string {
	return st.text(call.Fun) + "(…)"
}

// lastElem is the last element of a slash-separated path.
func lastElem(path string) string {
	return path[strings.LastIndex(path, "/")+1:]
}
