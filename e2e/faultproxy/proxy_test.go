package faultproxy

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// client-go's REST clients share cached transports whose idle
		// connections outlive a test.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1"),
		goleak.IgnoreTopFunction("k8s.io/client-go/util/workqueue.(*delayingType).waitingLoop"),
	)
}

func TestTheSameSeedPlansTheSameFaultsAndAnotherSeedOthers(t *testing.T) {
	rates := Rates{ResetListPage: 0.2, TruncateList: 0.1, GoneWatch: 0.3, InternalError: 0.1, ResetWatchListBeforeBookmark: 0.4}
	plans := func(seed uint64) []plan {
		p, err := New(Config{Upstream: mustURL(t, "http://127.0.0.1:1"), Seed: seed, Rates: rates})
		if err != nil {
			t.Fatal(err)
		}
		var out []plan
		for i := uint64(0); i < 300; i++ {
			out = append(out, p.planFor(i, []Class{List, Watch, WatchList}[i%3]))
		}
		return out
	}
	a, b, c := plans(42), plans(42), plans(43)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two proxies with seed 42 planned different faults")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 42 and 43 planned the same faults")
	}
	for _, pl := range a {
		if pl.fault != None && !pl.fault.AppliesTo(pl.class) {
			t.Fatalf("planned %v for a %v request", pl.fault, pl.class)
		}
	}
}

