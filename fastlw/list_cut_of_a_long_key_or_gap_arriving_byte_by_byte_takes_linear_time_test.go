package fastlw

import (
	"strings"
	"testing"
)

// TestALongKeyOrGapArrivingByteByByteIsCutInLinearTime cuts pages whose
// key, or whose whitespace between a key and its colon, is just under
// maxListGap, fed one byte per read (a server trickling its answer): each
// must be cut as the whole page is split. A cut that looks at the pending
// bytes again on every byte takes time quadratic in their length (16 kB:
// 180 ms, 1 MiB: about 13 minutes on the reviewer's machine), so the test
// binary's timeout fails it; a linear one takes a fraction of a second.
func TestALongKeyOrGapArrivingByteByByteIsCutInLinearTime(t *testing.T) {
	n := maxListGap - 100
	pages := []string{
		`{"kind":"L","` + strings.Repeat("k", n) + `":1,"items":[1]}`,
		`{"kind":"L","k"` + strings.Repeat(" ", n) + `:1,"items":[1]}`,
		`{"kind":"L","k":1,"items":[1` + strings.Repeat("\t", n) + `,2]}`,
	}
	for _, page := range pages {
		requireCutIsTheSplit(t, []byte(page), 1)
	}
}
