package fastlw_test

import (
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/fastlw"
)

// notFoundStatus answers a continue token no canned page has.
const notFoundStatus = `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no such page","reason":"NotFound","code":404}`

// listCanned lists through lw (following continue tokens as the pager
// does) over a client whose answers are pages[continue token] ("" the
// first page) as 200 JSON, read in shape, and returns the outcomes and the
// number of requests.
func listCanned(t *testing.T, pages map[string]string, shape readShape, lw func(rest.Interface) []listOutcome) ([]listOutcome, int32) {
	transport := &cannedTransport{answer: func(req *http.Request, _ int) (*http.Response, error) {
		body, ok := pages[req.URL.Query().Get("continue")]
		if !ok {
			answer := okAnswer(req, "application/json", strings.NewReader(notFoundStatus))
			answer.StatusCode, answer.Status = http.StatusNotFound, "404 Not Found"
			return answer, nil
		}
		return okAnswer(req, "application/json", shape.wrap(strings.NewReader(body))), nil
	}}
	out := lw(cannedClient(t, transport))
	return out, transport.requests.Load()
}

// requireSameCannedList lists pages in each of shapes through client-go's
// ListWatch and through fastlw and requires the same pages, errors and
// request count; it returns client-go's outcomes in the last shape.
func requireSameCannedList(t *testing.T, pages map[string]string, shapes []readShape) []listOutcome {
	t.Helper()
	options := metav1.ListOptions{Limit: 2}
	var plain []listOutcome
	for _, shape := range shapes {
		var plainRequests, fastRequests int32
		plain, plainRequests = listCanned(t, pages, shape, func(c rest.Interface) []listOutcome { return listAll(t.Context(), clientGoPlain(c), options) })
		fast, fastRequests := listCanned(t, pages, shape, func(c rest.Interface) []listOutcome {
			return listAll(t.Context(), fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil), options)
		})
		requireSameOutcomes(t, plain, fast)
		if plainRequests != fastRequests {
			t.Fatalf("%s: client-go sent %d requests, fastlw %d", shape.name, plainRequests, fastRequests)
		}
	}
	return plain
}

// podList is a PodList page: members spliced in before its items (JSON
// members ending in a comma, or empty), and its items.
func podList(members string, items ...string) string {
	return `{"kind":"PodList","apiVersion":"v1",` + members + `"items":[` + strings.Join(items, ",") + `]}`
}

// oddListPages are paged lists of odd shape and content, each with the
// number of List calls client-go's pager makes and whether the last one
// fails, so that the sameness is not that of two identical failures.
var oddListPages = []struct {
	name    string
	pages   map[string]string
	calls   int
	failing bool
}{
	{name: "empty items", pages: map[string]string{"": podList(`"metadata":{"resourceVersion":"5"},`)}, calls: 1},
	{name: "null items", pages: map[string]string{"": `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":null}`}, calls: 1},
	{name: "no items member", pages: map[string]string{"": `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"}}`}, calls: 1},
	{name: "items before metadata, and two pages", pages: map[string]string{
		"":   `{"items":[` + pod("a", "1", "") + "," + pod("b", "2", "") + `],"metadata":{"resourceVersion":"5","continue":"c2","remainingItemCount":1},"kind":"PodList","apiVersion":"v1"}`,
		"c2": podList(`"metadata":{"resourceVersion":"5"},`, pod("c", "3", "")),
	}, calls: 2},
	{name: "items twice", pages: map[string]string{"": `{"kind":"PodList","apiVersion":"v1","items":[` + pod("a", "1", "") + `],"metadata":{},"items":[` + pod("b", "2", "") + `]}`}, calls: 1},
	{name: "escaped continue, resource version and remainingItemCount key", pages: map[string]string{
		"":   podList(`"metadata":{"resourceVersion":"1\u0030","continue":"c\u0032","remaining\u0049temCount":1},`, pod("a", "1", ""), pod("b", "2", "")),
		"c2": podList(`"metadata":{"resourceVersion":"10"},`, pod("c", "3", "")),
	}, calls: 2},
	{name: "a byte order mark before the page", pages: map[string]string{"": "\ufeff" + podList(`"metadata":{},`, pod("a", "1", ""))}, calls: 1, failing: true},
	{name: "whitespace everywhere, a null item, an items key inside an item", pages: map[string]string{
		"": " \r\n{ \"kind\" :\t\"PodList\" , \"apiVersion\" : \"v1\" , \"items\" : [\r\n null ,\t" + pod("a", "1", `"items":"[{]}"`) + " \n] , \"metadata\" : { } }\n",
	}, calls: 1},
	{name: "items of another kind in the page", pages: map[string]string{"": podList(`"metadata":{},`, `{"kind":"Service","apiVersion":"v1","metadata":{"name":"s"}}`)}, calls: 1},
	{name: "a page of another kind than the resource's", pages: map[string]string{"": `{"kind":"ServiceList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"s"}}]}`}, calls: 1},
	{name: "a page of an unknown group version", pages: map[string]string{"": `{"kind":"PodList","apiVersion":"v9","metadata":{},"items":[{}]}`}, calls: 1, failing: true},
	{name: "a page without a kind", pages: map[string]string{"": `{"apiVersion":"v1","metadata":{},"items":[{}]}`}, calls: 1, failing: true},
	{name: "Items in another case beside items", pages: map[string]string{"": podList(`"Items":[`+pod("b", "2", "")+`],`, pod("a", "1", ""))}, calls: 1},
	{name: "an item with a number out of range, on the last page", pages: map[string]string{
		"": podList(`"metadata":{},`, strings.Replace(pod("a", "1", ""), `"spec":{`, `"spec":{"priority":1e400,`, 1)),
	}, calls: 1, failing: true},
	{name: "unicode and invalid UTF-8 in items, -0 for a number", pages: map[string]string{
		"": podList(`"metadata":{},`, pod("a", "1", `"u":"名前 \u00e9 \ud800"`), strings.Replace(pod("b", "2", "\"x\":\"\xff\""), `"spec":{`, `"spec":{"priority":-0,`, 1)),
	}, calls: 1},
}

// TestOddListPagesGiveClientGosPagesAndErrors lists every odd paged list
// in every read shape and requires fastlw's pages, errors and request
// count to be client-go's (and client-go's to make the calls the case
// names).
func TestOddListPagesGiveClientGosPagesAndErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tt := range oddListPages {
		t.Run(tt.name, func(t *testing.T) {
			plain := requireSameCannedList(t, tt.pages, readShapes)
			last := plain[len(plain)-1]
			if len(plain) != tt.calls || (last.err != nil) != tt.failing {
				t.Fatalf("client-go made %d calls, the last failing: %v; the case expects %d calls, failing: %v", len(plain), last.err, tt.calls, tt.failing)
			}
		})
	}
}

// TestAListWithAnItemOver16MiBGivesClientGosPage lists a page one of
// whose items is larger than a watch frame may be (the list path has no
// such bound).
func TestAListWithAnItemOver16MiBGivesClientGosPage(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	huge := pod("big", "2", `"big":"`+strings.Repeat("x", 17<<20)+`"`)
	plain := requireSameCannedList(t, map[string]string{"": podList(`"metadata":{"resourceVersion":"5"},`, pod("a", "1", ""), huge)}, readShapes[:1])
	if len(plain) != 1 || plain[0].err != nil {
		t.Fatalf("client-go: %d calls, last error %v; want one page", len(plain), plain[len(plain)-1].err)
	}
}
