package fastlw_test

import (
	"context"
	"reflect"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// listOutcome is what one List call returned.
type listOutcome struct {
	obj runtime.Object
	err error
}

// listAll lists with options and follows the continue tokens as the
// Reflector's pager does, returning every call's outcome.
func listAll(ctx context.Context, lw cache.ListerWatcherWithContext, options metav1.ListOptions) []listOutcome {
	var out []listOutcome
	for {
		obj, err := lw.ListWithContext(ctx, options)
		out = append(out, listOutcome{obj, err})
		if err != nil {
			return out
		}
		list, err := meta.ListAccessor(obj)
		if err != nil || list.GetContinue() == "" {
			return out
		}
		options.Continue, options.ResourceVersion, options.ResourceVersionMatch = list.GetContinue(), "", ""
	}
}

// TestListGivesThePlainPathsPagesAndErrors lists through
// cache.NewListWatchFromClient and through fastlw against the same fake
// apiserver and requires the same pages (objects, order, resource versions,
// continue tokens) and the same errors.
func TestListGivesThePlainPathsPagesAndErrors(t *testing.T) {
	tests := []struct {
		name    string
		formats []string
		sc      scenario
		options metav1.ListOptions
		wantErr bool
	}{
		{name: "an unpaged list of seven pods", sc: scenario{pods: newPods(7)}},
		{name: "a list of one pod", sc: scenario{pods: newPods(1)}},
		{name: "an empty list", sc: scenario{}},
		{name: "a paged list, page by page", sc: scenario{pods: newPods(7)}, options: metav1.ListOptions{Limit: 3}},
		{name: "a paged list from resource version 0", sc: scenario{pods: newPods(5)}, options: metav1.ListOptions{Limit: 2, ResourceVersion: "0"}},
		{name: "an expired continue token answers 410 on the second page", sc: scenario{pods: newPods(7), expireTokens: true},
			options: metav1.ListOptions{Limit: 3}, wantErr: true},
		{name: "a too old resource version answers 410", sc: scenario{pods: newPods(3)},
			options: metav1.ListOptions{ResourceVersion: "1"}, wantErr: true},
		{name: "a body cut halfway is the same error", sc: scenario{pods: newPods(7), cutList: true}, wantErr: true},
		{name: "a Table request is rejected with 406", formats: []string{"table"}, sc: scenario{pods: newPods(2)}, wantErr: true},
		{name: "a Table answer is decoded by the plain path (the typed scheme refuses it)", formats: []string{"table"},
			sc: scenario{pods: newPods(2), tableList: true}, wantErr: true},
	}
	for _, tt := range tests {
		inEachFormat(t, tt.name, tt.formats, tt.sc, func(t *testing.T, client rest.Interface) {
			plain := listAll(t.Context(), cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything()), tt.options)
			fast := listAll(t.Context(), fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil), tt.options)
			requireSameOutcomes(t, plain, fast)
			if got := plain[len(plain)-1].err != nil; got != tt.wantErr {
				t.Fatalf("plain path error = %v, want an error: %v", plain[len(plain)-1].err, tt.wantErr)
			}
		})
	}
}

// inEachFormat runs test as a subtest per format (JSON and protobuf when
// formats is nil), each against its own fake apiserver for sc, checking
// that no goroutine is left.
func inEachFormat(t *testing.T, name string, formats []string, sc scenario, test func(t *testing.T, client rest.Interface)) {
	if formats == nil {
		formats = []string{"json", "protobuf"}
	}
	for _, format := range formats {
		t.Run(name+"/"+format, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			env := startEnv(sc)
			defer env.close()
			test(t, env.client(t, format))
		})
	}
}

// requireSameOutcomes fails unless both paths returned equal pages and errors.
func requireSameOutcomes(t *testing.T, plain, fast []listOutcome) {
	t.Helper()
	if len(plain) != len(fast) {
		t.Fatalf("plain path made %d calls, fastlw %d", len(plain), len(fast))
	}
	for i := range plain {
		if !reflect.DeepEqual(plain[i].obj, fast[i].obj) {
			t.Errorf("page %d differs:\nplain  %#v\nfastlw %#v", i, plain[i].obj, fast[i].obj)
		}
		if !sameError(plain[i].err, fast[i].err) {
			t.Errorf("page %d error differs:\nplain  %T %v\nfastlw %T %v", i, plain[i].err, plain[i].err, fast[i].err, fast[i].err)
		}
	}
}
