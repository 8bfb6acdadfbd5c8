package fastlw_test

import (
	"io"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/rest"
)

// warningInstalls are the ways a caller's warnings reach a handler: the
// client's WarningHandlerWithContext, its deprecated WarningHandler, and
// client-go's process-wide default (a client with no handler of its own).
var warningInstalls = []struct {
	name    string
	install func(cfg *rest.Config, warnings *recordingWarnings)
}{
	{"WarningHandlerWithContext", func(cfg *rest.Config, w *recordingWarnings) { cfg.WarningHandlerWithContext = w }},
	{"WarningHandler", func(cfg *rest.Config, w *recordingWarnings) { cfg.WarningHandler = w }},
	{"the default handler", func(_ *rest.Config, w *recordingWarnings) { rest.SetDefaultWarningHandlerWithContext(w) }},
}

// TestAWatchReportsTheWarningsOfEveryAttemptAsOnClientGo answers watches,
// first attempts and retries, with Warning headers, to client-go's watch
// and to fastlw's, with the caller's handler installed each way: the
// handler is given the same warnings, in the same order, text included
// (under synctest: the retry pauses take no time).
func TestAWatchReportsTheWarningsOfEveryAttemptAsOnClientGo(t *testing.T) {
	defer rest.SetDefaultWarningHandler(rest.WarningLogger{})
	stream := func(code int, warning string) scriptedAnswer {
		return scriptedAnswer{code: code, contentType: "application/json", body: oneEventStream, warning: warning}
	}
	tests := []struct {
		name   string
		script []scriptedAnswer
		none   bool // client-go reports no warning at all
	}{
		{"a 200 stream", []scriptedAnswer{stream(0, "streamed")}, false},
		{"a 201 handed to Request.Watch", []scriptedAnswer{stream(http.StatusCreated, "created")}, false},
		{"a 410", []scriptedAnswer{{code: 410, contentType: "application/json", body: goneStatus, warning: "gone"}}, false},
		{"a 429, then the stream", []scriptedAnswer{{code: 429, retryAfter: "1", warning: "throttled"}, stream(0, "streamed")}, false},
		{"a 503, then a 201", []scriptedAnswer{{code: 503, retryAfter: "1", warning: "unavailable"}, stream(http.StatusCreated, "created")}, false},
		{"an EOF, then the stream", []scriptedAnswer{{err: io.EOF}, stream(0, "streamed after a retry")}, false},
		{"429s until the retries run out", []scriptedAnswer{{code: 429, retryAfter: "1", warning: "throttled"}}, false},
		{"a 500", []scriptedAnswer{{code: 500, contentType: "application/json", body: goneStatus, warning: "failed"}}, false},
		{"503s until the retries run out", []scriptedAnswer{{code: 503, retryAfter: "1", warning: "unavailable"}}, false},
		{"an HTML page after a 429", []scriptedAnswer{{code: 429, retryAfter: "1", warning: "throttled"}, {contentType: "text/html", body: "<html/>", warning: "html"}}, true},
	}
	for _, how := range warningInstalls {
		for _, tt := range tests {
			t.Run(how.name+"/"+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					install := func(tr *scriptTransport) { tr.configureClient = how.install }
					plain := runScript(t, tt.script, plainSide, install)
					fast := runScript(t, tt.script, fastSide, install)
					requireSameWatch(t, plain.out, fast.out)
					if (len(plain.warnings) == 0) != tt.none || !slices.Equal(plain.warnings, fast.warnings) {
						t.Fatalf("warnings differ (want none: %v):\nclient-go %q\nfastlw    %q", tt.none, plain.warnings, fast.warnings)
					}
				})
			})
		}
	}
}
