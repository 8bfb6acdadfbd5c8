package conformance

import (
	"fmt"
	"strings"
	"testing"

	kc "github.com/kcache-go/cache"
	cg "k8s.io/client-go/tools/cache"
)

// storeKeyCase is one key-related function applied to a neutral object or
// a key string on both sides, each answer printed.
type storeKeyCase struct {
	// name names the function.
	name string
	// onObject applies it to an object (nil when it takes a key string).
	onObject func(cgIn, kcIn any) (want, got string)
	// onKey applies it to a key string (nil when it takes an object).
	onKey func(key string) (want, got string)
}

// storeMultiValues is an index function with two values per object, which
// IndexFuncToKeyFuncAdapter must refuse.
func storeMultiValues(any) ([]string, error) { return []string{"a", "b"}, nil }

// TestStoreKeyFunctionsMatchClientGo applies every key function to every
// object of a world (valid, tombstones, explicit keys, values without
// metadata) and every splitter to every key of it plus malformed ones, and
// requires the same answers and errors from both sides.
func TestStoreKeyFunctionsMatchClientGo(t *testing.T) {
	w := newStoreWorld(1)
	cgSide, kcSide := newStoreSides(w, storeRow{Kind: "store"})
	keyView := func(side interface{ errView(error) string }) func(string, error) string {
		return func(key string, err error) string { return fmt.Sprintf("%q%s", key, side.errView(err)) }
	}
	cgKey, kcKey := keyView(cgSide), keyView(kcSide)
	cases := []storeKeyCase{
		{name: "MetaNamespaceKeyFunc", onObject: func(c, k any) (string, string) {
			return cgKey(cg.MetaNamespaceKeyFunc(c)), kcKey(kc.MetaNamespaceKeyFunc(k))
		}},
		{name: "DeletionHandlingMetaNamespaceKeyFunc", onObject: func(c, k any) (string, string) {
			return cgKey(cg.DeletionHandlingMetaNamespaceKeyFunc(c)), kcKey(kc.DeletionHandlingMetaNamespaceKeyFunc(k))
		}},
		{name: "MetaNamespaceIndexFunc", onObject: func(c, k any) (string, string) {
			cv, ce := cg.MetaNamespaceIndexFunc(c)
			kv, ke := kc.MetaNamespaceIndexFunc(k)
			return fmt.Sprintf("%#v%s", cv, cgSide.errView(ce)), fmt.Sprintf("%#v%s", kv, kcSide.errView(ke))
		}},
		{name: "IndexFuncToKeyFuncAdapter(MetaNamespaceIndexFunc)", onObject: func(c, k any) (string, string) {
			return cgKey(cg.IndexFuncToKeyFuncAdapter(cg.MetaNamespaceIndexFunc)(c)), kcKey(kc.IndexFuncToKeyFuncAdapter(kc.MetaNamespaceIndexFunc)(k))
		}},
		{name: "IndexFuncToKeyFuncAdapter(two values)", onObject: func(c, k any) (string, string) {
			return cgKey(cg.IndexFuncToKeyFuncAdapter(storeMultiValues)(c)), kcKey(kc.IndexFuncToKeyFuncAdapter(storeMultiValues)(k))
		}},
		{name: "IndexFuncToKeyFuncAdapter(no value)", onObject: func(c, k any) (string, string) {
			return cgKey(cg.IndexFuncToKeyFuncAdapter(storeNoValues)(c)), kcKey(kc.IndexFuncToKeyFuncAdapter(storeNoValues)(k))
		}},
		{name: "ObjectToName", onObject: func(c, k any) (string, string) {
			cn, ce := cg.ObjectToName(c)
			kn, ke := kc.ObjectToName(k)
			return fmt.Sprintf("%q %q %q%s", cn.Namespace, cn.Name, cn.String(), cgSide.errView(ce)), fmt.Sprintf("%q %q %q%s", kn.Namespace, kn.Name, kn.String(), kcSide.errView(ke))
		}},
		{name: "DeletionHandlingObjectToName", onObject: func(c, k any) (string, string) {
			cn, ce := cg.DeletionHandlingObjectToName(c)
			kn, ke := kc.DeletionHandlingObjectToName(k)
			return fmt.Sprintf("%q %q %q%s", cn.Namespace, cn.Name, cn.String(), cgSide.errView(ce)), fmt.Sprintf("%q %q %q%s", kn.Namespace, kn.Name, kn.String(), kcSide.errView(ke))
		}},
		{name: "SplitMetaNamespaceKey", onKey: func(key string) (string, string) {
			cns, cn, ce := cg.SplitMetaNamespaceKey(key)
			kns, kn, ke := kc.SplitMetaNamespaceKey(key)
			return fmt.Sprintf("%q %q%s", cns, cn, cgSide.errView(ce)), fmt.Sprintf("%q %q%s", kns, kn, kcSide.errView(ke))
		}},
		{name: "ParseObjectName", onKey: func(key string) (string, string) {
			cn, ce := cg.ParseObjectName(key)
			kn, ke := kc.ParseObjectName(key)
			return fmt.Sprintf("%q %q%s", cn.Namespace, cn.Name, cgSide.errView(ce)), fmt.Sprintf("%q %q%s", kn.Namespace, kn.Name, kcSide.errView(ke))
		}},
	}
	keys := append([]string{"a/b/c/d", "a//b", "/name", "ns/", strings.Repeat("x", 300)}, w.keys...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.onObject != nil {
				for _, obj := range w.objects {
					want, got := tc.onObject(cgSide.lib.in(obj), kcSide.lib.in(obj))
					if want != got {
						t.Errorf("%s(%s)\nclient-go: %s\nkcache:    %s", tc.name, w.describe(obj), want, got)
					}
				}
				return
			}
			for _, key := range keys {
				want, got := tc.onKey(key)
				if want != got {
					t.Errorf("%s(%q)\nclient-go: %s\nkcache:    %s", tc.name, key, want, got)
				}
			}
		})
	}
}
