package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// Realistic pods: the hand-written templates in testdata/realistic-pods
// (pods as a kube-apiserver returns them, managedFields of several field
// managers included) expanded into n pods by a seeded generator. The
// generator renders JSON bytes only; the benchmarks' sources decode them
// page by page (or event by event) with client-go's scheme codecs, as a
// client receives them, so that every decoded pod owns its strings.
//
// Shape of n pods: apps of realisticPodsPerApp pods (one ReplicaSet each,
// same labels, pod-template-hash, image and owner), realisticPodsPerNamespace
// pods per namespace (4 apps), realisticPodsPerNode pods per node on
// average, 12 teams; apps cycle through the templates 5:3:2 (web, api,
// worker). Everything that differs per pod (name, UID, resource version,
// node, IPs, timestamps, container IDs, token volume name) is drawn from a
// random source seeded with (seed, pod index), and everything per app from
// (seed, app index), so that any page can be rendered on its own.

const (
	// realisticSeed is the seed of every benchmark and test.
	realisticSeed = 20261201
	// realisticPodsPerApp is the replica count of every app.
	realisticPodsPerApp = 50
	// realisticPodsPerNamespace is 4 apps.
	realisticPodsPerNamespace = 200
	// realisticPodsPerNode is the average number of pods on a node.
	realisticPodsPerNode = 100
	// realisticTemplateDir holds the templates.
	realisticTemplateDir = "testdata/realistic-pods"
)

// realisticTemplateCycle maps app index mod 10 to a template.
var realisticTemplateCycle = [10]string{"web", "api", "web", "worker", "web", "api", "web", "worker", "web", "api"}

// realisticTeams are the team label values; a namespace belongs to one.
var realisticTeams = []string{"payments", "search", "checkout", "identity", "catalog", "shipping", "ads", "ml-platform", "messaging", "billing", "growth", "core-infra"}

// realisticAppWords name the apps.
var realisticAppWords = []string{"cart", "orders", "gateway", "pricing", "ledger", "indexer", "session", "notifier", "recommender", "inventory", "profile", "fraud", "quotes", "tracking", "render"}

// realisticTemplate is one template cut at its placeholders: parts[0],
// value of holes[0], parts[1], ... parts[len(holes)].
type realisticTemplate struct {
	name  string
	parts [][]byte
	holes []string
}

// realisticPods renders pods; it holds only the templates, never a
// rendered or decoded pod.
type realisticPods struct {
	seed      int64
	n         int
	templates map[string]*realisticTemplate
}

// newRealisticPods loads the templates for n pods with seed.
func newRealisticPods(n int, seed int64) (*realisticPods, error) {
	g := &realisticPods{seed: seed, n: n, templates: map[string]*realisticTemplate{}}
	for _, name := range []string{"web", "api", "worker"} {
		raw, err := os.ReadFile(filepath.Join(realisticTemplateDir, name+".json"))
		if err != nil {
			return nil, err
		}
		t, err := parseRealisticTemplate(name, raw)
		if err != nil {
			return nil, err
		}
		g.templates[name] = t
	}
	return g, nil
}

// parseRealisticTemplate compacts the JSON (the apiserver sends compact
// JSON) and cuts it at every {{NAME}}.
func parseRealisticTemplate(name string, raw []byte) (*realisticTemplate, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	t := &realisticTemplate{name: name}
	rest := compact.Bytes()
	for {
		open := bytes.Index(rest, []byte("{{"))
		if open < 0 {
			t.parts = append(t.parts, rest)
			return t, nil
		}
		closing := bytes.Index(rest[open:], []byte("}}"))
		if closing < 0 {
			return nil, fmt.Errorf("template %s: unclosed placeholder", name)
		}
		t.parts = append(t.parts, rest[:open])
		t.holes = append(t.holes, string(rest[open+2:open+closing]))
		rest = rest[open+closing+2:]
	}
}

// appIndex is the app of pod i.
func realisticAppIndex(i int) int { return i / realisticPodsPerApp }

// namespaceCount is the number of namespaces of n pods.
func (g *realisticPods) namespaceCount() int { return max(1, g.n/realisticPodsPerNamespace) }

// nodeCount is the number of nodes of n pods.
func (g *realisticPods) nodeCount() int { return max(1, g.n/realisticPodsPerNode) }

// templateOf names the template of pod i.
func (g *realisticPods) templateOf(i int) string {
	return realisticTemplateCycle[realisticAppIndex(i)%len(realisticTemplateCycle)]
}

