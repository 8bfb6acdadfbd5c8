package switcher

import (
	"go/token"
	"go/types"
	"strings"
	"testing"
)

func TestEveryCallRowNamesTwoDistinctFunctionsAndPendingRowsSayWhy(t *testing.T) {
	seen := map[ref]bool{}
	for _, r := range callRules {
		if r.From == r.To || r.From.Name == "" || r.To.Name == "" || r.What == "" || len(r.Aliases) == 0 {
			t.Errorf("row %+v: want distinct sides, a kind and revert aliases", r)
		}
		if seen[r.From] {
			t.Errorf("row %+v: client-go side appears twice", r)
		}
		seen[r.From] = true
	}
	for _, r := range pendingCallRules {
		if r.Pending == "" {
			t.Errorf("pending row %+v has no reason", r)
		}
	}
}

func TestTheTypedInformerWrapRuleCoversEverySingleInformerConstructorOfAGroupVersionPackageOnly(t *testing.T) {
	cases := []struct {
		path, name string
		ok         bool
	}{
		{"k8s.io/client-go/informers/core/v1", "NewPodInformer", true},
		{"k8s.io/client-go/informers/apps/v1", "NewFilteredDeploymentInformer", true},
		{"k8s.io/client-go/informers/core/v1", "NewPodInformerWithOptions", true},
		{"k8s.io/client-go/informers/flowcontrol/v1beta3", "NewFlowSchemaInformer", true},
		{"k8s.io/client-go/informers/core/v1", "NewTypedPodInformer", false},
		{"k8s.io/client-go/informers/core/v1", "NewFilteredTypedPodInformer", false},
		{"k8s.io/client-go/informers/core/v1", "New", false},
		{"k8s.io/client-go/informers", "NewPodInformer", false},
		{"k8s.io/client-go/informers/core", "NewPodInformer", false},
		{"example.com/generated/informers/externalversions/samplecontroller/v1alpha1", "NewFooInformer", false},
	}
	for _, tc := range cases {
		if w, ok := wrapRuleOf(tc.path, tc.name); ok != tc.ok || (ok && w.Wrap != onKcache) {
			t.Errorf("wrapRuleOf(%s.%s) = %+v, %v; want %v with clientgo.OnKcache", tc.path, tc.name, w.Wrap, ok, tc.ok)
		}
	}
}

func TestAWrapRuleIsActiveOnlyWhenOnKcacheTakesAndReturnsTheConstructorsResultType(t *testing.T) {
	informer := types.NewInterfaceType(nil, nil)
	other := types.Typ[types.Int]
	fn := func(param, result types.Type) *types.Signature {
		return types.NewSignatureType(nil, nil, nil,
			types.NewTuple(types.NewVar(token.NoPos, nil, "x", param)),
			types.NewTuple(types.NewVar(token.NoPos, nil, "", result)), false)
	}
	const typed = "k8s.io/client-go/informers/core/v1"
	ctor := fakePackage(typed, fn(other, informer), "NewPodInformer")
	cases := []struct {
		name       string
		clientgo   *types.Package
		wantOK     bool
		wantReason string
	}{
		{"clientgo without OnKcache", fakePackage(kcacheClientgoPath, fn(informer, informer)), false, "an older kcache"},
		{"OnKcache of another type", fakePackage(kcacheClientgoPath, fn(other, informer), "OnKcache"), false, "does not take and return"},
		{"OnKcache of the result type", fakePackage(kcacheClientgoPath, fn(informer, informer), "OnKcache"), true, ""},
		{"no clientgo at all", nil, false, "an older kcache"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRuleset(true)
			rs.targets = map[string]*types.Package{typed: ctor, kcacheClientgoPath: tc.clientgo}
			w, _ := wrapRuleOf(typed, "NewPodInformer")
			gotOK, reason := rs.wrapStatus(w, typed, "NewPodInformer")
			if gotOK != tc.wantOK || !strings.Contains(reason, tc.wantReason) {
				t.Errorf("wrapStatus = %v, %q; want %v, %q", gotOK, reason, tc.wantOK, tc.wantReason)
			}
		})
	}
}

// fakePackage makes a package holding functions of one signature.
func fakePackage(path string, sig *types.Signature, names ...string) *types.Package {
	p := types.NewPackage(path, lastElem(path))
	for _, n := range names {
		p.Scope().Insert(types.NewFunc(token.NoPos, p, n, sig))
	}
	p.MarkComplete()
	return p
}

func TestAPendingRowSwitchesOnOnceClientgoHasTheFunctionWithClientGosSignature(t *testing.T) {
	intArg := types.NewSignatureType(nil, nil, nil, types.NewTuple(types.NewVar(token.NoPos, nil, "x", types.Typ[types.Int])), nil, false)
	strArg := types.NewSignatureType(nil, nil, nil, types.NewTuple(types.NewVar(token.NoPos, nil, "x", types.Typ[types.String])), nil, false)
	client := fakePackage(dynamicInformerPath, intArg, "NewFilteredDynamicInformer")
	cases := []struct {
		name       string
		clientgo   *types.Package
		wantOK     bool
		wantReason string
	}{
		{"clientgo without it", fakePackage(kcacheClientgoPath, intArg), false, "an older kcache"},
		{"clientgo with another signature", fakePackage(kcacheClientgoPath, strArg, "NewFilteredDynamicInformer"), false, "another signature"},
		{"clientgo with it", fakePackage(kcacheClientgoPath, intArg, "NewFilteredDynamicInformer"), true, ""},
		{"no clientgo at all", nil, false, "an older kcache"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRuleset(true)
			rs.targets = map[string]*types.Package{dynamicInformerPath: client, kcacheClientgoPath: tc.clientgo}
			m, ok := rs.call(dynamicInformerPath, "NewFilteredDynamicInformer")
			if !ok {
				t.Fatal("no row for dynamicinformer.NewFilteredDynamicInformer")
			}
			gotOK, reason := rs.status(m)
			if gotOK != tc.wantOK || !strings.Contains(reason, tc.wantReason) {
				t.Errorf("status = %v, %q; want %v, %q", gotOK, reason, tc.wantOK, tc.wantReason)
			}
		})
	}
}

func TestRevertReadsEveryRowTheOtherWay(t *testing.T) {
	fwd, rev := newRuleset(true), newRuleset(false)
	for from, m := range fwd.calls {
		back, ok := rev.calls[m.to]
		if !ok || back.to != from {
			t.Errorf("%v → %v has no way back (got %+v)", from, m.to, back)
		}
	}
	for from, to := range fwd.imports {
		if rev.imports[to] != from {
			t.Errorf("import %s → %s has no way back", from, to)
		}
	}
}
