package main

import "testing"

func TestBadFlagsAndAModuleWithoutKcacheExitWithoutWriting(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"an unknown flag", []string{"-no-such-flag"}, 2},
		{"a directory outside any module", []string{"-C", t.TempDir()}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOFLAGS", "")
			if got := run(tc.args); got != tc.want {
				t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}
