package fastlw_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"

	"go.uber.org/goleak"
)

// TestAPageWhoseItemFailsToDecodeFailsAsOnClientGoAfterAtMostOneDroppedPrefetch
// lists a first page with a continue token and an item that does not
// decode (a number out of int32's range): client-go's List fails after
// one request. fastlw fails the same way; it requests the next page as
// soon as a page's skeleton decoded, before its items did (the pipelining
// issue 27 asks for), so it may send that one request more, which it
// drops: never a second one, and no goroutine is left.
func TestAPageWhoseItemFailsToDecodeFailsAsOnClientGoAfterAtMostOneDroppedPrefetch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bad := strings.Replace(pod("b", "2", ""), `"spec":{`, `"spec":{"priority":1e400,`, 1)
	pages := map[string]string{
		"":   podList(`"metadata":{"resourceVersion":"5","continue":"c2"},`, pod("a", "1", ""), bad),
		"c2": podList(`"metadata":{"resourceVersion":"5"},`, pod("c", "3", "")),
	}
	options := metav1.ListOptions{Limit: 2}
	for _, shape := range readShapes {
		plain, plainRequests := listCanned(t, pages, shape, func(c rest.Interface) []listOutcome { return listAll(t.Context(), clientGoPlain(c), options) })
		fast, fastRequests := listCanned(t, pages, shape, func(c rest.Interface) []listOutcome {
			return listAll(t.Context(), fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
		})
		if len(plain) != 1 || plain[0].err == nil || plainRequests != 1 {
			t.Fatalf("%s: client-go made %d calls and %d requests, the first error %v; want one failing call", shape.name, len(plain), plainRequests, plain[0].err)
		}
		requireSameOutcomes(t, plain, fast)
		if fastRequests < plainRequests || fastRequests > plainRequests+1 {
			t.Fatalf("%s: client-go sent %d requests, fastlw %d; want at most one more (the dropped prefetch)", shape.name, plainRequests, fastRequests)
		}
	}
}
