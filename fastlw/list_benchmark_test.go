package fastlw_test

import (
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// BenchmarkListPods lists pods from the fake apiserver side by side, the
// plain path (cache.NewListWatchFromClient) and fastlw, JSON and protobuf,
// in pages of 500 as the Reflector asks. Each op is one whole list.
func BenchmarkListPods(b *testing.B) {
	for _, n := range []int{2000} {
		for _, format := range []string{"json", "protobuf"} {
			env := startEnv(scenario{pods: newPods(n)})
			client := env.client(b, format)
			for _, src := range plainAndFastlw(client) {
				b.Run(format+"/"+strconv.Itoa(n)+"/"+src.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						for _, page := range listAll(b.Context(), src.lw, metav1.ListOptions{Limit: 500}) {
							if page.err != nil {
								b.Fatal(page.err)
							}
						}
					}
				})
			}
			env.close()
		}
	}
}

// benchSource is a ListerWatcher a benchmark runs, named.
type benchSource struct {
	name string
	lw   cache.ListerWatcherWithContext
}

// plainAndFastlw returns the plain path (cache.NewListWatchFromClient) and
// fastlw over client, for pods of namespace ns.
func plainAndFastlw(client rest.Interface) []benchSource {
	return []benchSource{
		{"plain", cache.NewListWatchFromClient(client, "pods", "ns", fields.Everything())},
		{"fastlw", fastlw.NewFromClient(client, "pods", "ns", fields.Everything(), nil)},
	}
}
