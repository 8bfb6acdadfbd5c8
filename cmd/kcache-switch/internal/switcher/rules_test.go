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

func TestTheTypedInformerPatternMapsEachGroupVersionToClientgoAndBack(t *testing.T) {
	cases := []struct {
		path, name string
		forward    bool
		wantTo     ref
		ok         bool
	}{
		{"k8s.io/client-go/informers/core/v1", "NewPodInformer", true, ref{"github.com/kcache-go/cache/clientgo/informers/core/v1", "NewPodInformer"}, true},
		{"k8s.io/client-go/informers/apps/v1", "NewFilteredDeploymentInformer", true, ref{"github.com/kcache-go/cache/clientgo/informers/apps/v1", "NewFilteredDeploymentInformer"}, true},
		{"k8s.io/client-go/informers/core/v1", "NewPodInformerWithOptions", true, ref{"github.com/kcache-go/cache/clientgo/informers/core/v1", "NewPodInformerWithOptions"}, true},
		{"github.com/kcache-go/cache/clientgo/informers/core/v1", "NewPodInformer", false, ref{"k8s.io/client-go/informers/core/v1", "NewPodInformer"}, true},
		{"k8s.io/client-go/informers/core/v1", "NewTypedPodInformer", true, ref{}, false},
		{"k8s.io/client-go/informers/core/v1", "New", true, ref{}, false},
		{"k8s.io/client-go/informers", "NewPodInformer", true, ref{}, false},
	}
	for _, tc := range cases {
		m, ok := newRuleset(tc.forward).call(tc.path, tc.name)
		if ok != tc.ok || (ok && (m.to != tc.wantTo || m.pending == "")) {
			t.Errorf("call(%s.%s, forward=%v) = %+v, %v; want to %+v, %v", tc.path, tc.name, tc.forward, m.to, ok, tc.wantTo, tc.ok)
		}
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
		{"clientgo without it", fakePackage(kcacheClientgoPath, intArg), false, "pending, issue 31"},
		{"clientgo with another signature", fakePackage(kcacheClientgoPath, strArg, "NewFilteredDynamicInformer"), false, "another signature"},
		{"clientgo with it", fakePackage(kcacheClientgoPath, intArg, "NewFilteredDynamicInformer"), true, ""},
		{"no clientgo at all", nil, false, "pending, issue 31"},
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
