package switcher

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
)

// report gathers the final plans' report lines, file by file.
func (v *verifier) report() *Report {
	r := &Report{}
	for _, path := range v.order {
		r.NotSwitched = append(r.NotSwitched, v.reasons[path]...)
		p := v.plans[path]
		if p == nil {
			continue
		}
		notes, manual := append([]Entry(nil), p.notes...), append([]Entry(nil), p.manual...)
		sortEntries(notes)
		sortEntries(manual)
		r.NotSwitched = append(r.NotSwitched, notes...)
		r.Manual = append(r.Manual, manual...)
		if src, ok := v.rendered[p]; ok && string(src) != string(p.file.Src) {
			changes := append([]Entry(nil), p.changes...)
			sortEntries(changes)
			r.Changes = append(r.Changes, changes...)
			r.Files = append(r.Files, p.file.Rel)
		}
	}
	return r
}

// written returns the new content of every file that changes, by path.
func (v *verifier) written() map[string][]byte {
	out := map[string][]byte{}
	for path, p := range v.plans {
		if src, ok := v.rendered[p]; ok && string(src) != string(p.file.Src) {
			out[path] = src
		}
	}
	return out
}

// ignoredNotes names the module's files the build constraints left out of
// the run that import a package a rule reads from.
func (v *verifier) ignoredNotes(files []string) []Entry {
	var out []Entry
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range parsed.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if _, ok := v.rs.imports[path]; ok || v.rs.fromPackage(path) {
				rel, _ := filepath.Rel(v.root, f)
				text := "not examined: excluded by the build constraints of this run (rerun with -tags)"
				if v.tagged != nil && v.tagged.files[f] {
					text = fmt.Sprintf("not rewritten: excluded by the build constraints of this run; the rewrite was type-checked with -tags=%s too (rerun with -tags=%s to switch it)", v.tagged.tags, v.tagged.tags)
				}
				out = append(out, Entry{File: filepath.ToSlash(rel), Text: text})
				break
			}
		}
	}
	return out
}
