// Package browsertest loads kcache's /debug/kcache page, served by a running
// kcache-demo, in a real headless browser (Debian's chromium, driven by
// chromedp). It is a module of its own so that the browser driver stays out
// of kcache's dependencies; `make browser` (part of `make test`) installs
// chromium when it is missing and runs it.
package browsertest
