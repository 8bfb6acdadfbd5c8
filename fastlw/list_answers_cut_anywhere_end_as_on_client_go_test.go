package fastlw_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
)

// pageEvent is the event type a listSide records each page as.
const pageEvent watch.EventType = "PAGE"

// callerContext makes the context a caller lists under from the test's.
type callerContext func(ctx context.Context) (context.Context, context.CancelFunc)

// deadlineAfter is a caller whose context ends after d (fake time under
// synctest) with its deadline.
func deadlineAfter(d time.Duration) callerContext {
	return func(ctx context.Context) (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, d) }
}

// canceledAfter is a caller that cancels its context after d.
func canceledAfter(d time.Duration) callerContext {
	return func(ctx context.Context) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(ctx)
		stop := time.AfterFunc(d, cancel)
		return ctx, func() { stop.Stop(); cancel() }
	}
}

// listSide is a watchSide that lists instead, through the ListerWatcher
// newLW makes of the client, with options, following the continue tokens
// as the pager does (listAll), under the context caller makes (nil: the
// test's). Each page is an event of type pageEvent; the outcome's error
// is the last call's.
func listSide(newLW func(rest.Interface) cache.ListerWatcherWithContext, options metav1.ListOptions, caller callerContext) watchSide {
	return func(_ *testing.T, ctx context.Context, c rest.Interface) watchOutcome {
		if caller != nil {
			var cancel context.CancelFunc
			ctx, cancel = caller(ctx)
			defer cancel()
		}
		var out watchOutcome
		for _, page := range listAll(ctx, newLW(c), options) {
			if page.err != nil {
				out.err = page.err
				break
			}
			out.events = append(out.events, watch.Event{Type: pageEvent, Object: page.obj})
		}
		return out
	}
}

// clientGoLister is client-go's ListWatch over c.
func clientGoLister(c rest.Interface) cache.ListerWatcherWithContext { return clientGoPlain(c) }

// fastLister is fastlw over c, as NewFromClient makes it.
func fastLister(c rest.Interface) cache.ListerWatcherWithContext {
	return fastlw.NewFromClient(c, "pods", "ns", fields.Everything(), nil)
}

// threePodPage is a JSON page of three pods, continue token cont ("" for
// none).
func threePodPage(cont string) string {
	return podList(`"metadata":{"resourceVersion":"5","continue":"`+cont+`"},`, pod("a", "1", ""), pod("b", "2", ""), pod("c", "3", ""))
}

