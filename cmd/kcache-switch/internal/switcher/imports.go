package switcher

import (
	"fmt"
	"sort"
	"strconv"
)

// planImportSwitch moves every import of a whole-import rule to its
// target package, keeping the name the file refers to it by.
func (st *fileState) planImportSwitch() {
	for _, ii := range st.imports {
		to, ok := st.rs.imports[ii.path]
		if !ok {
			continue
		}
		target := st.rs.targets[to]
		if target == nil {
			st.note(ii.spec.Pos(), fmt.Sprintf("import %q stays: %s", ii.path, st.rs.noPackage(to)))
			continue
		}
		text := strconv.Quote(to)
		if ii.spec.Name == nil && ii.obj != nil && ii.obj.Imported().Name() != target.Name() {
			text = ii.obj.Imported().Name() + " " + text
		}
		ii.newPath = to
		st.plan.switched = true
		st.replace(ii.spec.Path.Pos(), ii.spec.Path.End(), text)
		st.change(ii.spec.Pos(), fmt.Sprintf("import %q → %q", ii.path, to))
	}
}

// nameFor returns the name by which the file refers to the package at
// path: the name of an import it has (after the switch) or will have, or
// else the first of aliases that no declaration or import of the file or
// package takes, which is then imported.
func (st *fileState) nameFor(path string, aliases []string) string {
	for _, ii := range st.imports {
		if ii.newPath == path && ii.name != "" && ii.name != "_" {
			return ii.name
		}
	}
	if a := st.added[path]; a != nil {
		return a.Name
	}
	name := ""
	for i := 0; name == ""; i++ {
		for _, a := range aliases {
			if i > 0 {
				a = fmt.Sprintf("%s%d", a, i+1)
			}
			if !st.taken[a] {
				name = a
				break
			}
		}
	}
	st.taken[name] = true
	st.added[path] = &importChange{Name: name, Path: path}
	return name
}

// planImportSet drops the imports whose every reference the plan rewrote
// (issue 31: a factory constructor that was a file's only use of
// k8s.io/client-go/informers) and adds the imports the rewrites need, in
// a stable order.
func (st *fileState) planImportSet() {
	for _, ii := range st.imports {
		if ii.obj == nil || ii.uses == 0 || ii.rewritten < ii.uses || ii.newPath != ii.path {
			continue
		}
		name := ""
		if ii.spec.Name != nil {
			name = ii.spec.Name.Name
		}
		st.plan.drop = append(st.plan.drop, importChange{Name: name, Path: ii.path})
		st.change(ii.spec.Pos(), fmt.Sprintf("import %q removed (no use left)", ii.path))
	}
	for _, path := range sortedKeys(st.added) {
		a := *st.added[path]
		if target := st.rs.targets[path]; target != nil && target.Name() == a.Name {
			a.Name = ""
		}
		st.plan.add = append(st.plan.add, a)
		label := fmt.Sprintf("import %q added", path)
		if a.Name != "" {
			label = fmt.Sprintf("import %s %q added", a.Name, path)
		}
		st.plan.changes = append(st.plan.changes, Entry{File: st.sf.Rel, Text: label})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
