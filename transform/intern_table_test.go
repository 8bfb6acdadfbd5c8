package transform

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"
	"weak"
)

func TestInterningFromManyGoroutinesGivesOneCanonicalCopyPerContent(t *testing.T) {
	const workers, n = 8, 500
	got := make([][]string, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				got[w] = append(got[w], internString(fmt.Sprintf("concurrent-intern-%d", i)))
			}
		}(w)
	}
	wg.Wait()
	for w := 1; w < workers; w++ {
		for i := range got[w] {
			if unsafe.StringData(got[w][i]) != unsafe.StringData(got[0][i]) || got[w][i] != fmt.Sprintf("concurrent-intern-%d", i) {
				t.Fatalf("goroutine %d interned %q as a copy of its own", w, got[w][i])
			}
		}
	}
}

func TestInterningStringsThatShareAPrefixGivesEachItsOwnContent(t *testing.T) {
	base := strings.Repeat("prefix-", 4)
	var all []string
	for n := 1; n <= len(base); n++ {
		all = append(all, internString(base[:n]))
	}
	for n := 1; n <= len(base); n++ {
		if c := internString(strings.Clone(base[:n])); c != base[:n] || c != all[n-1] ||
			unsafe.StringData(c) != unsafe.StringData(all[n-1]) {
			t.Fatalf("interning %q gave %q", base[:n], c)
		}
	}
}

func TestInterningALiteralGivesAHeapCopyThatIsCollectedLikeAnyOther(t *testing.T) {
	const lit = "a-string-literal-in-static-data-only-here"
	c := internString(lit)
	if c != lit || unsafe.StringData(c) == unsafe.StringData(lit) {
		t.Fatal("the literal itself became the canonical copy")
	}
	if again := internString(lit); unsafe.StringData(again) != unsafe.StringData(c) {
		t.Fatal("the literal interned twice gave two copies")
	}
	runtime.KeepAlive(c)
}

// internedSubstring interns a short substring of a large string and
// returns weak pointers to the large string's bytes and to the copy.
func internedSubstring() (weak.Pointer[byte], string) {
	large := strings.Repeat("x", 1<<20) + "needle-of-a-large-buffer"
	sub := large[len(large)-len("needle-of-a-large-buffer"):]
	return weak.Make(unsafe.StringData(large)), internString(sub)
}

func TestInterningASubstringDoesNotKeepTheLargerStringsBytesAlive(t *testing.T) {
	large, c := internedSubstring()
	collectUntil(func() bool { return large.Value() == nil })
	if large.Value() != nil {
		t.Fatal("the 1 MiB string a substring was interned from survived 50 collections")
	}
	if c != "needle-of-a-large-buffer" {
		t.Fatalf("the interned copy is %q", c)
	}
}
