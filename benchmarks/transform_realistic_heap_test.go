package benchmarks

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/internal/realisticpods"
	"github.com/kcache-go/cache/transform"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// realisticHeapPods is how many realistic pods the retained-heap benchmark
// of the transforms decodes and keeps.
const realisticHeapPods = 10_000

// realisticPodShapes are the shapes of pods the retained-heap benchmark
// compares: the realistic pods as generated (50 pods per app, with equal
// specs), the same pods with parts of their own, and the smaller pods of
// indexed Jobs whose members are configured per index.
var realisticPodShapes = []struct {
	name string
	json func(gen *realisticpods.Generator, i int) []byte
}{
	{"templated", func(gen *realisticpods.Generator, i int) []byte { return gen.AppendPod(nil, i, true) }},
	{"own-parts", realisticOwnPartsPod},
	{"indexed-job", func(_ *realisticpods.Generator, i int) []byte { return indexedJobPodJSON(i) }},
}

// realisticOwnPartsPod is the JSON of realistic pod i given what the pods
// of a StatefulSet or an indexed Job configured per member have: in every
// container an env var, an argument and a cpu limit of its own (its ordinal).
// Everything else stays as in the template.
func realisticOwnPartsPod(gen *realisticpods.Generator, i int) []byte {
	pod, err := realisticpods.DecodePod(gen.AppendPod(nil, i, true))
	if err != nil {
		panic(err)
	}
	ordinal := strconv.Itoa(i)
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for k := range cs {
			c := &cs[k]
			c.Env = append(c.Env, v1.EnvVar{Name: "MEMBER_ORDINAL", Value: ordinal})
			c.Args = append(c.Args, "--member="+ordinal)
			if c.Resources.Limits == nil {
				c.Resources.Limits = v1.ResourceList{}
			}
			c.Resources.Limits[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(1000+i), resource.DecimalSI)
		}
	}
	data, err := json.Marshal(pod)
	if err != nil {
		panic(err)
	}
	return data
}

// indexedJobPodJSON is the JSON of pod i of an indexed Job whose members
// are configured per index, as an API server returns it: one container
// whose args, env and cpu limit are its own, the command, image, volume
// mounts, tolerations and token volume of every pod of the Job, a status
// with conditions and a terminated container status.
func indexedJobPodJSON(i int) []byte {
	index := strconv.Itoa(i)
	job := "shard-reindex-" + strconv.Itoa(i/1000)
	created := metav1.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second))
	pod := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: job + "-" + index + "-" + realisticpods.Alnum(rand.New(rand.NewPCG(realisticpods.Seed, uint64(i))), 5), GenerateName: job + "-" + index + "-",
			Namespace: "batch", UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			ResourceVersion: strconv.Itoa(9_000_000 + i), CreationTimestamp: created,
			Labels: map[string]string{"batch.kubernetes.io/job-name": job, "job-name": job,
				"batch.kubernetes.io/job-completion-index": index, "batch.kubernetes.io/controller-uid": "c0ffee00-0000-4000-8000-" + strconv.Itoa(100000000000+i/1000)},
			Annotations: map[string]string{"batch.kubernetes.io/job-completion-index": index},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job,
				UID: types.UID("c0ffee00-0000-4000-8000-" + strconv.Itoa(100000000000+i/1000)), Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}},
		},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{
				Name: "reindex", Image: "registry.example.com/search/reindex:2.7.1",
				Command: []string{"/usr/local/bin/reindex"},
				Args:    []string{"--shard=" + index, "--shards=100000", "--batch-size=500"},
				Env: []v1.EnvVar{{Name: "SHARD_ID", Value: "shard-" + index},
					{Name: "JOB_COMPLETION_INDEX", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
				Resources: v1.ResourceRequirements{
					Limits:   v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(int64(500+i%1000), resource.DecimalSI), v1.ResourceMemory: resource.MustParse("1Gi")},
					Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m"), v1.ResourceMemory: resource.MustParse("512Mi")}},
				VolumeMounts:             []v1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: v1.TerminationMessageReadFile, ImagePullPolicy: v1.PullIfNotPresent,
			}},
			RestartPolicy: v1.RestartPolicyNever, DNSPolicy: v1.DNSClusterFirst, SchedulerName: "default-scheduler",
			ServiceAccountName: "default", NodeName: fmt.Sprintf("ip-10-16-0-%d.eu-west-1.compute.internal", i%100),
			Hostname: job + "-" + index, Subdomain: job,
			Tolerations: []v1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))}},
			Volumes: []v1.Volume{{Name: "kube-api-access", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
				DefaultMode: ptrTo(int32(420)), Sources: []v1.VolumeProjection{
					{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptrTo(int64(3607))}},
					{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []v1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}}}}}}},
		},
		Status: v1.PodStatus{
			Phase: v1.PodSucceeded, HostIP: fmt.Sprintf("10.16.0.%d", i%100), PodIP: fmt.Sprintf("100.64.%d.%d", i/250, i%250),
			Conditions: []v1.PodCondition{
				{Type: v1.PodInitialized, Status: v1.ConditionTrue, Reason: "PodCompleted", LastTransitionTime: created},
				{Type: v1.PodReady, Status: v1.ConditionFalse, Reason: "PodCompleted", LastTransitionTime: created},
				{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: created}},
			StartTime: &created, QOSClass: v1.PodQOSBurstable,
			ContainerStatuses: []v1.ContainerStatus{{Name: "reindex", Image: "registry.example.com/search/reindex:2.7.1",
				ImageID: "registry.example.com/search/reindex@sha256:" + strings.Repeat("ab", 32), ContainerID: "containerd://" + fmt.Sprintf("%064x", i),
				State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: created, FinishedAt: created}}}},
		},
	}
	data, err := json.Marshal(pod)
	if err != nil {
		panic(err)
	}
	return data
}

