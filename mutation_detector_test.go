package cache

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

func watchedConfigMap(name string) *v1.ConfigMap {
	return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"k": "v"}}
}

// newTestMutationDetector returns an enabled detector on a fake clock whose
// failures are recorded instead of panicking.
func newTestMutationDetector() (*cacheMutationDetector, *clocktesting.FakeClock, *[]string) {
	clk := clocktesting.NewFakeClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	var failures []string
	d := newCacheMutationDetector("configmaps", clk, func(msg string) { failures = append(failures, msg) })
	return d, clk, &failures
}

func TestNewCacheMutationDetectorFollowsTheEnvironmentSwitch(t *testing.T) {
	saved := mutationDetectionEnabled
	t.Cleanup(func() { mutationDetectionEnabled = saved })

	mutationDetectionEnabled = false
	if _, ok := NewCacheMutationDetector("off").(disabledMutationDetector); !ok {
		t.Fatal("disabled detection did not give the no-op detector")
	}
	mutationDetectionEnabled = true
	d, ok := NewCacheMutationDetector("on").(*cacheMutationDetector)
	if !ok || d.name != "on" || d.period != time.Second || d.retention != 2*time.Minute || d.onMutation != nil {
		t.Fatalf("enabled detection gave %#v", d)
	}
}

func TestReadMutationDetectionEnvAcceptsParseBoolValues(t *testing.T) {
	cases := map[string]bool{"": false, "true": true, "1": true, "TRUE": true, "yes": false, "false": false}
	for value, want := range cases {
		t.Setenv(mutationDetectorEnv, value)
		if got := readMutationDetectionEnv(); got != want {
			t.Errorf("%s=%q: enabled = %v, want %v", mutationDetectorEnv, value, got, want)
		}
	}
}

func TestDisabledDetectorRunReturnsAtOnce(t *testing.T) {
	d := disabledMutationDetector{}
	d.AddObject(watchedConfigMap("a"))
	d.Run(make(chan struct{})) // returning at all is the assertion
}

func TestMutationDetectorFiresWhenACachedObjectIsMutatedInPlace(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(cm *v1.ConfigMap)
		fires  bool
	}{
		{"untouched", func(cm *v1.ConfigMap) {}, false},
		{"data changed", func(cm *v1.ConfigMap) { cm.Data["k"] = "changed" }, true},
		{"label added", func(cm *v1.ConfigMap) { cm.Labels = map[string]string{"x": "y"} }, true},
		{"nil map made empty", func(cm *v1.ConfigMap) { cm.Annotations = map[string]string{} }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, _, failures := newTestMutationDetector()
			cm := watchedConfigMap("a")
			d.AddObject(cm)
			tc.mutate(cm)
			d.check()
			if fired := len(*failures) == 1 && (*failures)[0] == "cache configmaps modified"; fired != tc.fires {
				t.Fatalf("failures = %q, want fired=%v", *failures, tc.fires)
			}
		})
	}
}

func TestMutationDetectorIgnoresAQuantityWhoseStringWasReadAgain(t *testing.T) {
	d, _, failures := newTestMutationDetector()
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	pod.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}
	d.AddObject(pod)
	q := pod.Spec.Overhead[v1.ResourceCPU]
	_ = q.String() // fills the quantity's cached string
	pod.Spec.Overhead[v1.ResourceCPU] = q
	d.check()
	if len(*failures) != 0 {
		t.Fatalf("a cached quantity string counted as a mutation: %q", *failures)
	}
}

func TestMutationDetectorIgnoresTombstonesAndNonObjects(t *testing.T) {
	d, _, failures := newTestMutationDetector()
	inner := watchedConfigMap("gone")
	d.AddObject(DeletedFinalStateUnknown{Key: "ns/gone", Obj: inner})
	d.AddObject("a string")
	inner.Data["k"] = "changed"
	d.check()
	if len(*failures) != 0 || len(d.current) != 0 {
		t.Fatalf("failures %q, watched %d", *failures, len(d.current))
	}
}

func TestMutationDetectorPanicsByDefault(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	d := newCacheMutationDetector("pods", clk, nil)
	cm := watchedConfigMap("a")
	d.AddObject(cm)
	cm.Data["k"] = "changed"
	defer func() {
		if r := recover(); r != "cache pods modified" {
			t.Fatalf("recovered %#v, want %q", r, "cache pods modified")
		}
	}()
	d.check()
}

func TestMutationDetectorWatchesObjectsForOneToTwoRetentionPeriods(t *testing.T) {
	d, clk, failures := newTestMutationDetector()
	cm := watchedConfigMap("a")
	d.AddObject(cm)
	d.check() // first check: cm becomes current
	clk.Step(d.retention + time.Second)
	d.check() // rotation: cm moves to previous, still watched
	cm.Data["k"] = "changed"
	d.check()
	if len(*failures) != 1 {
		t.Fatalf("mutation within the second retention period not detected: %q", *failures)
	}
	clk.Step(d.retention + time.Second)
	d.check() // rotation: cm is dropped
	if len(*failures) != 1 {
		t.Fatalf("object still watched after two retention periods: %q", *failures)
	}
}

func TestMutationDetectorRunChecksAtOnceThenEveryPeriodUntilStopped(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := clocktesting.NewFakeClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	fired := make(chan string, 10)
	d := newCacheMutationDetector("live", clk, func(msg string) { fired <- msg })
	cm := watchedConfigMap("a")
	d.AddObject(cm)

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); d.Run(stop) }()

	waitForTimer := func() {
		for !clk.HasWaiters() {
			runtime.Gosched()
		}
	}
	waitForTimer() // the first check ran (nothing mutated) and Run sleeps
	select {
	case msg := <-fired:
		t.Fatalf("fired before any mutation: %s", msg)
	default:
	}
	cm.Data["k"] = "changed"
	clk.Step(time.Second)
	if msg := <-fired; msg != "cache live modified" {
		t.Fatalf("fired with %q", msg)
	}
	waitForTimer()
	close(stop)
	<-done
}

func TestMutationDetectorRunChecksOnceEvenWhenAlreadyStopped(t *testing.T) {
	d, _, failures := newTestMutationDetector()
	cm := watchedConfigMap("a")
	d.AddObject(cm)
	cm.Data["k"] = "changed"
	stop := make(chan struct{})
	close(stop)
	d.Run(stop)
	if len(*failures) != 1 {
		t.Fatalf("failures = %q, want one check before stopping", *failures)
	}
}

func TestMutationDetectorReportsARewrittenQuantityAndAMovedTimeZone(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*v1.Pod)
	}{
		{name: "1 rewritten as 1000m", mutate: func(p *v1.Pod) {
			p.Spec.Overhead[v1.ResourceCPU] = resource.MustParse("1000m")
		}},
		{name: "creation time moved to another zone", mutate: func(p *v1.Pod) {
			p.CreationTimestamp = metav1.NewTime(p.CreationTimestamp.In(time.FixedZone("UTC+2", 7200)))
		}},
		{name: "nil labels made empty", mutate: func(p *v1.Pod) { p.Labels = map[string]string{} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, _, failures := newTestMutationDetector()
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))}}
			pod.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
			d.AddObject(pod)
			tc.mutate(pod)
			d.check()
			if len(*failures) != 1 {
				t.Fatalf("failures = %q, want one", *failures)
			}
		})
	}
}
