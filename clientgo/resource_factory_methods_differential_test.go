package clientgo

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
)

// methodNames lists the exported methods of v's dynamic type, sorted.
func methodNames(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := 0; i < t.NumMethod(); i++ {
		out = append(out, t.Method(i).Name)
	}
	sort.Strings(out)
	return out
}

func TestTheFactoriesHaveTheMethodsOfClientGosAndNoOthers(t *testing.T) {
	newDynamic := func() *dynamicfake.FakeDynamicClient { return dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()) }
	newMetadata := func() *metadatafake.FakeMetadataClient {
		return metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	}
	cases := []struct {
		name       string
		ours, want any
	}{
		{"dynamic", NewDynamicSharedInformerFactory(newDynamic(), 0), dynamicinformer.NewDynamicSharedInformerFactory(newDynamic(), 0)},
		{"filtered dynamic", NewFilteredDynamicSharedInformerFactory(newDynamic(), 0, "ns", nil),
			dynamicinformer.NewFilteredDynamicSharedInformerFactory(newDynamic(), 0, "ns", nil)},
		{"metadata", NewMetadataSharedInformerFactory(newMetadata(), 0), metadatainformer.NewSharedInformerFactory(newMetadata(), 0)},
		{"filtered metadata", NewFilteredMetadataSharedInformerFactory(newMetadata(), 0, "ns", nil),
			metadatainformer.NewFilteredSharedInformerFactory(newMetadata(), 0, "ns", nil)},
		{"metadata with options", NewMetadataSharedInformerFactoryWithOptions(newMetadata(), 0),
			metadatainformer.NewSharedInformerFactoryWithOptions(newMetadata(), 0)},
		{"typed", NewSharedInformerFactory(fake.NewClientset(), 0), informers.NewSharedInformerFactory(fake.NewClientset(), 0)},
		{"filtered typed", NewFilteredSharedInformerFactory(fake.NewClientset(), 0, "ns", nil),
			informers.NewFilteredSharedInformerFactory(fake.NewClientset(), 0, "ns", nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := methodNames(tc.ours), methodNames(tc.want); !reflect.DeepEqual(got, want) {
				t.Errorf("methods %v, client-go's factory has %v", got, want)
			}
		})
	}
}

// contextStarter is the metadata factory's StartWithContext, which its
// interface does not list.
type contextStarter interface {
	StartWithContext(ctx context.Context)
}

func TestTheMetadataFactoryStartsWithAContextAsClientGos(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pod := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}}
	run := func(f metadatainformer.SharedInformerFactory) string {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		starter, ok := f.(contextStarter)
		if !ok {
			return fmt.Sprintf("%T has no StartWithContext", f)
		}
		inf := f.ForResource(podsResource).Informer()
		ctx, cancel := context.WithCancel(context.Background())
		starter.StartWithContext(ctx)
		starter.StartWithContext(ctx)
		synced := f.WaitForCacheSync(ctx.Done())
		keys := inf.GetStore().ListKeys()
		cancel()
		f.Shutdown()
		starter.StartWithContext(context.Background()) // after Shutdown: nothing
		return fmt.Sprintf("synced %v, keys %v, stopped %v", synced, keys, inf.IsStopped())
	}
	want := run(metadatainformer.NewSharedInformerFactory(metadatafake.NewSimpleMetadataClient(scheme, pod), 0))
	got := run(NewMetadataSharedInformerFactory(metadatafake.NewSimpleMetadataClient(scheme, pod), 0))
	if got != want {
		t.Errorf("kcache:\n %s\nclient-go:\n %s", got, want)
	}
}
