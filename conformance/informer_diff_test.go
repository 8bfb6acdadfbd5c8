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

// informerTraceDiff renders how got, kcache's trace, differs from want,
// client-go's: want and got are the same struct type; each []string field
// that differs is written as a part (named by the field, in lower case)
// with informerDiffTwoLines rows, and each int field that differs as one
// line with both counts. Equal traces render as "".
func informerTraceDiff(want, got any) string {
	var b strings.Builder
	w, g := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := 0; i < w.NumField(); i++ {
		name := strings.ToLower(w.Type().Field(i).Name)
		switch wf, gf := w.Field(i), g.Field(i); wf.Kind() {
		case reflect.Slice:
			informerDiffPart(&b, informerDiffTwoLines, name, wf.Interface().([]string), gf.Interface().([]string))
		case reflect.Int:
			if wf.Int() != gf.Int() {
				fmt.Fprintf(&b, "%s: client-go %d, kcache %d\n", name, wf.Int(), gf.Int())
			}
		}
	}
	return b.String()
}
