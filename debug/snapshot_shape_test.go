package debug

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kcache-go/cache/status"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/snapshot.json")

// TestTheJSONShapeIsStable pins every field name of ?format=json, so that a
// tool reading it does not break silently: a snapshot with every field set
// (and one with every optional field empty) must encode as
// testdata/snapshot.json.
func TestTheJSONShapeIsStable(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	snaps := []Snapshot{
		{GeneratedAt: at, Informers: []Informer{{
			ID: 7, Name: "pods", Group: "", Version: "v1", Resource: "pods", ObjectType: "*v1.Pod",
			Started: true, HasSynced: true, Objects: 3, Indices: []Index{{Name: "namespace", Values: 1}},
			LastSyncResourceVersion: "42",
			Reflector: Reflector{Name: "r", Lists: 2, WatchLists: 1, Watches: 3, Relists: 1,
				RelistsByCause: map[string]int64{"expired": 1}, LastSyncTime: &at, LastError: "gone", LastErrorTime: &at},
			Handlers: []EventHandler{{Name: "h", Backlog: 4, Delivered: 5, SlowestDeliverySeconds: 0.25, HasSynced: true}},
		}}},
		{GeneratedAt: at, Informers: []Informer{informerOf(zeroStatus())}},
		{GeneratedAt: at, Informers: []Informer{}},
	}
	got, err := json.MarshalIndent(snaps, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "snapshot.json")
	if *updateGolden {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(append(got, '\n')) != string(want) {
		t.Errorf("the JSON shape changed:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

// zeroStatus is the status of an informer never started, without an
// Identifier, indices or handlers.
func zeroStatus() status.Informer { return status.Informer{ID: 1, ObjectType: "*v1.Pod"} }
