package fastlw_test

import (
	"io"
	"slices"
	"testing"
	"testing/synctest"
)

// client-go's request metrics (k8s.io/client-go/tools/metrics, registered
// by the caller, e.g. through component-base) count a fastlw watch as they
// count client-go's: fastlw opens every watch with the sibling client's
// Request.Watch, so the rate-limiter latency (none on a first attempt),
// the request results (one per HTTP response, a handed-over answer
// included) and the retries are recorded by the same code, once.

// TestAWatchReportsClientGosRequestMetrics plays each script to both
// sides and requires the same metrics, in order.
func TestAWatchReportsClientGosRequestMetrics(t *testing.T) {
	tests := []struct {
		name   string
		script []scriptedAnswer
	}{
		{"a 200 stream", []scriptedAnswer{streamOK}},
		{"a 201 stream", []scriptedAnswer{{code: 201, contentType: "application/json", body: oneEventStream}}},
		{"an HTML page", []scriptedAnswer{{contentType: "text/html", body: "<html/>"}}},
		{"a 410", []scriptedAnswer{{code: 410, contentType: "application/json", body: goneStatus}}},
		{"a 429, then the stream", []scriptedAnswer{{code: 429, retryAfter: "1"}, streamOK}},
		{"an EOF, then the stream", []scriptedAnswer{{err: io.EOF}, streamOK}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				plain := runScript(t, tt.script, plainSide, nil)
				fast := runScript(t, tt.script, fastSide, nil)
				requireSameWatch(t, plain.out, fast.out)
				if len(plain.metrics) == 0 || !slices.Equal(plain.metrics, fast.metrics) {
					t.Fatalf("request metrics differ:\nclient-go %q\nfastlw    %q", plain.metrics, fast.metrics)
				}
			})
		})
	}
}