// realisticHeapTransforms are the transforms the retained-heap benchmark
// compares.
var realisticHeapTransforms = []struct {
	name string
	fn   kcache.TransformFunc
}{
	{"none", nil},
	{"Recommended", transform.Recommended},
	{"Recommended+ShareIdenticalPodParts", transform.Chain(transform.Recommended, transform.ShareIdenticalPodParts)},
}

// BenchmarkTransformRetainedHeapRealisticPods reports retained-B/pod: the
// live heap per pod of 10,000 realistic pods (internal/realisticpods)
// decoded one by one from JSON, as a watch delivers them, and transformed,
// after a forced GC (what the transforms' tables keep included), for each
// shape of realisticPodShapes and each transform of
// realisticHeapTransforms; and other-sys-B/pod, the growth of the runtime's
// off-heap bookkeeping meanwhile (weak pointers' records among it), which
// the Go heap does not show.
func BenchmarkTransformRetainedHeapRealisticPods(b *testing.B) {
	gen, err := realisticpods.New(realisticHeapPods, realisticpods.Seed)
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range realisticPodShapes {
		data := make([][]byte, gen.N())
		for i := range data {
			data[i] = shape.json(gen, i)
		}
		for _, tr := range realisticHeapTransforms {
			b.Run("shape="+shape.name+"/transform="+tr.name, func(b *testing.B) {
				var heap, other float64
				for i := 0; i < b.N; i++ {
					h, o := realisticRetained(data, tr.fn)
					heap, other = heap+float64(h), other+float64(o)
				}
				b.ReportMetric(heap/float64(b.N)/float64(len(data)), "retained-B/pod")
				b.ReportMetric(other/float64(b.N)/float64(len(data)), "other-sys-B/pod")
			})
		}
	}
}

// realisticRetained decodes every pod of data, applies fn to each (unless
// nil) and returns the live heap then held, after a forced GC, minus the
// live heap before decoding, and the growth of the runtime's other
// off-heap memory (MemStats.OtherSys) meanwhile.
func realisticRetained(data [][]byte, fn kcache.TransformFunc) (heap, other int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pods := make([]interface{}, len(data))
	for i, d := range data {
		pod, err := realisticpods.DecodePod(d)
		if err != nil {
			panic(err)
		}
		pods[i] = pod
		if fn != nil {
			if pods[i], err = fn(pods[i]); err != nil {
				panic(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(pods)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), int64(after.OtherSys) - int64(before.OtherSys)
}
