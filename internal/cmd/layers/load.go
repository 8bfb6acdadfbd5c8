package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// listedPackage is the part of `go list -json` output the loader reads.
type listedPackage struct {
	Dir        string
	ImportPath string
	Module     *struct{ Path string }
	GoFiles    []string
	CgoFiles   []string
	Export     string
	Error      *struct{ Err string }
}

// loaded is the root package, type-checked from source: its non-test files
// (in the order `go list` names them, which is sorted) and what the
// checker recorded about every identifier.
type loaded struct {
	fset   *token.FileSet
	module string // the module path, e.g. github.com/kcache-go/cache
	pkg    *types.Package
	files  []*ast.File
	names  []string // base names of files, parallel to files
	info   *types.Info
}

// load type-checks the package in dir (non-test files only, the build
// constraints of the running toolchain). Dependencies are imported from the
// export data `go list -export` leaves in the build cache, so only the
// package itself is parsed; it runs `go` from PATH in dir.
func load(dir string) (*loaded, error) {
	pkgs, err := goList(dir)
	if err != nil {
		return nil, err
	}
	root := pkgs[len(pkgs)-1] // -deps lists the named package last
	if root.Error != nil {
		return nil, fmt.Errorf("go list %s: %s", dir, root.Error.Err)
	}
	if root.Module == nil {
		return nil, fmt.Errorf("go list %s: not in a module", dir)
	}
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	l := &loaded{fset: token.NewFileSet(), module: root.Module.Path}
	for _, name := range append(root.GoFiles, root.CgoFiles...) {
		f, err := parser.ParseFile(l.fset, filepath.Join(root.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		l.files = append(l.files, f)
		l.names = append(l.names, name)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	}
	conf := types.Config{Importer: importer.ForCompiler(l.fset, "gc", lookup)}
	l.info = &types.Info{
		Uses: map[*ast.Ident]types.Object{},
		Defs: map[*ast.Ident]types.Object{},
	}
	l.pkg, err = conf.Check(root.ImportPath, l.fset, l.files, l.info)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// goList runs `go list -deps -export -json .` in dir and decodes the stream.
func goList(dir string) ([]listedPackage, error) {
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=Dir,ImportPath,Module,GoFiles,CgoFiles,Export,Error", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("go list in %s: no package", dir)
	}
	return pkgs, nil
}
