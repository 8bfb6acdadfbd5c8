package switcher

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Plan levels of a hand-written file: levelImport switches whole imports
// (client-go's tools/cache → kcache) and applies the call and option
// rules; levelCalls keeps the imports and applies only the call and option
// rules; levelNone leaves the file as it is. The verification falls a
// file one level at a time.
const (
	levelImport = iota
	levelCalls
	levelNone
)

// edit replaces Src[Start:End] of a file with Text.
type edit struct {
	Start, End int
	Text       string
}

// importChange is one import added to or dropped from a file.
type importChange struct {
	Name, Path string
}

// filePlan is the rewrite of one file at one level: its source edits, the
// imports it adds and drops, and its report lines.
type filePlan struct {
	file     *srcFile
	level    int
	edits    []edit
	add      []importChange
	drop     []importChange
	changes  []Entry
	notes    []Entry
	manual   []Entry
	switched bool // a whole import is switched (the hazard checks look at it)
}

// empty tells whether the plan changes nothing.
func (p *filePlan) empty() bool {
	return len(p.edits) == 0 && len(p.add) == 0 && len(p.drop) == 0
}

// importInfo is one import spec of a file and what the plan does to it.
type importInfo struct {
	spec      *ast.ImportSpec
	name      string // the name the file refers to it by; "" for blank and dot imports
	path      string
	newPath   string // after a whole-import switch; path otherwise
	obj       *types.PkgName
	uses      int // references in the file
	rewritten int // references the plan rewrites or removes
}

// fileState is the planning state of one file. It is used by one goroutine.
type fileState struct {
	sf      *srcFile
	rs      *ruleset
	info    *types.Info
	tf      *token.File
	plan    *filePlan
	imports []*importInfo
	byObj   map[*types.PkgName]*importInfo
	added   map[string]*importChange
	taken   map[string]bool
	covered [][2]token.Pos         // source ranges removed by the option rules
	wrapped map[*ast.CallExpr]bool // calls already inside a wrap rule's Wrap
}

// planFile plans the rewrite of sf at level; nil when sf is a generated
// file of another generator than informer-gen, which is never touched.
func planFile(sf *srcFile, rs *ruleset, level int) *filePlan {
	informerGen := sf.Generator == "informer-gen"
	if sf.Generator != "" && !informerGen {
		return nil
	}
	st := newFileState(sf, rs, level)
	if level == levelImport && !informerGen {
		st.planImportSwitch()
	}
	if level != levelNone {
		if !informerGen {
			st.planOptions()
			st.planManual()
		}
		st.planCalls()
		st.planImportSet()
	}
	return st.plan
}

func newFileState(sf *srcFile, rs *ruleset, level int) *fileState {
	st := &fileState{
		sf: sf, rs: rs, info: sf.Pkg.TypesInfo, tf: sf.Pkg.Fset.File(sf.AST.Pos()),
		plan:  &filePlan{file: sf, level: level},
		byObj: map[*types.PkgName]*importInfo{}, added: map[string]*importChange{}, taken: map[string]bool{},
		wrapped: map[*ast.CallExpr]bool{},
	}
	for _, spec := range sf.AST.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		ii := &importInfo{spec: spec, path: path, newPath: path}
		var obj types.Object
		if spec.Name != nil {
			obj = st.info.Defs[spec.Name]
		} else {
			obj = st.info.Implicits[spec]
		}
		if pn, ok := obj.(*types.PkgName); ok && (spec.Name == nil || spec.Name.Name != ".") {
			ii.obj, ii.name = pn, pn.Name()
			st.byObj[pn] = ii
			st.taken[ii.name] = true
		}
		st.imports = append(st.imports, ii)
	}
	for id, obj := range st.info.Uses {
		if pn, ok := obj.(*types.PkgName); ok && st.inFile(id.Pos()) && st.byObj[pn] != nil {
			st.byObj[pn].uses++
		}
	}
	for id, obj := range st.info.Defs {
		if obj != nil && st.inFile(id.Pos()) {
			st.taken[id.Name] = true
		}
	}
	for _, n := range sf.Pkg.Types.Scope().Names() {
		st.taken[n] = true
	}
	return st
}

func (st *fileState) inFile(pos token.Pos) bool {
	return pos >= st.sf.AST.FileStart && pos < st.sf.AST.FileEnd
}

func (st *fileState) offset(pos token.Pos) int { return st.tf.Offset(pos) }

func (st *fileState) line(pos token.Pos) int { return st.tf.Line(pos) }

func (st *fileState) change(pos token.Pos, text string) {
	st.plan.changes = append(st.plan.changes, Entry{File: st.sf.Rel, Line: st.line(pos), Text: text})
}

func (st *fileState) note(pos token.Pos, text string) {
	line := 0
	if pos.IsValid() {
		line = st.line(pos)
	}
	st.plan.notes = append(st.plan.notes, Entry{File: st.sf.Rel, Line: line, Text: text})
}

func (st *fileState) replace(from, to token.Pos, text string) {
	st.plan.edits = append(st.plan.edits, edit{Start: st.offset(from), End: st.offset(to), Text: text})
}

// isCovered tells whether pos lies in a range an option rule removes.
func (st *fileState) isCovered(pos token.Pos) bool {
	for _, r := range st.covered {
		if pos >= r[0] && pos < r[1] {
			return true
		}
	}
	return false
}

// pkgNameOf returns the import a selector's left side names, if it names one.
func (st *fileState) pkgNameOf(sel *ast.SelectorExpr) *importInfo {
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil
	}
	pn, ok := st.info.Uses[id].(*types.PkgName)
	if !ok {
		return nil
	}
	return st.byObj[pn]
}
