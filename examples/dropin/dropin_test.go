package dropin_test

//go:generate sh -c "sed -e 's#\"k8s.io/client-go/tools/cache/testing\"#\"github.com/kcache-go/cache/testing\"#' -e 's#\"k8s.io/client-go/tools/cache\"#\"github.com/kcache-go/cache\"#' upstream/program.go > kcache/program.go"

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	kcache "github.com/kcache-go/cache/examples/dropin/kcache"
	clientgo "github.com/kcache-go/cache/examples/dropin/upstream"
)

// importRewrites are the only edits allowed between the two program copies.
var importRewrites = []struct{ from, to string }{
	{`"k8s.io/client-go/tools/cache/testing"`, `"github.com/kcache-go/cache/testing"`},
	{`"k8s.io/client-go/tools/cache"`, `"github.com/kcache-go/cache"`},
}

func TestKcacheProgramIsTheClientGoProgramWithOnlyImportsChanged(t *testing.T) {
	clientgoSrc, err := os.ReadFile("upstream/program.go")
	if err != nil {
		t.Fatal(err)
	}
	kcacheSrc, err := os.ReadFile("kcache/program.go")
	if err != nil {
		t.Fatal(err)
	}
	rewritten := clientgoSrc
	for _, r := range importRewrites {
		if !bytes.Contains(rewritten, []byte(r.from)) {
			t.Fatalf("client-go program does not import %s", r.from)
		}
		rewritten = bytes.ReplaceAll(rewritten, []byte(r.from), []byte(r.to))
	}
	if !bytes.Equal(rewritten, kcacheSrc) {
		t.Fatalf("kcache/program.go differs from upstream/program.go beyond the import lines; run `go generate ./examples/dropin`")
	}
}

func TestBothProgramsWriteTheSameTranscript(t *testing.T) {
	defer goleak.VerifyNone(t)

	var fromClientGo, fromKcache bytes.Buffer
	if err := clientgo.Run(&fromClientGo); err != nil {
		t.Fatalf("client-go program: %v\ntranscript so far:\n%s", err, fromClientGo.String())
	}
	if err := kcache.Run(&fromKcache); err != nil {
		t.Fatalf("kcache program: %v\ntranscript so far:\n%s", err, fromKcache.String())
	}
	want, got := fromClientGo.String(), fromKcache.String()
	if got != want {
		t.Errorf("transcripts differ\n%s", lineDiff(want, got))
	}

	for _, line := range []string{
		"== informer",
		"synced: informer=true all=true frontend=true",
		"handler all default/web-1: add default/web-1[rv=1 tier=frontend node=node-a phase=Running] initial=true",
		"handler all kube-system/dns: delete kube-system/dns",
		"handler all default/web-2: delete (final state unknown) key=default/web-2",
		"handler frontend default/db-1: add default/db-1",
		"handler frontend default/web-1: delete default/web-1",
		"handler all default/web-3: add default/web-3",
		"deltafifo pop default/known-2",
		"DeletedFinalStateUnknown{default/known-2",
		"realfifo pop default/b",
		"lister ByNamespace(default).Get(nope) err=pods \"nope\" not found",
		"informer stopped=true",
	} {
		if !strings.Contains(want, line) {
			t.Errorf("transcript lacks %q", line)
		}
	}
	if strings.Contains(want, "handler frontend default/web-3") {
		t.Errorf("removed frontend handler still got web-3")
	}
	if testing.Verbose() {
		t.Logf("transcript:\n%s", want)
	}
}

// lineDiff lists the lines where the two transcripts disagree.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d\n  client-go: %s\n  kcache:    %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
