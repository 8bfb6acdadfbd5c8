package switcher

import (
	"bytes"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"sort"

	"golang.org/x/tools/go/ast/astutil"
)

// render returns the file's content after the plan: the source edits,
// then the imports dropped and added (with astutil, as goimports does),
// gofmt'ed.
func render(p *filePlan) ([]byte, error) {
	src, err := applyEdits(p.file.Src, p.edits)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.file.Rel, err)
	}
	if len(p.add) > 0 || len(p.drop) > 0 {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p.file.Path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("%s: the rewrite does not parse: %w", p.file.Rel, err)
		}
		for _, d := range p.drop {
			if !astutil.DeleteNamedImport(fset, f, d.Name, d.Path) {
				return nil, fmt.Errorf("%s: cannot remove import %q", p.file.Rel, d.Path)
			}
		}
		for _, a := range p.add {
			astutil.AddNamedImport(fset, f, a.Name, a.Path)
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, f); err != nil {
			return nil, fmt.Errorf("%s: %w", p.file.Rel, err)
		}
		src = buf.Bytes()
	}
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("%s: the rewrite does not parse: %w", p.file.Rel, err)
	}
	return out, nil
}

// applyEdits applies non-overlapping edits to src.
func applyEdits(src []byte, edits []edit) ([]byte, error) {
	sorted := append([]edit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out bytes.Buffer
	last := 0
	for _, e := range sorted {
		if e.Start < last || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("overlapping edits at byte %d", e.Start)
		}
		out.Write(src[last:e.Start])
		out.WriteString(e.Text)
		last = e.End
	}
	out.Write(src[last:])
	return out.Bytes(), nil
}
