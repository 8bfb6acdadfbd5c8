package e2e

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The helpers of the tests that switch a real project with kcache-switch
// and run it: build the tool, fetch or copy the project, run go in it.

// repoRoot is the kcache checkout (the parent of e2e/).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goCmd runs the go command in dir with GOWORK off and returns its
// combined output; a failure fails the test.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := goCmdErr(dir, env, args...)
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

func goCmdErr(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// buildSwitchTool builds cmd/kcache-switch (its own module) into a
// temporary directory.
func buildSwitchTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kcache-switch")
	goCmd(t, filepath.Join(repoRoot(t), "cmd", "kcache-switch"), nil, "build", "-o", bin, ".")
	return bin
}

// runSwitchTool runs kcache-switch in dir and returns its report.
func runSwitchTool(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcache-switch %s: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

// downloadModule returns the module cache directory of module@version
// (from the module proxy the first time, from the cache afterwards).
func downloadModule(t *testing.T, moduleAtVersion string) string {
	t.Helper()
	out := goCmd(t, t.TempDir(), nil, "mod", "download", "-json", moduleAtVersion)
	var info struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s\n%s", moduleAtVersion, err, info.Error, out)
	}
	return info.Dir
}

// copyDir copies the regular files of from into a new temporary
// directory, writable (the module cache's files are read-only).
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// diffStat returns `git diff --stat` of the files that differ between
// two trees (git's own numbers), or the changed files when git is absent.
func diffStat(t *testing.T, before, after string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return "(git not found)"
	}
	cmd := exec.Command("git", "diff", "--no-index", "--stat=250,200", "--", before, after)
	out, _ := cmd.Output() // exit status 1 means "differences"
	// NB: git names each file "{before => after}/rel"; keep rel.
	return diffStatPrefix.ReplaceAllString(string(out), " ")
}

var diffStatPrefix = regexp.MustCompile(`(?m)^ [^\n]*?\}/`)

var testResultLine = regexp.MustCompile(`^(--- (PASS|FAIL|SKIP): \S+|ok  \t\S+|FAIL\t\S+)`)

// testResults runs `go test -count=1 -v ./...` in dir and returns its
// per-test result lines (durations stripped), sorted, and whether it
// passed.
func testResults(t *testing.T, dir string, env ...string) ([]string, string, bool) {
	t.Helper()
	out, err := goCmdErr(dir, env, "test", "-count=1", "-v", "./...")
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimLeft(l, " ")
		if m := testResultLine.FindString(l); m != "" {
			lines = append(lines, m)
		}
	}
	sort.Strings(lines)
	return lines, out, err == nil
}

// writeKubeconfig writes a kubeconfig of the e2e cluster for programs run
// by the tests.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	cfg := cluster.RESTConfig()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	kc.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// addProofFile copies testdata/kcacheproof/name (a Go file kept as .txt,
// outside the e2e module's build) into dir as file.
func addProofFile(t *testing.T, name, dir, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "kcacheproof", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// logLines logs text line by line under a title.
func logLines(t *testing.T, title, text string) {
	t.Helper()
	t.Logf("%s:\n%s", title, strings.TrimRight(text, "\n"))
}
