package switcher

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const plainGoMod = "module example.com/m\n\ngo 1.26.0\n\nrequire k8s.io/client-go v0.36.2\n"

func TestGoModGetsOnlyTheEditsTheRunAsksFor(t *testing.T) {
	cases := []struct {
		name      string
		gomod     string
		opts      Options
		wantAsked []string
		wantErr   string
	}{
		{"no kcache and nothing asked", plainGoMod, Options{}, nil, "go.mod does not require github.com/kcache-go/cache: rerun with -require=VERSION"},
		{"a require asked", plainGoMod, Options{Require: "v0.2.0"}, []string{"require github.com/kcache-go/cache v0.2.0"}, ""},
		{"a replace asked", plainGoMod, Options{Replace: "../kcache"}, []string{"require github.com/kcache-go/cache " + zeroVersion, "replace github.com/kcache-go/cache => ../kcache"}, ""},
		{"kcache required already", plainGoMod + "require github.com/kcache-go/cache v0.1.0\n", Options{}, nil, ""},
		{"revert asks nothing at first", plainGoMod, Options{Revert: true, Require: "none"}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tc.gomod), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := setupModule(dir, append(os.Environ(), "GOWORK=off"), tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer m.cleanup()
			if !reflect.DeepEqual(m.asked, tc.wantAsked) {
				t.Errorf("asked = %q, want %q", m.asked, tc.wantAsked)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(got) != tc.gomod {
				t.Errorf("go.mod on disk changed before any write:\n%s", got)
			}
			tmp, _ := os.ReadFile(m.tmpMod())
			if changes := modChanges([]byte(tc.gomod), tmp); !reflect.DeepEqual(changes, tc.wantAsked) {
				t.Errorf("temporary go.mod changes = %q, want %q", changes, tc.wantAsked)
			}
		})
	}
}

func TestGoModChangesPairTheOldAndNewVersionOfEachRequirement(t *testing.T) {
	old := plainGoMod + "require golang.org/x/text v0.30.0\n\nreplace example.com/a => ../a\n"
	new := "module example.com/m\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/client-go v0.36.6\n\tgithub.com/kcache-go/cache v0.1.0\n)\n\nreplace github.com/kcache-go/cache => ../kcache\n"
	want := []string{
		"require k8s.io/client-go v0.36.2 → v0.36.6",
		"require github.com/kcache-go/cache v0.1.0",
		"drop require golang.org/x/text v0.30.0",
		"replace github.com/kcache-go/cache => ../kcache",
		"drop replace example.com/a => ../a",
	}
	if got := modChanges([]byte(old), []byte(new)); !reflect.DeepEqual(got, want) {
		t.Errorf("modChanges =\n%q\nwant\n%q", got, want)
	}
}
