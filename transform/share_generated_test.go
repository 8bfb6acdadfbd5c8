package transform_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcache-go/cache/transform"
)

var placeholder = regexp.MustCompile(`\{\{[A-Z_]+\}\}`)

// realisticTemplate is one template of internal/realisticpods/templates
// with its placeholders filled in for pod i of app app.
func realisticTemplate(t *testing.T, file string, rng *rand.Rand, i int) map[string]interface{} {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "internal", "realisticpods", "templates", file))
	if err != nil {
		t.Fatal(err)
	}
	app := []string{"shop", "cart"}[rng.Intn(2)]
	filled := placeholder.ReplaceAllFunc(raw, func(p []byte) []byte {
		switch string(p) {
		case "{{CREATED}}", "{{RESTARTED}}", "{{STARTED}}", "{{READY}}":
			return []byte(fmt.Sprintf("2026-01-0%dT00:00:%02dZ", 1+rng.Intn(3), rng.Intn(60)))
		case "{{HOST_IP}}", "{{POD_IP}}":
			return []byte(fmt.Sprintf("10.0.%d.%d", rng.Intn(3), rng.Intn(255)))
		case "{{APP}}":
			return []byte(app)
		case "{{TAG}}":
			return []byte([]string{"1.0", "1.1"}[rng.Intn(2)])
		case "{{NAME}}", "{{UID}}", "{{KAA}}":
			return []byte(fmt.Sprintf("%s-%d", app, i))
		}
		return []byte(fmt.Sprintf("v%d", rng.Intn(3)))
	})
	var m map[string]interface{}
	mustUnmarshal(filled, &m)
	return m
}

// variants are the values a generated pod's edits pick from: quantities
// of one amount in several formats, nil vs empty at several depths,
// int vs string ports, pointers to zero values.
var variants = map[string][]interface{}{
	"quantity":  {"1", "1000m", "1e3", "1k", "0.001k", "1Gi", "1024Mi", "1073741824", "100m", "0.1"},
	"port":      {float64(80), "80", "http", float64(8080)},
	"selector":  {nil, map[string]interface{}{}, map[string]interface{}{"a": "b"}, map[string]interface{}{"a": ""}},
	"strings":   {nil, []interface{}{}, []interface{}{""}, []interface{}{"a"}, []interface{}{"a", "b"}},
	"object":    {nil, map[string]interface{}{}, map[string]interface{}{"runAsNonRoot": false}, map[string]interface{}{"runAsNonRoot": true}},
	"tolerates": {nil, []interface{}{}, []interface{}{map[string]interface{}{}}, []interface{}{map[string]interface{}{"key": "k", "operator": "Exists"}}},
}

func pick(rng *rand.Rand, kind string) interface{} {
	v := variants[kind]
	return v[rng.Intn(len(v))]
}

// setOrDelete sets m[k] to v, or deletes k when v is nil (an absent field).
func setOrDelete(m map[string]interface{}, k string, v interface{}) {
	if v == nil {
		delete(m, k)
	} else {
		m[k] = v
	}
}

// editContainer applies random edits to one container of a generated pod.
func editContainer(rng *rand.Rand, c map[string]interface{}) {
	res := map[string]interface{}{}
	for _, k := range []string{"limits", "requests"} {
		switch rng.Intn(3) {
		case 0:
			res[k] = map[string]interface{}{"cpu": pick(rng, "quantity"), "memory": pick(rng, "quantity")}
		case 1:
			res[k] = map[string]interface{}{}
		}
	}
	c["resources"] = res
	setOrDelete(c, "args", pick(rng, "strings"))
	setOrDelete(c, "command", pick(rng, "strings"))
	setOrDelete(c, "securityContext", pick(rng, "object"))
	if rng.Intn(2) == 0 {
		c["livenessProbe"] = map[string]interface{}{"httpGet": map[string]interface{}{"path": "/", "port": pick(rng, "port")}}
	}
	setOrDelete(c, "env", pick(rng, "tolerates"))
}

// generatedPod is pod i of the seeded generator: a realistic template
// with random edits, decoded as a client decodes it.
func generatedPod(t *testing.T, rng *rand.Rand, i int) *corev1.Pod {
	m := realisticTemplate(t, []string{"web.json", "api.json", "worker.json"}[rng.Intn(3)], rng, i)
	spec := m["spec"].(map[string]interface{})
	for _, c := range spec["containers"].([]interface{}) {
		if rng.Intn(3) > 0 {
			editContainer(rng, c.(map[string]interface{}))
		}
	}
	setOrDelete(spec, "nodeSelector", pick(rng, "selector"))
	setOrDelete(spec, "tolerations", pick(rng, "tolerates"))
	setOrDelete(spec, "imagePullSecrets", pick(rng, "tolerates"))
	setOrDelete(spec, "overhead", map[string]interface{}{"cpu": pick(rng, "quantity")})
	if rng.Intn(4) == 0 {
		delete(spec, "overhead")
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{}
	mustUnmarshal(raw, pod)
	return pod
}

func TestSharingPodPartsNeverChangesTheContentOrJSONOfAnyGeneratedPodBeforeOrAfterLaterPods(t *testing.T) {
	rng := rand.New(rand.NewSource(20261201))
	type kept struct {
		pod  *corev1.Pod
		copy *corev1.Pod
	}
	var pods []kept
	for i := 0; i < 600; i++ {
		pod := generatedPod(t, rng, i)
		copied := pod.DeepCopy()
		if _, err := sharingTransform(pod); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, kept{pod, copied})
	}
	contexts := map[*corev1.PodSecurityContext]bool{}
	for _, k := range pods {
		contexts[k.pod.Spec.SecurityContext] = true
	}
	if len(contexts) > 10 {
		t.Fatalf("the generated pods have %d distinct security contexts: nothing was shared, the test tests nothing", len(contexts))
	}
	for i, k := range pods { // after every later pod was transformed too
		copied := k.copy.DeepCopy()
		_, _ = transform.StripManagedFields(copied)
		_, _ = transform.StripLastAppliedConfiguration(copied)
		if !reflect.DeepEqual(k.pod.Spec, k.copy.Spec) || !reflect.DeepEqual(k.pod.Status, k.copy.Status) ||
			!reflect.DeepEqual(k.pod, copied) {
			t.Fatalf("pod %d: the content changed:\n%#v\nwant\n%#v", i, k.pod.Spec, k.copy.Spec)
		}
		wantJSON, _ := json.Marshal(copied)
		if got, _ := json.Marshal(k.pod); string(got) != string(wantJSON) {
			t.Fatalf("pod %d: JSON\n%s\nwant\n%s", i, got, wantJSON)
		}
		if got, _ := json.Marshal(k.pod.Spec); string(got) != string(mustJSON(t, k.copy.Spec)) {
			t.Fatalf("pod %d: spec JSON changed", i)
		}
	}
}

func mustJSON(t *testing.T, v interface{}) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
