package conformance

import (
	"fmt"
	"reflect"
	"strings"
)

// The row formats of informerDiffPart: each takes the mark ("!!" where the
// lines differ), client-go's line and kcache's, by index.
const (
	informerDiffTwoLines = "  %[1]s client-go %[2]q\n  %[1]s kcache    %[3]q\n"
	informerDiffOneLine  = "  %[1]s client-go %-50[2]q kcache %[3]q\n"
)

// informerDiffPart writes to b, when want's and got's lines of the named
// part differ, the part's name and every line pair in the row format.
func informerDiffPart(b *strings.Builder, format, name string, want, got []string) {
	if reflect.DeepEqual(want, got) {
		return
	}
	fmt.Fprintf(b, "%s:\n", name)
	for i := 0; i < max(len(want), len(got)); i++ {
		var wl, gl string
		if i < len(want) {
			wl = want[i]
		}
		if i < len(got) {
			gl = got[i]
		}
		mark := "  "
		if wl != gl {
			mark = "!!"
		}
		fmt.Fprintf(b, format, mark, wl, gl)
	}
}
