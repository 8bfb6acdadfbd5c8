package extras

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
)

// logRecorder collects what a logger built by newCaptureLogger was asked to
// log: the source line it attributes each entry to (honouring the call
// depth and the call-stack helpers the caller declared, as testing.T does),
// the verbosity, the logger names, the message and the key/value pairs.
type logRecorder struct {
	// mu guards lines and helpers.
	mu      sync.Mutex
	lines   []string
	helpers map[string]bool
	// logged receives a token (if there is room) after each entry.
	logged chan struct{}
}

// newCaptureLogger returns a logger that writes into a new recorder.
func newCaptureLogger() (logr.Logger, *logRecorder) {
	rec := &logRecorder{helpers: map[string]bool{}, logged: make(chan struct{}, 1)}
	return logr.New(&captureSink{rec: rec}), rec
}

// take returns the recorded lines and forgets them.
func (r *logRecorder) take() []string { return takeRecorded(&r.mu, &r.lines) }

// waitLines blocks until at least n lines are recorded (failing after a
// minute, which only a broken implementation reaches).
func (r *logRecorder) waitLines(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		have := len(r.lines)
		r.mu.Unlock()
		if have >= n {
			return
		}
		select {
		case <-r.logged:
		case <-deadline:
			t.Fatalf("waited a minute for %d log lines, have %d", n, have)
		}
	}
}

// captureSink is the logr.LogSink of newCaptureLogger.
type captureSink struct {
	rec    *logRecorder
	depth  int
	names  []string
	values []interface{}
}

var (
	_ logr.LogSink                = &captureSink{}
	_ logr.CallDepthLogSink       = &captureSink{}
	_ logr.CallStackHelperLogSink = &captureSink{}
)

func (s *captureSink) Init(logr.RuntimeInfo) {}

func (s *captureSink) Enabled(int) bool { return true }

func (s *captureSink) Info(level int, msg string, kv ...interface{}) {
	s.record(fmt.Sprintf("V(%d)", level), msg, nil, kv)
}

func (s *captureSink) Error(err error, msg string, kv ...interface{}) {
	s.record("ERROR", msg, err, kv)
}

func (s *captureSink) WithValues(kv ...interface{}) logr.LogSink {
	c := *s
	c.values = append(append([]interface{}(nil), s.values...), kv...)
	return &c
}

func (s *captureSink) WithName(name string) logr.LogSink {
	c := *s
	c.names = append(append([]string(nil), s.names...), name)
	return &c
}

func (s *captureSink) WithCallDepth(depth int) logr.LogSink {
	c := *s
	c.depth += depth
	return &c
}

// GetCallStackHelper returns a function that marks its caller as a helper
// whose frames are skipped when attributing a log entry.
func (s *captureSink) GetCallStackHelper() func() {
	return func() {
		pc, _, _, ok := runtime.Caller(1)
		if !ok {
			return
		}
		name := runtime.FuncForPC(pc).Name()
		s.rec.mu.Lock()
		s.rec.helpers[name] = true
		s.rec.mu.Unlock()
	}
}

// record appends one line: "<file:line> <level> [names] msg err=... k=v...".
func (s *captureSink) record(level, msg string, err error, kv []interface{}) {
	caller := s.caller()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", caller, level)
	if len(s.names) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(s.names, "/"))
	}
	fmt.Fprintf(&b, " %q", msg)
	if level == "ERROR" {
		fmt.Fprintf(&b, " err=%v", err)
	}
	all := append(append([]interface{}(nil), s.values...), kv...)
	for i := 0; i+1 < len(all); i += 2 {
		fmt.Fprintf(&b, " %v=%s", all[i], renderValue(all[i+1]))
	}
	if len(all)%2 == 1 {
		fmt.Fprintf(&b, " %v=<missing>", all[len(all)-1])
	}
	s.rec.mu.Lock()
	s.rec.lines = append(s.rec.lines, b.String())
	s.rec.mu.Unlock()
	select {
	case s.rec.logged <- struct{}{}:
	default:
	}
}

// renderValue prints a value with its Go type so that a string and an
// error (or a []string and a string) with the same text differ.
func renderValue(v interface{}) string {
	switch x := v.(type) {
	case error:
		return fmt.Sprintf("error(%q)", x.Error())
	case fmt.Stringer:
		return fmt.Sprintf("%T(%q)", v, x.String())
	}
	return fmt.Sprintf("%T(%#v)", v, v)
}

// caller finds the frame the entry is attributed to: the first frame
// outside logr and this sink, moved up by the call depth, skipping frames
// of functions that declared themselves helpers.
func (s *captureSink) caller() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	depth := s.depth
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	started := false
	for {
		f, more := frames.Next()
		inLogging := strings.HasPrefix(f.Function, "github.com/go-logr/logr.") ||
			strings.Contains(f.Function, "extras.(*captureSink)")
		switch {
		case !started && inLogging:
		case depth > 0:
			started = true
			depth--
		case s.rec.helpers[f.Function]:
			started = true
		case isLibraryFrame(f.Function):
			return "<library>"
		default:
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// isLibraryFrame reports whether function belongs to client-go's
// tools/cache or to kcache's root package: which of the two logged a line
// is rendered alike, what matters is whether the line is attributed to the
// library or to its caller.
func isLibraryFrame(function string) bool {
	return strings.HasPrefix(function, "k8s.io/client-go/tools/cache.") ||
		strings.HasPrefix(function, "github.com/kcache-go/cache.")
}
