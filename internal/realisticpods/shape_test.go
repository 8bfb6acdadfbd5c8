package realisticpods

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"go.uber.org/goleak"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// The generator's own tests: fast (a few hundred pods), in `make unit`.

const testPods = 400

func newTestGenerator(t *testing.T, n int, seed int64) *Generator {
	t.Helper()
	g, err := New(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestRealisticPodsAreTheSameBytesForTheSameSeedAndDifferForAnother(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := []struct {
		name      string
		seedA     int64
		seedB     int64
		wantEqual bool
	}{
		{"same seed", Seed, Seed, true},
		{"other seed", Seed, Seed + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestGenerator(t, 10_000, tt.seedA).AppendList(nil, 0, testPods, "7", "next")
			b := newTestGenerator(t, 10_000, tt.seedB).AppendList(nil, 0, testPods, "7", "next")
			if got := bytes.Equal(a, b); got != tt.wantEqual {
				t.Fatalf("pages equal = %v, want %v", got, tt.wantEqual)
			}
		})
	}
}

func TestARealisticPageRendersTheSamePodsAsSinglePodDocuments(t *testing.T) {
	g := newTestGenerator(t, 10_000, Seed)
	list, err := DecodeList(g.AppendList(nil, 100, 110, "7", ""))
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		pod, err := DecodePod(g.AppendPod(nil, 100+i, true))
		if err != nil {
			t.Fatal(err)
		}
		pod.TypeMeta = metav1.TypeMeta{}
		a, _ := json.Marshal(pod)
		b, _ := json.Marshal(&list.Items[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("pod %d differs between the page and the single document", 100+i)
		}
	}
}

// realisticManagers are the field managers every pod of a template has.
var realisticManagers = map[string][]string{
	"web":    {"kube-controller-manager/Update", "vpa-updater/Update", "kubelet/Update/status"},
	"api":    {"kube-controller-manager/Update", "argocd-controller/Apply", "istio-sidecar-injector/Update", "kubelet/Update/status"},
	"worker": {"kubectl-client-side-apply/Update", "kube-controller-manager/Update", "kubelet/Update/status"},
}

func TestRealisticPodsDecodeWithTheAdvertisedShape(t *testing.T) {
	g := newTestGenerator(t, 10_000, Seed)
	data := g.AppendList(nil, 0, testPods, g.ListResourceVersion(), "")
	list, err := DecodeList(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != testPods {
		t.Fatalf("decoded %d pods, want %d", len(list.Items), testPods)
	}
	perApp := map[string]int{}
	uids := map[string]bool{}
	lastApplied := 0
	for i := range list.Items {
		pod := &list.Items[i]
		size := len(g.AppendPod(nil, i, false))
		if size < 5_000 || size > 15_000 {
			t.Errorf("pod %d is %d bytes of JSON, want 5–15 KB", i, size)
		}
		checkRealisticPodShape(t, g.TemplateOf(i), pod)
		perApp[pod.Labels["app"]]++
		uids[string(pod.UID)] = true
		if _, ok := pod.Annotations[v1.LastAppliedConfigAnnotation]; ok {
			lastApplied++
		}
	}
	for app, n := range perApp {
		if n != PodsPerApp {
			t.Errorf("app %s has %d pods, want %d sharing its labels", app, n, PodsPerApp)
		}
	}
	if len(uids) != testPods {
		t.Errorf("%d distinct UIDs, want %d", len(uids), testPods)
	}
	if lastApplied == 0 || lastApplied == testPods {
		t.Errorf("%d of %d pods carry the last-applied annotation, want some", lastApplied, testPods)
	}
	t.Logf("%d pods, %.0f B of JSON per pod on average", testPods, float64(len(data))/testPods)
}

// checkRealisticPodShape checks one decoded pod against its template's
// advertised shape.
func checkRealisticPodShape(t *testing.T, template string, pod *v1.Pod) {
	t.Helper()
	var managers []string
	for _, mf := range pod.ManagedFields {
		id := mf.Manager + "/" + string(mf.Operation)
		if mf.Subresource != "" {
			id += "/" + mf.Subresource
		}
		managers = append(managers, id)
		set := &fieldpath.Set{}
		if mf.FieldsV1 == nil || set.FromJSON(bytes.NewReader(mf.FieldsV1.Raw)) != nil || set.Empty() {
			t.Errorf("%s: managedFields of %s are not a valid FieldsV1 set", pod.Name, id)
		}
	}
	if want := realisticManagers[template]; !slices.Equal(managers, want) {
		t.Errorf("%s (%s): managers %v, want %v", pod.Name, template, managers, want)
	}
	if len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].Kind != "ReplicaSet" || pod.OwnerReferences[0].Controller == nil || !*pod.OwnerReferences[0].Controller {
		t.Errorf("%s: owner references %v, want one controlling ReplicaSet", pod.Name, pod.OwnerReferences)
	}
	for _, l := range []string{"app", "pod-template-hash", "team", "tier"} {
		if pod.Labels[l] == "" {
			t.Errorf("%s: no %s label", pod.Name, l)
		}
	}
	if la, ok := pod.Annotations[v1.LastAppliedConfigAnnotation]; ok != (template == "worker") || (ok && !json.Valid([]byte(la))) {
		t.Errorf("%s (%s): last-applied annotation present=%v, want only on worker pods and valid JSON", pod.Name, template, ok)
	}
	checkRealisticPodSpecAndStatus(t, pod)
}

func checkRealisticPodSpecAndStatus(t *testing.T, pod *v1.Pod) {
	t.Helper()
	st := pod.Status
	if len(st.Conditions) < 4 || len(st.ContainerStatuses) != len(pod.Spec.Containers) || len(st.PodIPs) != 1 ||
		st.QOSClass == "" || st.StartTime == nil || st.Phase != v1.PodRunning {
		t.Errorf("%s: incomplete status %+v", pod.Name, st)
	}
	if n := len(pod.Spec.Containers); n < 1 || n > 3 {
		t.Errorf("%s: %d containers, want 1–3", pod.Name, n)
	}
	c := pod.Spec.Containers[0]
	if len(c.Env) == 0 || len(c.Resources.Requests) == 0 || len(c.VolumeMounts) == 0 {
		t.Errorf("%s: first container lacks env, resources or mounts", pod.Name)
	}
	projected := false
	for _, vol := range pod.Spec.Volumes {
		projected = projected || (vol.Projected != nil && len(vol.Projected.Sources) == 3)
	}
	if !projected || len(pod.Spec.Tolerations) < 2 || pod.Spec.NodeName == "" {
		t.Errorf("%s: no projected token volume, tolerations or node", pod.Name)
	}
}

func TestRealisticPodsHaveNoFieldThePodTypeDoesNotKnow(t *testing.T) {
	g := newTestGenerator(t, 10_000, Seed)
	strict := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjson.SerializerOptions{Strict: true})
	for _, i := range []int{0, 50, 150} { // web, api, worker
		if _, _, err := strict.Decode(g.AppendPod(nil, i, true), nil, &v1.Pod{}); err != nil {
			t.Errorf("pod %d (%s): %v", i, g.TemplateOf(i), err)
		}
	}
}