// cutPoints are where in a page its body is cut: each the length of the
// prefix that arrives.
func cutPoints(page string) []struct {
	name string
	at   int
} {
	between := strings.Index(page, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"b"`)
	return []struct {
		name string
		at   int
	}{
		{"before the first byte", 0},
		{"inside the skeleton", len(`{"kind":"PodList","apiV`)},
		{"inside an item", between + 40},
		{"between items, after the comma", between},
		{"between items, before the comma", between - 1},
		{"after the items", strings.LastIndex(page, "]") + 1},
		{"after the closing brace", len(page)},
	}
}

// bodyCuts are how a body is cut where it is: by the transport at once,
// or by a deadline the body hangs until (the caller's, or the Timeout of
// the client's http.Client), or by the caller's cancel.
var bodyCuts = []struct {
	name          string
	answer        scriptedAnswer // cut, hangs and cutErr of the answer
	caller        callerContext
	clientTimeout time.Duration
}{
	{name: "a connection reset", answer: scriptedAnswer{cut: true, cutErr: syscall.ECONNRESET}},
	{name: "an unexpected EOF", answer: scriptedAnswer{cut: true, cutErr: io.ErrUnexpectedEOF}},
	{name: "the caller's deadline", answer: scriptedAnswer{cut: true, hangs: true}, caller: deadlineAfter(10 * time.Second)},
	{name: "the caller's cancel", answer: scriptedAnswer{cut: true, hangs: true}, caller: canceledAfter(10 * time.Second)},
	{name: "the client's Timeout", answer: scriptedAnswer{cut: true, hangs: true, cutErr: errors.New("net/http: request canceled")},
		clientTimeout: 10 * time.Second},
}

// TestAListBodyCutAnywhereEndsAsOnClientGo cuts a page's body at every
// point of it, in every way, on the first page and on the second page
// (the one fastlw requests ahead): the pages, the error, the requests, the
// warnings, client-go's request metrics (response size included), the
// rate limiter's waits and the time spent must be client-go's, and fastlw
// must close every body once.
func TestAListBodyCutAnywhereEndsAsOnClientGo(t *testing.T) {
	first, second := threePodPage("c2"), threePodPage("")
	for _, cut := range bodyCuts {
		for _, onSecond := range []bool{false, true} {
			page := first
			if onSecond {
				page = second
			}
			for _, point := range cutPoints(page) {
				name := cut.name + "/" + point.name
				if onSecond {
					name += " of the second page"
				}
				answer := cut.answer
				answer.contentType, answer.body, answer.warning = "application/json", page[:point.at], "w"
				script := []scriptedAnswer{answer}
				if onSecond {
					script = []scriptedAnswer{{contentType: "application/json", body: first}, answer}
				}
				t.Run(name, func(t *testing.T) {
					requireSameListScript(t, script, cut.caller, cut.clientTimeout, metav1.ListOptions{Limit: 3})
				})
			}
		}
	}
}

// TestEveryListAnswerShapeEndsAsOnClientGo plays answers that are no plain
// 200 page: other 2xx codes, empty bodies, Status answers, a page after a
// 429, a page that is no list.
func TestEveryListAnswerShapeEndsAsOnClientGo(t *testing.T) {
	page := threePodPage("")
	tests := []struct {
		name   string
		script []scriptedAnswer
	}{
		{"a 200 page", []scriptedAnswer{{contentType: "application/json", body: page, warning: "w"}}},
		{"a 201 page", []scriptedAnswer{{code: 201, contentType: "application/json", body: page}}},
		{"a 203 page", []scriptedAnswer{{code: 203, contentType: "application/json", body: page}}},
		{"a 206 page", []scriptedAnswer{{code: 206, contentType: "application/json", body: page}}},
		{"a 204 with no body", []scriptedAnswer{{code: 204, contentType: "application/json"}}},
		{"a 200 with an empty body", []scriptedAnswer{{contentType: "application/json"}}},
		{"a 200 with no content type", []scriptedAnswer{{body: page}}},
		{"a 200 whose body is a Status", []scriptedAnswer{{contentType: "application/json", body: goneStatus}}},
		{"a 410 Status", []scriptedAnswer{{code: 410, contentType: "application/json", body: goneStatus, warning: "w"}}},
		{"a 429 with Retry-After, then a page", []scriptedAnswer{{code: 429, retryAfter: "1", warning: "slow"}, {contentType: "application/json", body: page, warning: "w"}}},
		{"a 500, then a page", []scriptedAnswer{{code: 500, contentType: "application/json", body: `{"kind":"Status","apiVersion":"v1","code":500}`}, {contentType: "application/json", body: page}}},
		{"an EOF, then a page", []scriptedAnswer{{err: io.EOF}, {contentType: "application/json", body: page}}},
		{"a page with bytes after it", []scriptedAnswer{{contentType: "application/json", body: page + " x"}}},
		{"a page with a second page after it", []scriptedAnswer{{contentType: "application/json", body: page + page}}},
		{"a page whose last item does not decode", []scriptedAnswer{{contentType: "application/json",
			body: podList(`"metadata":{},`, pod("a", "1", ""), pod("b", "2", ""), `{"kind":"Pod","apiVersion":"v1","metadata":{"name":7}}`)}}},
		{"a page whose first item does not decode", []scriptedAnswer{{contentType: "application/json",
			body: podList(`"metadata":{},`, `{"kind":"Pod","apiVersion":"v1","spec":{"priority":"x"}}`, pod("a", "1", ""), pod("b", "2", ""))}}},
		{"a page with an invalid byte in an item", []scriptedAnswer{{contentType: "application/json",
			body: podList(`"metadata":{},`, pod("a", "1", "\"k\":\"\x01\""), pod("b", "2", ""))}}},
		{"a page with a key over 1 MiB", []scriptedAnswer{{contentType: "application/json",
			body: podList(`"`+strings.Repeat("k", 1<<20+1)+`":1,"metadata":{},`, pod("a", "1", ""), pod("b", "2", ""))}}},
		{"a page with over 1 MiB of whitespace between items and before a colon", []scriptedAnswer{{contentType: "application/json",
			body: podList(`"metadata"`+strings.Repeat(" ", 1<<20+1)+`:{},`, pod("a", "1", ""), strings.Repeat("\n", 1<<20+1)+pod("b", "2", ""))}}},
		{"a page with an item over 1 MiB", []scriptedAnswer{{contentType: "application/json",
			body: podList(`"metadata":{},`, pod("a", "1", `"big":"`+strings.Repeat("x", 1<<20+1)+`"`), pod("b", "2", ""))}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireSameListScript(t, tt.script, nil, 0, metav1.ListOptions{})
		})
	}
}

// requireSameListScript lists, with options, through client-go's
// ListWatch and through fastlw, each on a client over its own play of
// script whose http.Client has clientTimeout, under the context caller
// makes, in a synctest bubble, and requires the same run.
func requireSameListScript(t *testing.T, script []scriptedAnswer, caller callerContext, clientTimeout time.Duration, options metav1.ListOptions) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		withTimeout := func(tr *scriptTransport) { tr.clientTimeout = clientTimeout }
		plain := runScript(t, script, listSide(clientGoLister, options, caller), withTimeout)
		fast := runScript(t, script, listSide(fastLister, options, caller), withTimeout)
		requireSameScriptRun(t, plain, fast)
	})
}
