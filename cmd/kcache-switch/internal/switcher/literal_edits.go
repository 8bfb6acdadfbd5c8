package switcher

import (
	"bytes"
	"go/ast"
	"go/token"
)

// insertElt adds the element text at the end of lit: on a line of its own
// in a literal written over several lines, after the last element
// otherwise (gofmt settles the spacing).
func (st *fileState) insertElt(lit *ast.CompositeLit, text string) {
	rb := st.offset(lit.Rbrace)
	src := st.sf.Src
	lineStart := bytes.LastIndexByte(src[:rb], '\n') + 1
	before := bytes.TrimRight(src[:rb], " \t")
	switch {
	case st.line(lit.Lbrace) != st.line(lit.Rbrace) && len(bytes.TrimSpace(src[lineStart:rb])) == 0:
		st.plan.edits = append(st.plan.edits, edit{Start: lineStart, End: lineStart, Text: text + ",\n"})
	case len(lit.Elts) == 0:
		st.plan.edits = append(st.plan.edits, edit{Start: rb, End: rb, Text: text})
	case len(before) > 0 && before[len(before)-1] == ',':
		st.plan.edits = append(st.plan.edits, edit{Start: rb, End: rb, Text: " " + text})
	default:
		st.plan.edits = append(st.plan.edits, edit{Start: rb, End: rb, Text: ", " + text})
	}
}

// removeElt removes element i of lit: its whole lines when it has lines of
// its own, else the element and the separator next to it.
func (st *fileState) removeElt(lit *ast.CompositeLit, i int) {
	elt := lit.Elts[i]
	prevEnd, next := lit.Lbrace, lit.Rbrace
	if i > 0 {
		prevEnd = lit.Elts[i-1].End()
	}
	if i+1 < len(lit.Elts) {
		next = lit.Elts[i+1].Pos()
	}
	var from, to token.Pos
	switch {
	case st.line(prevEnd) < st.line(elt.Pos()) && st.line(next) > st.line(elt.End()):
		from = st.tf.LineStart(st.line(elt.Pos()))
		to = st.lineAfter(elt.End())
	case i+1 < len(lit.Elts):
		from, to = elt.Pos(), next
	case i > 0:
		from, to = prevEnd, elt.End()
	default:
		from, to = elt.Pos(), lit.Rbrace
	}
	st.replace(from, to, "")
	st.covered = append(st.covered, [2]token.Pos{elt.Pos(), elt.End()})
}

// lineAfter returns the start of the line after the one holding pos (the
// end of the file on the last line).
func (st *fileState) lineAfter(pos token.Pos) token.Pos {
	l := st.line(pos)
	if l < st.tf.LineCount() {
		return st.tf.LineStart(l + 1)
	}
	return token.Pos(st.tf.Base() + st.tf.Size())
}
