package switcher

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"testing"
)

// literalState parses src and returns a planning state of it and its
// first composite literal.
func literalState(t *testing.T, src string) (*fileState, *ast.CompositeLit) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var lit *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.CompositeLit); ok && lit == nil {
			lit = l
		}
		return lit == nil
	})
	sf := &srcFile{Src: []byte(src), AST: f}
	return &fileState{sf: sf, tf: fset.File(f.Pos()), plan: &filePlan{file: sf}}, lit
}

func gofmtOf(t *testing.T, st *fileState) string {
	t.Helper()
	out, err := applyEdits(st.sf.Src, st.plan.edits)
	if err != nil {
		t.Fatal(err)
	}
	formatted, err := format.Source(out)
	if err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	return string(formatted)
}

func TestAnAddedOptionGoesWhereGofmtWouldPutItInEveryLiteralShape(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "package x\n\nvar v = T{}\n", "package x\n\nvar v = T{F: 1}\n"},
		{"one line", "package x\n\nvar v = T{A: 1}\n", "package x\n\nvar v = T{A: 1, F: 1}\n"},
		{"one line, trailing comma", "package x\n\nvar v = T{A: 1,}\n", "package x\n\nvar v = T{A: 1, F: 1}\n"},
		{"lines", "package x\n\nvar v = T{\n\tA: 1,\n}\n", "package x\n\nvar v = T{\n\tA: 1,\n\tF: 1,\n}\n"},
		{"lines, brace after the last", "package x\n\nvar v = T{\n\tA: 1}\n", "package x\n\nvar v = T{\n\tA: 1, F: 1}\n"},
		{"lines, comment last", "package x\n\nvar v = T{\n\tA: 1, // a\n}\n", "package x\n\nvar v = T{\n\tA: 1, // a\n\tF: 1,\n}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, lit := literalState(t, tc.in)
			st.insertElt(lit, "F: 1")
			if got := gofmtOf(t, st); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestARemovedOptionTakesItsLineOrItsSeparatorWithIt(t *testing.T) {
	cases := []struct {
		name, in string
		index    int
		want     string
	}{
		{"only", "package x\n\nvar v = T{F: 1}\n", 0, "package x\n\nvar v = T{}\n"},
		{"first of two", "package x\n\nvar v = T{F: 1, A: 1}\n", 0, "package x\n\nvar v = T{A: 1}\n"},
		{"last of two", "package x\n\nvar v = T{A: 1, F: 1}\n", 1, "package x\n\nvar v = T{A: 1}\n"},
		{"own line", "package x\n\nvar v = T{\n\tA: 1,\n\tF: 1,\n}\n", 1, "package x\n\nvar v = T{\n\tA: 1,\n}\n"},
		{"own line, first", "package x\n\nvar v = T{\n\tF: 1,\n\tA: 1,\n}\n", 0, "package x\n\nvar v = T{\n\tA: 1,\n}\n"},
		{"shared line", "package x\n\nvar v = T{\n\tA: 1, F: 1,\n}\n", 1, "package x\n\nvar v = T{\n\tA: 1,\n}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, lit := literalState(t, tc.in)
			st.removeElt(lit, tc.index)
			if got := gofmtOf(t, st); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
