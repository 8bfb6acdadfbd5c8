package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kcache-go/cache/internal/realisticpods"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// benchCreators is how many goroutines create the benchmark's pods.
const benchCreators = 16

// benchNamespacePrefix starts the names of the benchmark's namespaces:
// the generator's namespaces (team-index), prefixed per size, so that every
// size gets a fresh set (namespaces cannot be deleted without a
// controller-manager).
func benchNamespacePrefix(n int) string { return fmt.Sprintf("sync-bench-%d-", n) }

// benchPod is pod i of gen as a client creates it: decoded from the
// generator's JSON, in its prefixed namespace, with the fields the server
// owns cleared, and the status the generator gave it (Create drops a
// status; createBenchPod writes it with UpdateStatus).
func benchPod(gen *realisticpods.Generator, i int, prefix string) (*v1.Pod, v1.PodStatus, error) {
	pod, err := realisticpods.DecodePod(gen.AppendPod(nil, i, true))
	if err != nil {
		return nil, v1.PodStatus{}, err
	}
	pod.Namespace = prefix + pod.Namespace
	pod.ResourceVersion = ""
	pod.UID = ""
	pod.CreationTimestamp = metav1.Time{}
	return pod, pod.Status, nil
}

// createBenchPods creates the n pods of gen (and their namespaces and
// priority classes) with benchCreators parallel creators, each pod with a
// Create and an UpdateStatus, and returns the namespaces.
func createBenchPods(ctx context.Context, client kubernetes.Interface, gen *realisticpods.Generator, prefix string) ([]string, error) {
	names, err := createBenchPodsPrerequisites(ctx, client, gen, prefix)
	if err != nil {
		return nil, err
	}
	err = parallel(benchCreators, func(w int) error {
		for i := w; i < gen.N(); i += benchCreators {
			if err := createBenchPod(ctx, client, gen, i, prefix); err != nil {
				return err
			}
		}
		return nil
	})
	return names, err
}

// createBenchPodsPrerequisites creates what the pods of gen refer to:
// their namespaces and priority classes (a pod's priority must equal its
// class's value). It returns the namespaces.
func createBenchPodsPrerequisites(ctx context.Context, client kubernetes.Interface, gen *realisticpods.Generator, prefix string) ([]string, error) {
	namespaces, classes := map[string]bool{}, map[string]int32{}
	for i := 0; i < gen.N(); i += realisticpods.PodsPerApp {
		pod, _, err := benchPod(gen, i, prefix)
		if err != nil {
			return nil, err
		}
		namespaces[pod.Namespace] = true
		if pod.Spec.PriorityClassName != "" && pod.Spec.Priority != nil {
			classes[pod.Spec.PriorityClassName] = *pod.Spec.Priority
		}
	}
	for name, value := range classes {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("priority class %s: %w", name, err)
		}
	}
	var names []string
	for ns := range namespaces {
		_, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("namespace %s: %w", ns, err)
		}
		names = append(names, ns)
	}
	return names, nil
}

func createBenchPod(ctx context.Context, client kubernetes.Interface, gen *realisticpods.Generator, i int, prefix string) error {
	pod, status, err := benchPod(gen, i, prefix)
	if err != nil {
		return err
	}
	pods := client.CoreV1().Pods(pod.Namespace)
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("pod %d: create: %w", i, err)
	}
	created.Status = status
	if _, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("pod %d: update status: %w", i, err)
	}
	return nil
}

