package realisticpods

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestTheRenderedPodsAreTheBytesTheBenchmarksHadBeforeTheMove pins the
// bytes the generator renders: the hashes were taken from the generator
// when it still lived in benchmarks/ (as test code), so the in-process
// benchmarks measure the same pods as before, and any change to the
// templates or the generator shows here.
func TestTheRenderedPodsAreTheBytesTheBenchmarksHadBeforeTheMove(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{400, "a0db5773dc2ba7bf5946d3f20e8b749c87d1b24d4e56e608364bc15e41dbd324"},
		{10_000, "d951a3c7b5733043b7774cf864b7280787859a74471159b8254dffc005c0c7ef"},
		{50_000, "30dea2849843336fbe5c499f28f1c0391a5ecac985893d4c2cd76447181c18bf"},
	}
	for _, tt := range tests {
		g := newTestGenerator(t, tt.n, Seed)
		h := sha256.New()
		h.Write(g.AppendList(nil, 0, 400, g.ListResourceVersion(), "next"))
		for _, i := range []int{0, 50, 150, 399, tt.n - 1} {
			h.Write(g.AppendPod(nil, i, true))
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("n=%d: rendered bytes hash %s, want %s", tt.n, got, tt.want)
		}
	}
}
