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
	for _, p := range linePairs(want, got) {
		mark := "  "
		if p.want != p.got {
			mark = "!!"
		}
		fmt.Fprintf(b, format, mark, p.want, p.got)
	}
}
