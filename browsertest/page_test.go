package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds the browser: $CHROMIUM, else chromium on the PATH
// (`make browser` installs Debian's chromium when it is missing).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium found: run `make chromium` (installs Debian's chromium) or set CHROMIUM")
	return ""
}

// screenshotPath is where the screenshot goes: $KCACHE_SCREENSHOT, else
// kcache-debug.png in the temporary directory (outside the repository).
func screenshotPath() string {
	if p := os.Getenv("KCACHE_SCREENSHOT"); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "kcache-debug.png")
}

// handlerRow is one row of the page's handler table, as the browser shows it.
type handlerRow struct {
	Name    string `json:"name"`
	Backlog int    `json:"backlog"`
}

// readHandlersJS reads the handler rows of the page the browser shows.
const readHandlersJS = `Array.from(document.querySelectorAll("tr.handler")).map(r => ({
	name: r.dataset.handler, backlog: Number(r.querySelector(".backlog").textContent)}))`

// browser starts headless chromium; it is closed by t.Cleanup.
func browser(t *testing.T, ctx context.Context) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1200, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	return browserCtx
}

// backlogs reads the rows until every one of names is shown. The page
// reloads itself, so a read may hit a page being replaced; it is retried.
func backlogs(ctx context.Context, names []string) (map[string]int, error) {
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]handlerRow](readHandlersJS))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range rows {
		for _, n := range names {
			if strings.HasSuffix(r.Name, n) {
				out[n] = r.Backlog
			}
		}
	}
	if len(out) != len(names) {
		return nil, fmt.Errorf("the page shows handlers %+v, want %v", rows, names)
	}
	return out, nil
}

// phase is one expectation about the slow handler's backlog.
type phase struct {
	what string
	ok   func(backlog int) bool
}

func TestTheDebugPageShowsTheDemosThreeHandlersAndABacklogThatRisesAndDrains(t *testing.T) {
	ctx := withDeadline(t, 4*time.Minute)
	// 3,000 pods at 1ms each for the slow handler: its backlog rises with the
	// initial list and with the relist after each 410 Gone (every 8s) and
	// drains in between (no churn).
	d := startDemo(t, buildDemo(t), "-duration=3m", "-pods=3000", "-churn=0", "-audit-cost=1ms", "-drop-every=1h", "-gone-every=8s")
	b := browser(t, ctx)
	pageURL := d.baseURL + "/debug/kcache?refresh=1"
	if _, err := chromedp.Run(b, chromedp.Navigate(pageURL)); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}
	t.Logf("loaded %s in headless %s", pageURL, chromiumPath(t))

	names := []string{".counterHandler", ".FilteringResourceEventHandler", ".slowAuditHandler"}
	phases := []phase{
		{"drained after the initial list", func(n int) bool { return n == 0 }},
		{"risen with the relist after a 410 Gone", func(n int) bool { return n > 100 }},
		{"drained again", func(n int) bool { return n == 0 }},
	}
	var peak int
	for _, p := range phases {
		var seen map[string]int
		for {
			if ctx.Err() != nil {
				t.Fatalf("the slow handler's backlog never %s (last seen %v)", p.what, seen)
			}
			if got, err := backlogs(b, names); err == nil {
				seen = got
				peak = max(peak, got[".slowAuditHandler"])
				if p.ok(got[".slowAuditHandler"]) {
					break
				}
			}
			time.Sleep(150 * time.Millisecond) // the page's own reload paces the figures
		}
		t.Logf("backlog %s: %v", p.what, seen)
		if p.what == phases[1].what {
			shoot(t, b)
		}
	}
	t.Logf("peak backlog of the slow handler seen in the browser: %d", peak)
}

// shoot saves a screenshot of the page the browser shows.
func shoot(t *testing.T, ctx context.Context) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := screenshotPath()
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the page with a risen backlog: %s", path)
}