// values are the placeholder values of pod i.
func (g *realisticPods) values(i int) map[string]string {
	app := realisticAppIndex(i)
	appRng := rand.New(rand.NewPCG(uint64(g.seed), uint64(app)<<32|0xa99))
	podRng := rand.New(rand.NewPCG(uint64(g.seed), uint64(i)))
	ns := (app * realisticPodsPerApp / realisticPodsPerNamespace) % g.namespaceCount()
	team := realisticTeams[ns%len(realisticTeams)]
	appName := realisticAppWords[app%len(realisticAppWords)] + "-" + strconv.Itoa(app)
	hash := realisticAlnum(appRng, 10)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	appTime := base.Add(time.Duration(app%720) * time.Hour)
	created := appTime.Add(time.Duration(podRng.IntN(1800)) * time.Second)
	started := created.Add(time.Duration(2+podRng.IntN(28)) * time.Second)
	ready := started.Add(time.Duration(5+podRng.IntN(55)) * time.Second)
	node := podRng.IntN(g.nodeCount())
	return map[string]string{
		"APP":       appName,
		"TEAM":      team,
		"NAMESPACE": team + "-" + strconv.Itoa(ns),
		"HASH":      hash,
		"RS_UID":    realisticUUID(appRng),
		"TAG":       "v1." + strconv.Itoa(app%40) + "." + strconv.Itoa(appRng.IntN(20)),
		"DIGEST1":   realisticHex(appRng, 64),
		"RESTARTED": appTime.Add(-24 * time.Hour).Format(time.RFC3339),
		"NAME":      appName + "-" + hash + "-" + realisticAlnum(podRng, 5),
		"UID":       realisticUUID(podRng),
		"RV":        strconv.Itoa(4_000_000 + 3*i + podRng.IntN(3)),
		"CREATED":   created.Format(time.RFC3339),
		"STARTED":   started.Format(time.RFC3339),
		"READY":     ready.Format(time.RFC3339),
		"NODE":      fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", 16+node>>16, (node>>8)&255, node&255),
		"HOST_IP":   fmt.Sprintf("10.%d.%d.%d", 16+node>>16, (node>>8)&255, node&255),
		"POD_IP":    fmt.Sprintf("100.%d.%d.%d", 64+(i>>16)&63, (i>>8)&255, i&255),
		"KAA":       "kube-api-access-" + realisticAlnum(podRng, 5),
		"CID1":      realisticHex(podRng, 64),
		"CID2":      realisticHex(podRng, 64),
		"CID3":      realisticHex(podRng, 64),
	}
}

// appendPod appends the JSON of pod i; withKind adds kind and apiVersion,
// as a watch event's object has them (list items do not).
func (g *realisticPods) appendPod(dst []byte, i int, withKind bool) []byte {
	t := g.templates[g.templateOf(i)]
	vals := g.values(i)
	for k, part := range t.parts {
		if k == 0 && withKind {
			dst = append(dst, `{"kind":"Pod","apiVersion":"v1",`...)
			part = part[1:]
		}
		dst = append(dst, part...)
		if k < len(t.holes) {
			v, ok := vals[t.holes[k]]
			if !ok {
				panic("realistic pods: no value for placeholder " + t.holes[k])
			}
			dst = append(dst, v...)
		}
	}
	return dst
}

// appendList appends a PodList page of pods [start, end) with the list's
// resource version and continue token, as the apiserver sends it.
func (g *realisticPods) appendList(dst []byte, start, end int, rv, cont string) []byte {
	dst = append(dst, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"`...)
	dst = append(dst, rv...)
	dst = append(dst, '"')
	if cont != "" {
		dst = append(dst, `,"continue":"`...)
		dst = append(dst, cont...)
		dst = append(dst, '"')
	}
	dst = append(dst, `},"items":[`...)
	for i := start; i < end; i++ {
		if i > start {
			dst = append(dst, ',')
		}
		dst = g.appendPod(dst, i, false)
	}
	return append(dst, "]}"...)
}

// listResourceVersion is the resource version of the whole list.
func (g *realisticPods) listResourceVersion() string { return strconv.Itoa(4_000_000 + 3*g.n + 3) }

// realisticDecoder decodes as client-go's typed clients do: the scheme's
// codecs, without conversion or defaulting.
var realisticDecoder = scheme.Codecs.UniversalDeserializer()

// decodeRealisticList decodes one PodList page.
func decodeRealisticList(data []byte) (*v1.PodList, error) {
	list := &v1.PodList{}
	obj, _, err := realisticDecoder.Decode(data, nil, list)
	if err != nil {
		return nil, err
	}
	if obj != runtime.Object(list) {
		return nil, fmt.Errorf("decoded %T, want *v1.PodList", obj)
	}
	return list, nil
}

// decodeRealisticPod decodes one pod (with kind and apiVersion).
func decodeRealisticPod(data []byte) (*v1.Pod, error) {
	pod := &v1.Pod{}
	obj, _, err := realisticDecoder.Decode(data, nil, pod)
	if err != nil {
		return nil, err
	}
	if obj != runtime.Object(pod) {
		return nil, fmt.Errorf("decoded %T, want *v1.Pod", obj)
	}
	return pod, nil
}

// realisticAlnum is k characters of the alphabet Kubernetes uses for
// generated names.
func realisticAlnum(rng *rand.Rand, k int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var sb strings.Builder
	sb.Grow(k)
	for j := 0; j < k; j++ {
		sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return sb.String()
}

// realisticHex is k lowercase hex digits.
func realisticHex(rng *rand.Rand, k int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, k)
	for j := range b {
		b[j] = digits[rng.IntN(16)]
	}
	return string(b)
}

// realisticUUID is a version-4 UUID.
func realisticUUID(rng *rand.Rand) string {
	h := realisticHex(rng, 32)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}
