package switcher

import (
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// loadMode is what the rewriter needs of the module's packages: syntax and
// full type information of every file, the module they belong to, and the
// types of their imports (from export data).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedTypesInfo |
	packages.NeedSyntax | packages.NeedModule

// srcFile is one file of the module as first loaded (before any rewrite).
// Pkg is the first loaded package holding it (a package and its test
// variant share their non-test files), whose syntax and type information
// the rewrite reads.
type srcFile struct {
	Path      string // absolute
	Rel       string // relative to the module root, slash-separated
	Src       []byte
	AST       *ast.File
	Pkg       *packages.Package
	Generator string // the generator of a generated file ("informer-gen"), "" if hand-written
}

// loadResult is one load of the module's packages.
type loadResult struct {
	Pkgs []*packages.Package
	// Errors lists each file's errors (list, parse and type errors),
	// deduplicated across package variants; errors without a file are
	// under the package's import path prefixed with "pkg:".
	Errors map[string][]string
}

// goRun is how the go command is run: in Dir, with Env, and the build
// flags every load passes (the temporary modfile, -mod=mod, tags).
type goRun struct {
	Dir        string
	Env        []string
	BuildFlags []string
}

// load runs go/packages over patterns with overlay (absolute file name →
// content), tests included.
func (g goRun) load(patterns []string, overlay map[string][]byte) (*loadResult, error) {
	cfg := &packages.Config{
		Mode:       loadMode,
		Dir:        g.Dir,
		Env:        g.Env,
		Tests:      true,
		Overlay:    overlay,
		BuildFlags: g.BuildFlags,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	res := &loadResult{Pkgs: pkgs, Errors: map[string][]string{}}
	seen := map[string]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			file := errorFile(e.Pos)
			if file == "" {
				file = "pkg:" + p.PkgPath
			}
			key := file + "\x00" + e.Msg
			if seen[key] {
				continue
			}
			seen[key] = true
			res.Errors[file] = append(res.Errors[file], e.Error())
		}
	}
	return res, nil
}

// loadTypes loads the types (from export data) of the packages at paths;
// a path the module's build cannot resolve maps to nil.
func (g goRun) loadTypes(paths []string) (map[string]*packages.Package, error) {
	out := map[string]*packages.Package{}
	if len(paths) == 0 {
		return out, nil
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: g.Dir, Env: g.Env, BuildFlags: g.BuildFlags}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(paths, " "), err)
	}
	for _, p := range pkgs {
		if len(p.Errors) == 0 && p.Types != nil && p.Types.Complete() {
			out[p.PkgPath] = p
		}
	}
	return out, nil
}

// errorFile returns the file name of a go/packages error position
// ("file:line:col", "file:line", "-" or "").
func errorFile(pos string) string {
	for i := 0; i < 2; i++ {
		j := strings.LastIndexByte(pos, ':')
		if j < 0 {
			break
		}
		if _, err := strconv.Atoi(pos[j+1:]); err != nil {
			break
		}
		pos = pos[:j]
	}
	if pos == "-" {
		return ""
	}
	return pos
}

// moduleFiles returns the files of the main module among the loaded
// packages, each once, sorted by path. Files outside root (generated cgo
// files, the build cache) are not the module's and are left out.
func moduleFiles(res *loadResult, root string) ([]*srcFile, error) {
	byPath := map[string]*srcFile{}
	for _, p := range res.Pkgs {
		if p.Module == nil || !p.Module.Main {
			continue
		}
		for _, f := range p.Syntax {
			path := p.Fset.File(f.Pos()).Name()
			rel, err := filepath.Rel(root, path)
			if err != nil || strings.HasPrefix(rel, "..") || byPath[path] != nil {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			byPath[path] = &srcFile{Path: path, Rel: filepath.ToSlash(rel), Src: src, AST: f, Pkg: p, Generator: generator(f)}
		}
	}
	out := make([]*srcFile, 0, len(byPath))
	for _, sf := range byPath {
		out = append(out, sf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// ignoredFiles returns the module's files that the build constraints of
// this build leave out, sorted.
func ignoredFiles(res *loadResult, root string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range res.Pkgs {
		if p.Module == nil || !p.Module.Main {
			continue
		}
		for _, f := range p.IgnoredFiles {
			if rel, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(rel, "..") && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

var generatedRe = regexp.MustCompile(`^// Code generated (?:by )?(\S+?)\.? DO NOT EDIT\.$`)

// generator returns the tool named by a file's "Code generated … DO NOT
// EDIT." line ("generated" when it names none), or "" for a hand-written
// file.
func generator(f *ast.File) string {
	if !ast.IsGenerated(f) {
		return ""
	}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if m := generatedRe.FindStringSubmatch(c.Text); m != nil {
				return m[1]
			}
		}
	}
	return "generated"
}
