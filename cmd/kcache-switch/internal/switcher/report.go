package switcher

import (
	"fmt"
	"io"
	"sort"
)

// Entry is one line of the report: a file (relative to the module root,
// slash-separated; "" for the module as a whole), a line (0 for the whole
// file) and what happened there.
type Entry struct {
	File string
	Line int
	Text string
}

func (e Entry) String() string {
	switch {
	case e.File == "":
		return e.Text
	case e.Line == 0:
		return e.File + ": " + e.Text
	default:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Text)
	}
}

// Report is what a run did and did not do. Changes lists every rewrite
// written (or, with -dry-run, that would be); NotSwitched every use of
// client-go's informer machinery left as it is, with the reason; Manual the
// lines the user has to add by hand; GoMod the go.mod and go.sum edits.
type Report struct {
	Changes     []Entry
	NotSwitched []Entry
	Manual      []Entry
	GoMod       []string
	// Files lists the files (relative) whose content changes.
	Files   []string
	DryRun  bool
	Written bool
}

func sortEntries(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].File != es[j].File {
			return es[i].File < es[j].File
		}
		return es[i].Line < es[j].Line
	})
}

// Print writes the report in its stable text form.
func (r *Report) Print(w io.Writer) {
	switch {
	case r.DryRun:
		fmt.Fprintf(w, "kcache-switch: dry run, %d files would change, nothing written\n", len(r.Files))
	case r.Written:
		fmt.Fprintf(w, "kcache-switch: %d files changed\n", len(r.Files))
	default:
		fmt.Fprintf(w, "kcache-switch: nothing to change\n")
	}
	section(w, "changed", r.Changes)
	section(w, "not switched", r.NotSwitched)
	section(w, "to add by hand", r.Manual)
	if len(r.GoMod) > 0 {
		fmt.Fprintln(w, "go.mod:")
		for _, l := range r.GoMod {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

func section(w io.Writer, title string, es []Entry) {
	if len(es) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, e := range es {
		fmt.Fprintf(w, "  %s\n", e)
	}
}