// deleteBenchPods deletes every pod of namespaces (grace period 0: no
// kubelet would ever confirm a graceful deletion), benchCreators
// namespaces at a time, each with deleteBenchNamespacePods.
//
// NB: not all namespaces at once: at 50,000 pods, 250 parallel
// DeleteCollections ran past the server's request timeout (HTTP/2 stream
// resets) and left pods behind.
func deleteBenchPods(ctx context.Context, client kubernetes.Interface, namespaces []string) error {
	return parallel(benchCreators, func(w int) error {
		for i := w; i < len(namespaces); i += benchCreators {
			if err := deleteBenchNamespacePods(ctx, client, namespaces[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// benchDeleteAttempts is how often deleteBenchNamespacePods asks.
const benchDeleteAttempts = 3

// deleteBenchNamespacePods deletes the pods of namespace with
// DeleteCollection, asking again (it deletes what is left) while it fails,
// up to benchDeleteAttempts times, and returns the last error.
func deleteBenchNamespacePods(ctx context.Context, client kubernetes.Interface, namespace string) error {
	zero := int64(0)
	var err error
	for attempt := 0; attempt < benchDeleteAttempts; attempt++ {
		err = client.CoreV1().Pods(namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("namespace %s, %d attempts: %w", namespace, benchDeleteAttempts, err)
}

// benchShape is what a direct LIST of every pod returned.
type benchShape struct {
	// rvs maps namespace/name to resourceVersion.
	rvs map[string]string
	// bytes is the body size of the whole LIST, per content type.
	bytes map[string]int64
	// managedFields is the average number of managedFields entries per pod;
	// running the share of pods whose stored status is Running.
	managedFields, running float64
	// managers are the field managers of the first pod listed.
	managers []string
}

// listBenchShape lists every pod of the cluster through each client (one
// per content type), raw, and decodes the list for the keys and resource
// versions (from the last client's LIST).
func listBenchShape(ctx context.Context, clients map[string]*kubernetes.Clientset) (*benchShape, error) {
	shape := &benchShape{bytes: map[string]int64{}}
	for name, client := range clients {
		rvs, mf, running, size, err := listAllPodsRaw(ctx, client, &shape.managers)
		if err != nil {
			return nil, fmt.Errorf("%s LIST: %w", name, err)
		}
		shape.rvs, shape.bytes[name] = rvs, size
		if n := float64(len(rvs)); n > 0 {
			shape.managedFields, shape.running = float64(mf)/n, float64(running)/n
		}
	}
	return shape, nil
}

// listAllPodsRaw lists every pod in one unpaged, consistent LIST and
// returns their resource versions, managedFields entries, Running pods and
// body bytes; managers gets the field managers of the first pod.
//
// NB: not in pages: the suite's server compacts etcd every 5 s, and at
// 50,000 pods a paged LIST outlives its continue token (410 Gone); the
// unpaged one is served from the watch cache in one answer.
func listAllPodsRaw(ctx context.Context, client *kubernetes.Clientset, managers *[]string) (rvs map[string]string, managedFields, running int, size int64, err error) {
	rvs = map[string]string{}
	decoder := scheme.Codecs.UniversalDeserializer()
	cont := ""
	for {
		opts := metav1.ListOptions{Continue: cont}
		raw, err := client.CoreV1().RESTClient().Get().Resource("pods").VersionedParams(&opts, scheme.ParameterCodec).DoRaw(ctx)
		if err != nil {
			return nil, 0, 0, 0, err
		}
		size += int64(len(raw))
		list := &v1.PodList{}
		if _, _, err := decoder.Decode(raw, nil, list); err != nil {
			return nil, 0, 0, 0, err
		}
		for i := range list.Items {
			p := &list.Items[i]
			if len(rvs) == 0 {
				*managers = nil
				for _, mf := range p.ManagedFields {
					*managers = append(*managers, mf.Manager+"/"+string(mf.Operation)+"/"+mf.Subresource)
				}
			}
			rvs[p.Namespace+"/"+p.Name] = p.ResourceVersion
			managedFields += len(p.ManagedFields)
			if p.Status.Phase == v1.PodRunning {
				running++
			}
		}
		if cont = list.Continue; cont == "" {
			return rvs, managedFields, running, size, nil
		}
	}
}

// benchIndexer is what the sync benchmark reads of an informer's cache;
// both libraries' Indexers have it.
type benchIndexer interface {
	ListKeys() []string
	GetByKey(key string) (interface{}, bool, error)
}

// checkCacheMatches compares a synced cache with the direct LIST: the same
// number of keys, and for up to benchSampleKeys keys (spread over the
// list) the same resourceVersion. A configuration that syncs the wrong
// thing cannot look fast.
func checkCacheMatches(t *testing.T, label string, cache benchIndexer, want *benchShape, keys []string) {
	t.Helper()
	if got := len(cache.ListKeys()); got != len(want.rvs) {
		t.Errorf("%s: cache holds %d pods, the direct LIST %d", label, got, len(want.rvs))
	}
	for _, key := range keys {
		obj, ok, err := cache.GetByKey(key)
		if err != nil || !ok {
			t.Errorf("%s: %s not in the cache (err %v)", label, key, err)
			continue
		}
		if got := mustMeta(obj.(runtime.Object)).GetResourceVersion(); got != want.rvs[key] {
			t.Errorf("%s: %s has resourceVersion %s, the direct LIST %s", label, key, got, want.rvs[key])
		}
	}
}

// benchSampleKeys is how many keys checkCacheMatches compares.
const benchSampleKeys = 16

// sampleKeys picks benchSampleKeys keys of shape, spread over its sorted
// keys.
func sampleKeys(shape *benchShape) []string {
	all := make([]string, 0, len(shape.rvs))
	for k := range shape.rvs {
		all = append(all, k)
	}
	slices.Sort(all)
	var out []string
	for i := 0; i < benchSampleKeys && len(all) > 0; i++ {
		out = append(out, all[i*len(all)/benchSampleKeys])
	}
	return out
}

// populateBenchCluster creates n realistic pods, checks that the cluster
// holds exactly them and returns the direct LIST's shape; cleanup deletes
// the pods.
func populateBenchCluster(t *testing.T, ctx context.Context, n int, clients map[string]*kubernetes.Clientset) *benchShape {
	t.Helper()
	gen, err := realisticpods.New(n, realisticpods.Seed)
	if err != nil {
		t.Fatal(err)
	}
	client := clients["protobuf"]
	start := time.Now()
	namespaces, err := createBenchPods(ctx, client, gen, benchNamespacePrefix(n))
	t.Cleanup(func() {
		if err := deleteBenchPods(context.Background(), client, namespaces); err != nil {
			t.Errorf("deleting the benchmark's pods: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %d pods in %d namespaces in %s (%d creators, Create + UpdateStatus each)",
		n, len(namespaces), time.Since(start).Round(time.Millisecond), benchCreators)
	shape, err := listBenchShape(ctx, clients)
	if err != nil {
		t.Fatal(err)
	}
	if len(shape.rvs) != n {
		t.Fatalf("a direct LIST of every pod returned %d pods, want the benchmark's %d (does another test leave pods behind?)", len(shape.rvs), n)
	}
	t.Logf("stored: %.0f B/pod as JSON, %.0f B/pod as protobuf; %.1f managedFields entries per pod (first pod: %v); %.0f%% of pods Running",
		float64(shape.bytes["json"])/float64(n), float64(shape.bytes["protobuf"])/float64(n), shape.managedFields, shape.managers, 100*shape.running)
	return shape
}
