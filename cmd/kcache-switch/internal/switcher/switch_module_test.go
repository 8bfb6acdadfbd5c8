package switcher

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/switchmod")

// kcacheRoot is the checkout the testdata module replaces kcache with.
func kcacheRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// newSampleModule copies testdata/switchmod/in into a temporary module
// whose go.mod replaces kcache with this checkout.
func newSampleModule(t *testing.T) string {
	t.Helper()
	return newModuleFrom(t, "testdata/switchmod/in")
}

// newModuleFrom copies the .go files under in into a temporary module
// example.com/switchtest (go.mod and go.sum of testdata/switchmod) that
// replaces kcache with this checkout.
func newModuleFrom(t *testing.T, in string) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, in, dir)
	mod, err := os.ReadFile("testdata/switchmod/go.mod.txt")
	if err != nil {
		t.Fatal(err)
	}
	mod = bytes.ReplaceAll(mod, []byte("KCACHE_ROOT"), []byte(kcacheRoot(t)))
	writeFile(t, filepath.Join(dir, "go.mod"), mod)
	sum, err := os.ReadFile("testdata/switchmod/go.sum")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
	return dir
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for rel, data := range goFiles(t, from) {
		writeFile(t, filepath.Join(to, rel), data)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goFiles returns the .go files under dir by slash-separated relative path.
func goFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// buildTool builds the kcache-switch command. The golden test runs it as
// a user does; it type-checks the sample module a dozen times, which
// under the race detector (in this process) took four times as long.
func buildTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kcache-switch")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/kcache-go/cache/cmd/kcache-switch")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runTool runs the command on module and returns its report, with the
// module's directory written as $MODULE.
func runTool(t *testing.T, bin, module string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-C", module}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcache-switch %q: %v\n%s%s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return strings.ReplaceAll(stdout.String(), module, "$MODULE")
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		writeFile(t, golden, got)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
}

// checkTree compares the module's .go files with in/ overlaid by the
// golden files of dir (the files the step changes).
func checkTree(t *testing.T, module, base, golden string) {
	t.Helper()
	got := goFiles(t, module)
	want := goFiles(t, base)
	if *update {
		os.RemoveAll(golden)
		for rel, data := range got {
			if !bytes.Equal(data, want[rel]) {
				writeFile(t, filepath.Join(golden, rel), data)
			}
		}
		return
	}
	for rel, data := range goFiles(t, golden) {
		want[rel] = data
	}
	for rel := range want {
		if !bytes.Equal(got[rel], want[rel]) {
			t.Errorf("%s differs from the golden files (go test -update rewrites them):\n%s", rel, got[rel])
		}
	}
}

// TestTheSwitchRewritesTheSampleModuleAsTheGoldenFilesShowAndRevertUndoesIt
// runs the steps of a user's session on testdata/switchmod/in, each on the
// module the step before left: a dry run, the switch, a second switch and
// the revert.
func TestTheSwitchRewritesTheSampleModuleAsTheGoldenFilesShowAndRevertUndoesIt(t *testing.T) {
	bin, module := buildTool(t), newSampleModule(t)
	steps := []struct {
		name   string
		args   []string
		report string // golden report
		tree   string // golden files: the .go files that differ from in/ after the step
	}{
		{"a dry run reports every change and writes nothing", []string{"-dry-run"}, "report-dry-run.txt", "none"},
		{"the switch writes every change it reports", nil, "report-switch.txt", "want"},
		{"a second switch changes nothing", nil, "report-again.txt", "want"},
		{"revert gives back the original code", []string{"-revert"}, "report-revert.txt", "reverted"},
	}
	for _, step := range steps {
		ok := t.Run(step.name, func(t *testing.T) {
			report := runTool(t, bin, module, step.args...)
			checkGolden(t, filepath.Join("testdata/switchmod", step.report), []byte(report))
			checkTree(t, module, "testdata/switchmod/in", filepath.Join("testdata/switchmod", step.tree))
		})
		if !ok {
			return
		}
	}
}