func TestFaultsAreDrawnAtTheirConfiguredRates(t *testing.T) {
	rates := Rates{ResetListPage: 0.25, TruncateList: 0.1, TooManyRequests: 0.05, Stall: 0.02}
	p, err := New(Config{Upstream: mustURL(t, "http://127.0.0.1:1"), Seed: 1, Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	got := map[Fault]int{}
	for i := uint64(0); i < n; i++ {
		got[p.planFor(i, List).fault]++
	}
	for f, rate := range rates {
		if frac := float64(got[f]) / n; frac < rate*0.85 || frac > rate*1.15 {
			t.Errorf("%v drawn for %.3f of LIST requests, configured %.3f", f, frac, rate)
		}
	}
	if got[GoneWatch] != 0 {
		t.Errorf("a watch-only fault was drawn for LIST requests")
	}
	// Neighbouring requests are independent too: in every window of 40
	// consecutive requests some meet a fault (rates sum to 0.42 here).
	for start := uint64(0); start < 400; start += 40 {
		faulted := 0
		for i := start; i < start+40; i++ {
			if p.planFor(i, List).fault != None {
				faulted++
			}
		}
		if faulted < 6 || faulted > 30 {
			t.Errorf("requests %d..%d: %d of 40 faulted, want about 17", start, start+39, faulted)
		}
	}
}

func TestRatesThatSumPastOneForAClassAreRejected(t *testing.T) {
	_, err := New(Config{Upstream: mustURL(t, "http://x"), Rates: Rates{ResetWatch: 0.6, GoneWatch: 0.6}})
	if err == nil {
		t.Fatal("rates summing to 1.2 for watches were accepted")
	}
	if _, err := New(Config{Upstream: mustURL(t, "http://x"), Rates: Rates{ResetWatch: 0.6, ResetListPage: 0.6}}); err != nil {
		t.Fatalf("rates of different classes were summed: %v", err)
	}
}

func TestStatusFaultsAnswerWithoutReachingTheServer(t *testing.T) {
	cases := []struct {
		fault      Fault
		code       int
		retryAfter string
	}{
		{TooManyRequests, 429, "3"},
		{InternalError, 500, ""},
		{ServiceUnavailable, 503, ""},
		{GatewayTimeout, 504, ""},
	}
	for _, tc := range cases {
		t.Run(tc.fault.String(), func(t *testing.T) {
			upstream := fakeAPIServer(t)
			p, addr := startProxy(t, upstream, Config{Rates: Rates{tc.fault: 1}, RetryAfter: 3})
			for _, path := range []string{"/api/v1/namespaces/ns/configmaps", "/api/v1/namespaces/ns/configmaps?watch=true"} {
				resp, body := get(t, addr+path)
				if resp.StatusCode != tc.code || resp.Header.Get("Retry-After") != tc.retryAfter {
					t.Errorf("%s: status %d Retry-After %q, want %d %q", path, resp.StatusCode, resp.Header.Get("Retry-After"), tc.code, tc.retryAfter)
				}
				if s := jsonStatus(t, body); s.Code != int32(tc.code) || s.Kind != "Status" {
					t.Errorf("%s: body %+v", path, s)
				}
			}
			if st := p.Stats(); st.Injected[tc.fault] != 2 || st.Failed != 2 || st.TotalInjected() != 2 {
				t.Errorf("stats %+v, want 2 %v injected", st, tc.fault)
			}
		})
	}
}

func TestListBodiesAreCutInTheMiddleOfAnObject(t *testing.T) {
	for _, proto := range []bool{false, true} {
		for _, fault := range []Fault{ResetListPage, TruncateList} {
			t.Run(fault.String()+encoding(proto), func(t *testing.T) {
				p, addr := startProxy(t, fakeAPIServer(t), Config{Rates: Rates{fault: 1}, Seed: 5})
				rc := restClient(t, addr, proto)
				var list v1.ConfigMapList
				err := rc.Get().Namespace("ns").Resource("configmaps").Do(context.Background()).Into(&list)
				if err == nil {
					t.Fatalf("LIST through %v succeeded with %d items", fault, len(list.Items))
				}
				if st := p.Stats(); st.Injected[fault] != 1 {
					t.Errorf("stats %+v, want one %v", st, fault)
				}
				t.Logf("client-go saw: %v", err)
			})
		}
	}
}

func TestARequestThatStallsPastTheClientsTimeoutIsCountedAndEnds(t *testing.T) {
	p, addr := startProxy(t, fakeAPIServer(t), Config{Rates: Rates{Stall: 1}, StallFor: time.Minute})
	client := &http.Client{Timeout: 200 * time.Millisecond}
	resp, err := client.Get(addr + "/api/v1/namespaces/ns/configmaps")
	if err == nil {
		resp.Body.Close()
		t.Fatal("a stalled request answered before the client's timeout")
	}
	waitFor(t, func() bool { return p.Stats().Failed == 1 })
	if st := p.Stats(); st.Injected[Stall] != 1 {
		t.Errorf("stats %+v, want one stall", st)
	}
}

func TestAShortStallDelaysTheRequestAndThenForwardsIt(t *testing.T) {
	p, addr := startProxy(t, fakeAPIServer(t), Config{Rates: Rates{Stall: 1}, StallFor: 50 * time.Millisecond})
	resp, body := get(t, addr+"/api/v1/namespaces/ns/configmaps")
	if resp.StatusCode != 200 || len(body) == 0 {
		t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	if st := p.Stats(); st.Injected[Stall] != 1 || st.Failed != 0 {
		t.Errorf("stats %+v", st)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func get(t *testing.T, u string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func encoding(proto bool) string {
	if proto {
		return "/protobuf"
	}
	return "/json"
}

// waitFor polls cond every 5ms for up to 10s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOverTLSTheProxyForwardsAndResetsConnections(t *testing.T) {
	upstream := fakeAPIServer(t)
	for _, tc := range []struct {
		fault   Fault
		wantErr bool
	}{{None, false}, {ResetListPage, true}} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			p, err := New(Config{Upstream: mustURL(t, upstream.URL), Rates: Rates{tc.fault: 1}})
			if tc.fault == None {
				p, err = New(Config{Upstream: mustURL(t, upstream.URL)})
			}
			if err != nil {
				t.Fatal(err)
			}
			addr := p.Start(true)
			defer p.Close()
			client := p.Server().Client()
			defer client.CloseIdleConnections()
			resp, err := client.Get(addr + "/api/v1/namespaces/ns/configmaps")
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want an error: %v", err, tc.wantErr)
			}
			if got := p.Stats().Injected[tc.fault]; tc.fault != None && got != 1 {
				t.Errorf("%d %v counted, want 1", got, tc.fault)
			}
		})
	}
}

func TestClassRatesReplaceTheRatesForTheirClassOnly(t *testing.T) {
	p, err := New(Config{
		Upstream: mustURL(t, "http://x"), Rates: Rates{InternalError: 1},
		ClassRates: map[Class]Rates{Watch: {GoneWatch: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 20; i++ {
		if f := p.planFor(i, Watch).fault; f != GoneWatch {
			t.Fatalf("watch request %d planned %v, want %v", i, f, GoneWatch)
		}
		if f := p.planFor(i, List).fault; f != InternalError {
			t.Fatalf("list request %d planned %v, want %v", i, f, InternalError)
		}
	}
}

func TestTheSequenceRecordsEveryRequestsClassInOrder(t *testing.T) {
	p, addr := startProxy(t, fakeAPIServer(t), Config{})
	for _, q := range []string{"", "?watch=true&sendInitialEvents=true", "?watch=true", ""} {
		get(t, addr+"/api/v1/namespaces/ns/configmaps"+q)
	}
	if got := p.Stats().Sequence; got != "lswl" {
		t.Errorf("sequence %q, want %q", got, "lswl")
	}
}

func TestAQuiescedProxyPlansNoMoreFaults(t *testing.T) {
	p, err := New(Config{Upstream: mustURL(t, "http://x"), Rates: Rates{InternalError: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if f := p.planFor(0, List).fault; f != InternalError {
		t.Fatalf("planned %v before Quiesce", f)
	}
	p.Quiesce()
	if f := p.planFor(1, List).fault; f != None {
		t.Fatalf("planned %v after Quiesce", f)
	}
}

func TestAProxyQuiescedFromAnIndexStillFaultsTheRequestsBeforeIt(t *testing.T) {
	p, err := New(Config{Upstream: mustURL(t, "http://x"), Rates: Rates{InternalError: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.QuiesceFrom(Progress{3, 3, 3, 3})
	for index, want := range []Fault{InternalError, InternalError, InternalError, None, None} {
		if f := p.planFor(uint64(index), List).fault; f != want {
			t.Errorf("request %d planned %v after QuiesceFrom(3), want %v", index, f, want)
		}
	}
	if n := p.Progress(); n != (Progress{}) {
		t.Errorf("Progress() = %v before any request, want zeros", n)
	}
}

func TestWithIndexPerClassTheKthRequestOfAClassDrawsTheSameFaultWhateverCameBetween(t *testing.T) {
	newProxy := func() *Proxy {
		p, err := New(Config{Upstream: mustURL(t, "http://x"), Seed: 7, IndexPerClass: true,
			Rates: Rates{InternalError: 0.3, ServiceUnavailable: 0.3}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// a makes watches between its lists, b none; their lists still pair up.
	a, b := newProxy(), newProxy()
	var aLists, bLists []plan
	for i := 0; i < 40; i++ {
		c := []Class{List, Watch, Watch, WatchList}[i%4]
		index, drawn := a.draw(c)
		if index != uint64(i) {
			t.Fatalf("request %d got overall index %d", i, index)
		}
		if c == List {
			aLists = append(aLists, a.planFor(drawn, c))
		}
	}
	for range aLists {
		_, drawn := b.draw(List)
		bLists = append(bLists, b.planFor(drawn, List))
	}
	faulted := 0
	for k := range aLists {
		if aLists[k].fault != bLists[k].fault || aLists[k].at != bLists[k].at {
			t.Errorf("list %d: %v@%d with watches between, %v@%d without", k, aLists[k].fault, aLists[k].at, bLists[k].fault, bLists[k].at)
		}
		if aLists[k].fault != None {
			faulted++
		}
	}
	if faulted == 0 || faulted == len(aLists) {
		t.Errorf("%d of %d lists faulted: the draws do not vary", faulted, len(aLists))
	}
	if got, want := a.Progress(), (Progress{List: 10, Watch: 20, WatchList: 10}); got != want {
		t.Errorf("Progress() = %v, want %v", got, want)
	}
	if got := a.Progress().Max(b.Progress()); got != (Progress{List: 10, Watch: 20, WatchList: 10}) {
		t.Errorf("Max = %v", got)
	}
}
