package main

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestTheFactoryExampleRunsOnKcacheAndSeesAddsAndTheDelete(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, "", "default"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	sort.Strings(lines)
	want := []string{
		"add added-later", "add db", "add web", "delete added-later",
		"synced: 2 pods in default, informer on kcache: true",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant (sorted):\n%s", out.String(), strings.Join(want, "\n"))
	}
}
