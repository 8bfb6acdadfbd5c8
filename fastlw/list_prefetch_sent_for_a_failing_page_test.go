//go:build review

package fastlw_test

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// This test fails on main (build tag review): fastlw requests the next
// page as soon as a page's skeleton (everything but its items) decoded,
// before its items did. When an item then fails to decode, the page fails
// as on client-go, but the next page was already requested (and is
// dropped): one LIST request client-go never sends, per failing page.

// TestAPageWhoseItemFailsToDecodeIsOneRequestAsOnClientGo lists a first
// page with a continue token and an item that does not decode (a number
// out of int32's range): client-go's List fails after one request.
func TestAPageWhoseItemFailsToDecodeIsOneRequestAsOnClientGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bad := strings.Replace(pod("b", "2", ""), `"spec":{`, `"spec":{"priority":1e400,`, 1)
	pages := map[string]string{
		"":   podList(`"metadata":{"resourceVersion":"5","continue":"c2"},`, pod("a", "1", ""), bad),
		"c2": podList(`"metadata":{"resourceVersion":"5"},`, pod("c", "3", "")),
	}
	plain := requireSameCannedList(t, pages, readShapes[:1])
	if len(plain) != 1 || plain[0].err == nil {
		t.Fatalf("client-go made %d calls, the first error %v; want one failing call", len(plain), plain[0].err)
	}
}
