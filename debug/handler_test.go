package debug

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	cache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/obstest"
	"github.com/kcache-go/cache/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	counterName = "github.com/kcache-go/cache/internal/obstest.Counter"
	gateName    = "github.com/kcache-go/cache/internal/obstest.Gate"
)

// get fetches path from the handler and returns the response and its body.
func get(t *testing.T, method, query string) (*http.Response, string) {
	t.Helper()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	req, _ := http.NewRequest(method, srv.URL+"/debug/kcache"+query, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// fetchInformer decodes ?format=json and returns the informer called name.
func fetchInformer(t *testing.T, name string) (Informer, string) {
	t.Helper()
	resp, body := get(t, http.MethodGet, "?format=json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	var snap Snapshot
	if err := json.Unmarshal([]byte(body), &snap); err != nil {
		t.Fatalf("the JSON does not decode: %v\n%s", err, body)
	}
	for _, inf := range snap.Informers {
		if inf.Name == name {
			return inf, body
		}
	}
	t.Fatalf("informer %q is not on the page:\n%s", name, body)
	return Informer{}, ""
}

// handlerOf returns the handler called name of inf.
func handlerOf(t *testing.T, inf Informer, name string) EventHandler {
	t.Helper()
	for _, h := range inf.Handlers {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("informer %q has no handler %q: %+v", inf.Name, name, inf.Handlers)
	return EventHandler{}
}

// testInformer is a running informer over a scripted source with a counting
// and a gated handler; it is stopped (gate opened first) by t.Cleanup.
type testInformer struct {
	src      *obstest.Source
	informer cache.SharedIndexInformer
	counter  *obstest.Counter
	gate     *obstest.Gate
	regs     []cache.ResourceEventHandlerRegistration
	stop     func()
}

// startInformer starts a named informer over three pods in one namespace,
// indexed by namespace and by label "app" (two values).
func startInformer(t *testing.T, informerName string) *testInformer {
	name, err := cache.NewInformerName(informerName)
	if err != nil {
		t.Fatal(err)
	}
	ti := &testInformer{src: obstest.NewSource("ns", 3), counter: &obstest.Counter{}, gate: obstest.NewGate()}
	ti.informer = cache.NewSharedIndexInformerWithOptions(ti.src, &v1.Pod{}, cache.SharedIndexInformerOptions{
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "app": func(obj interface{}) ([]string, error) {
			return []string{obj.(*v1.Pod).Labels["app"]}, nil
		}},
		Identifier: name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
	})
	for _, h := range []cache.ResourceEventHandler{ti.counter, ti.gate} {
		reg, err := ti.informer.AddEventHandler(h)
		if err != nil {
			t.Fatal(err)
		}
		ti.regs = append(ti.regs, reg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { ti.informer.RunWithContext(ctx) })
	ti.stop = sync.OnceFunc(func() { ti.gate.Open(); cancel(); wg.Wait(); name.Release() })
	t.Cleanup(ti.stop)
	return ti
}

// caughtUp reports whether every handler has synced and has no backlog.
func (ti *testInformer) caughtUp() bool {
	for _, reg := range ti.regs {
		if !reg.HasSynced() || reg.(interface{ KcachePendingNotifications() int }).KcachePendingNotifications() != 0 {
			return false
		}
	}
	return true
}

func TestTheJSONSnapshotShowsAGatedHandlersBacklogAndTheOthersDeliveries(t *testing.T) {
	ti := startInformer(t, "debug-backlog")
	ti.src.NextWatch(t)
	obstest.Eventually(t, "the informer synced and the counter got the initial list", func() bool {
		return ti.informer.HasSynced() && ti.counter.Count() == 3 && ti.regs[0].HasSynced()
	})
	inf, _ := fetchInformer(t, "debug-backlog")
	if !inf.Started || !inf.HasSynced || inf.Objects != 3 {
		t.Errorf("started=%v hasSynced=%v objects=%d, want a started, synced informer with 3 objects", inf.Started, inf.HasSynced, inf.Objects)
	}
	if c := handlerOf(t, inf, counterName); c.Backlog != 0 || c.Delivered != 3 || !c.HasSynced {
		t.Errorf("counter handler %+v, want backlog 0, 3 delivered, synced", c)
	}
	if g := handlerOf(t, inf, gateName); g.Backlog != 3 || g.Delivered != 0 || g.HasSynced {
		t.Errorf("gated handler %+v, want backlog 3 (one in delivery, two queued), none delivered, not synced", g)
	}
}

func TestTheJSONSnapshotMatchesTheInformersStateAfterARelist(t *testing.T) {
	start := time.Now()
	ti := startInformer(t, "debug-relist")
	w := ti.src.NextWatch(t)
	ti.gate.Open()
	ti.src.Relabel(w, 0)
	obstest.Expire(w)
	w = ti.src.NextWatch(t)
	rv := ti.src.Relabel(w, 1)
	obstest.Eventually(t, "the informer reached "+rv+" and the handlers caught up", func() bool {
		return ti.informer.LastSyncResourceVersion() == rv && ti.caughtUp()
	})
	inf, body := fetchInformer(t, "debug-relist")

	if inf.Resource != "pods" || inf.Version != "v1" || inf.Group != "" || inf.ObjectType != "*v1.Pod" {
		t.Errorf("identity %s/%s/%s %s, want pods.v1 *v1.Pod", inf.Group, inf.Version, inf.Resource, inf.ObjectType)
	}
	if inf.Objects != len(ti.informer.GetStore().ListKeys()) || inf.LastSyncResourceVersion != ti.informer.LastSyncResourceVersion() {
		t.Errorf("objects %d at %q, the informer has %d at %q", inf.Objects, inf.LastSyncResourceVersion,
			len(ti.informer.GetStore().ListKeys()), ti.informer.LastSyncResourceVersion())
	}
	wantIndices := []Index{{Name: "app", Values: 2}, {Name: cache.NamespaceIndex, Values: 1}}
	if len(inf.Indices) != 2 || inf.Indices[0] != wantIndices[0] || inf.Indices[1] != wantIndices[1] {
		t.Errorf("indices %+v, want %+v", inf.Indices, wantIndices)
	}
	r := inf.Reflector
	if r.Name == "" || r.Lists != 2 || r.WatchLists != 0 || r.Watches != 1 || r.Relists != 1 || r.RelistsByCause[status.RelistCauseExpired] != 1 {
		t.Errorf("reflector %+v, want 2 lists, 1 finished watch, 1 relist caused by an expired resource version", r)
	}
	if !strings.Contains(r.LastError, "too old resource version") || r.LastErrorTime == nil || r.LastErrorTime.Before(start) {
		t.Errorf("last error %q at %v, want the 410 of this run", r.LastError, r.LastErrorTime)
	}
	if r.LastSyncTime == nil || r.LastSyncTime.Before(*r.LastErrorTime) {
		t.Errorf("last sync %v, want the relist after the error at %v", r.LastSyncTime, r.LastErrorTime)
	}
	for _, c := range []struct {
		name  string
		count int
	}{{counterName, ti.counter.Count()}, {gateName, ti.gate.Count()}} {
		h := handlerOf(t, inf, c.name)
		if h.Delivered != int64(c.count) || h.Backlog != 0 || !h.HasSynced || h.SlowestDeliverySeconds <= 0 {
			t.Errorf("handler %+v, it counted %d notifications; want them all delivered, no backlog, synced, a slowest delivery", h, c.count)
		}
	}
	for _, content := range []string{"pod-0", "app-1", `"gen"`} {
		if strings.Contains(body, content) {
			t.Errorf("the JSON reveals object contents (%q):\n%s", content, body)
		}
	}
}

func TestTheHTMLPageIsSelfContainedReadOnlyAndReloadsItself(t *testing.T) {
	ti := startInformer(t, "debug-html")
	ti.src.NextWatch(t)
	resp, body := get(t, http.MethodGet, "")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type %q, want text/html", ct)
	}
	for _, want := range []string{`<meta http-equiv="refresh" content="2">`, `data-name="debug-html"`, `data-handler="` + counterName + `"`, `data-handler="` + gateName + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, external := range []string{"<script", "src=", "http://", "https://", "<link"} {
		if strings.Contains(body, external) {
			t.Errorf("the page is not self-contained: it has %q", external)
		}
	}
	if _, body := get(t, http.MethodGet, "?refresh=0"); strings.Contains(body, `http-equiv="refresh"`) {
		t.Error("?refresh=0 still reloads")
	}
	if resp, _ := get(t, http.MethodPost, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST answered %d, want 405", resp.StatusCode)
	}
	if resp, _ := get(t, http.MethodGet, "?format=xml"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("?format=xml answered %d, want 400", resp.StatusCode)
	}
}

// listed reports whether an informer called name is on the page.
func listed(name string) bool {
	for _, inf := range Take().Informers {
		if inf.Name == name {
			return true
		}
	}
	return false
}

func TestAStoppedInformerLeavesThePage(t *testing.T) {
	ti := startInformer(t, "debug-stopped")
	ti.src.NextWatch(t)
	if !listed("debug-stopped") {
		t.Fatal("the running informer is not listed")
	}
	ti.stop()
	if listed("debug-stopped") {
		t.Fatal("the stopped informer is still listed")
	}
}

func TestTheRegistryDoesNotKeepAnUnreachableInformerAlive(t *testing.T) {
	name, err := cache.NewInformerName("debug-unreachable")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	func() {
		informer := cache.NewSharedIndexInformerWithOptions(obstest.NewSource("ns", 1), &v1.Pod{}, cache.SharedIndexInformerOptions{
			Identifier: name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
		})
		if _, err := informer.AddEventHandler(&obstest.Counter{}); err != nil {
			t.Fatal(err)
		}
		if !listed("debug-unreachable") {
			t.Fatal("the informer is not listed while reachable")
		}
	}()
	obstest.Eventually(t, "the unreachable informer was collected and left the page", func() bool {
		runtime.GC()
		return !listed("debug-unreachable")
	})
}
