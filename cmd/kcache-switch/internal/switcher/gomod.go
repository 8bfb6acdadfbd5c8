package switcher

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// zeroVersion is the version a replaced module is required at when the
// module has no requirement of its own (as `go mod edit -replace` users
// write it).
const zeroVersion = "v0.0.0-00010101000000-000000000000"

// modSetup is the module being switched and the temporary go.mod every
// load of the run uses (-modfile), so that nothing on disk changes before
// the rewrite is known to type-check.
type modSetup struct {
	Root             string // the module's directory
	goMod, goSum     string // their paths
	origMod, origSum []byte
	tmpDir           string
	startMod         []byte // the temporary go.mod as the run wrote it
	asked            []string
	// vendored is set when the go command builds the module from its
	// vendor directory; the loads do too, and go.mod is never edited.
	vendored bool
}

// goModPath returns the go.mod of the module holding dir.
func goModPath(dir string, env []string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	p := strings.TrimSpace(string(out))
	if p == "" || p == os.DevNull {
		return "", fmt.Errorf("%s is not inside a Go module", dir)
	}
	return p, nil
}

// setupModule reads the module's go.mod, applies the edits the options
// ask for to a temporary copy, and checks that the forward switch has a
// kcache to switch to.
func setupModule(dir string, env []string, opts Options) (*modSetup, error) {
	gomod, err := goModPath(dir, env)
	if err != nil {
		return nil, err
	}
	m := &modSetup{Root: filepath.Dir(gomod), goMod: gomod, goSum: strings.TrimSuffix(gomod, ".mod") + ".sum"}
	if m.origMod, err = os.ReadFile(gomod); err != nil {
		return nil, err
	}
	if m.origSum, err = os.ReadFile(m.goSum); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	f, err := modfile.Parse(gomod, m.origMod, nil)
	if err != nil {
		return nil, err
	}
	if m.vendored = buildsFromVendor(m.Root, f, env); m.vendored && (opts.Require != "" || opts.Replace != "") {
		return nil, fmt.Errorf("the module builds from its vendor directory: edit the require or replace of %s in go.mod yourself, run go mod vendor, and rerun without -require or -replace", kcachePath)
	}
	start := m.origMod
	if !opts.Revert && (opts.Require != "" || opts.Replace != "") {
		if start, err = m.askForward(f, opts); err != nil {
			return nil, err
		}
	}
	if !opts.Revert && !requires(f, kcachePath) {
		return nil, fmt.Errorf("go.mod does not require %s: rerun with -require=VERSION (or -replace=DIR to use a checkout)", kcachePath)
	}
	if m.tmpDir, err = os.MkdirTemp("", "kcache-switch-"); err != nil {
		return nil, err
	}
	m.startMod = start
	return m, m.writeTmp(start, m.origSum)
}

// askForward adds the require and replace the options ask for.
func (m *modSetup) askForward(f *modfile.File, opts Options) ([]byte, error) {
	if opts.Require != "" {
		if err := f.AddRequire(kcachePath, opts.Require); err != nil {
			return nil, err
		}
		m.asked = append(m.asked, "require "+kcachePath+" "+opts.Require)
	}
	if opts.Replace != "" {
		if !requires(f, kcachePath) {
			if err := f.AddRequire(kcachePath, zeroVersion); err != nil {
				return nil, err
			}
			m.asked = append(m.asked, "require "+kcachePath+" "+zeroVersion)
		}
		if err := f.AddReplace(kcachePath, "", opts.Replace, ""); err != nil {
			return nil, err
		}
		m.asked = append(m.asked, "replace "+kcachePath+" => "+opts.Replace)
	}
	f.Cleanup()
	return f.Format()
}

// buildsFromVendor tells whether the go command builds the module from
// its vendor directory, as it does by default (go 1.14 or later in go.mod
// and a vendor/modules.txt) unless GOFLAGS sets -mod.
func buildsFromVendor(root string, f *modfile.File, env []string) bool {
	if _, err := os.Stat(filepath.Join(root, "vendor", "modules.txt")); err != nil {
		return false
	}
	for i := len(env) - 1; i >= 0; i-- {
		if flags, ok := strings.CutPrefix(env[i], "GOFLAGS="); ok {
			for _, fl := range strings.Fields(flags) {
				if strings.HasPrefix(fl, "-mod=") {
					return fl == "-mod=vendor"
				}
			}
			break
		}
	}
	return f.Go != nil && semver.Compare("v"+f.Go.Version, "v1.14") >= 0
}

func requires(f *modfile.File, path string) bool {
	for _, r := range f.Require {
		if r.Mod.Path == path {
			return true
		}
	}
	return false
}

func (m *modSetup) tmpMod() string { return filepath.Join(m.tmpDir, "go.mod") }

func (m *modSetup) writeTmp(mod, sum []byte) error {
	if err := os.WriteFile(m.tmpMod(), mod, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.tmpDir, "go.sum"), sum, 0o644)
}

// buildFlags are the flags of every load: the temporary go.mod, which the
// go command may complete (-mod=mod), and the build tags.
func (m *modSetup) buildFlags(tags string) []string {
	mode := "-mod=mod"
	if m.vendored {
		mode = "-mod=vendor"
	}
	flags := []string{"-modfile=" + m.tmpMod(), mode}
	if tags != "" {
		flags = append(flags, "-tags="+tags)
	}
	return flags
}

// current returns the temporary go.mod and go.sum as the loads left them.
func (m *modSetup) current() (mod, sum []byte, err error) {
	if mod, err = os.ReadFile(m.tmpMod()); err != nil {
		return nil, nil, err
	}
	sum, err = os.ReadFile(filepath.Join(m.tmpDir, "go.sum"))
	if os.IsNotExist(err) {
		err = nil
	}
	return mod, sum, err
}

func (m *modSetup) cleanup() { os.RemoveAll(m.tmpDir) }

// sumLinesAdded counts the lines of sum that orig lacks.
func sumLinesAdded(orig, sum []byte) int {
	have := map[string]bool{}
	for _, l := range bytes.Split(orig, []byte("\n")) {
		have[string(l)] = true
	}
	n := 0
	for _, l := range bytes.Split(sum, []byte("\n")) {
		if len(l) > 0 && !have[string(l)] {
			n++
		}
	}
	return n
}
