package fastlw_test

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestAPageOnlyThePlainPathDecodesKeepsItsPrefetchedNextPage lists a
// first page whose kind member is spelled "Kind": the serializer's meta
// factory (encoding/json, which matches member names ignoring case) finds
// the kind, so client-go decodes the page; fastlw's item chunks carry no
// kind, so its items go to the plain path after the next page was already
// requested. client-go sends two requests; fastlw must not send the second
// page's request twice.
func TestAPageOnlyThePlainPathDecodesKeepsItsPrefetchedNextPage(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	first := strings.Replace(podList(`"metadata":{"resourceVersion":"5","continue":"c2"},`, pod("a", "1", ""), pod("b", "2", "")),
		`"kind":"PodList"`, `"Kind":"PodList"`, 1)
	pages := map[string]string{"": first, "c2": podList(`"metadata":{"resourceVersion":"5"},`, pod("c", "3", ""))}
	plain := requireSameCannedList(t, pages, readShapes[:1])
	if len(plain) != 2 || plain[1].err != nil {
		t.Fatalf("client-go made %d calls, the last failing: %v; want two pages", len(plain), plain[len(plain)-1].err)
	}
}
