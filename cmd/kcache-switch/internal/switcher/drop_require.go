package switcher

import (
	"fmt"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// dropRequire (-revert -require=none) drops kcache's require and replace
// from the temporary go.mod once no file of the reverted module imports a
// kcache package, and checks that the module still type-checks without
// them. When a file still imports kcache, go.mod keeps them and the report
// says which file.
func (v *verifier) dropRequire(m *modSetup, _ *loadResult) error {
	written := v.written()
	for _, path := range v.order {
		sf := v.files[path]
		if sf == nil {
			continue
		}
		src := sf.Src
		if w, ok := written[path]; ok {
			src = w
		}
		if imp := kcacheImport(path, src); imp != "" {
			v.reasons[path] = append(v.reasons[path], Entry{File: sf.Rel, Text: fmt.Sprintf("go.mod keeps %s: this file still imports %q", kcachePath, imp)})
			return nil
		}
	}
	if err := m.dropKcache(); err != nil {
		return err
	}
	overlay, err := v.overlay()
	if err != nil {
		return err
	}
	res, err := v.g.load(v.patterns, overlay)
	if err != nil {
		return err
	}
	if bad := v.newErrors(res); len(bad) > 0 {
		return fmt.Errorf("without %s in go.mod the module does not type-check: %s", kcachePath, v.relative(firstError(bad)))
	}
	return nil
}

// kcacheImport returns the first kcache package src imports, or "".
func kcacheImport(path string, src []byte) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
	if err != nil {
		return ""
	}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		if p == kcachePath || strings.HasPrefix(p, kcachePath+"/") {
			return p
		}
	}
	return ""
}
