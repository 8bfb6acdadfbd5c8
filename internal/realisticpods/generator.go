package realisticpods

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

const (
	// Seed is the seed of every benchmark and test.
	Seed = 20261201
	// PodsPerApp is the replica count of every app.
	PodsPerApp = 50
	// PodsPerNamespace is 4 apps.
	PodsPerNamespace = 200
	// PodsPerNode is the average number of pods on a node.
	PodsPerNode = 100
	// templateDir holds the templates in templateFS.
	templateDir = "templates"
)

// templateFS holds the templates, so that the generator works from any
// working directory and any module of the repository.
//
//go:embed templates/*.json
var templateFS embed.FS

// templateCycle maps app index mod 10 to a template.
var templateCycle = [10]string{"web", "api", "web", "worker", "web", "api", "web", "worker", "web", "api"}

// teams are the team label values; a namespace belongs to one.
var teams = []string{"payments", "search", "checkout", "identity", "catalog", "shipping", "ads", "ml-platform", "messaging", "billing", "growth", "core-infra"}

// appWords name the apps.
var appWords = []string{"cart", "orders", "gateway", "pricing", "ledger", "indexer", "session", "notifier", "recommender", "inventory", "profile", "fraud", "quotes", "tracking", "render"}

// template is one template cut at its placeholders: parts[0],
// value of holes[0], parts[1], ... parts[len(holes)].
type template struct {
	name  string
	parts [][]byte
	holes []string
}

// Generator renders pods; it holds only the templates, never a
// rendered or decoded pod.
type Generator struct {
	seed      int64
	n         int
	templates map[string]*template
}

// New loads the templates for n pods with seed.
func New(n int, seed int64) (*Generator, error) {
	g := &Generator{seed: seed, n: n, templates: map[string]*template{}}
	for _, name := range []string{"web", "api", "worker"} {
		raw, err := templateFS.ReadFile(path.Join(templateDir, name+".json"))
		if err != nil {
			return nil, err
		}
		t, err := parseTemplate(name, raw)
		if err != nil {
			return nil, err
		}
		g.templates[name] = t
	}
	return g, nil
}

// parseTemplate compacts the JSON (the apiserver sends compact
// JSON) and cuts it at every {{NAME}}.
func parseTemplate(name string, raw []byte) (*template, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	t := &template{name: name}
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

// N is the number of pods the generator renders.
func (g *Generator) N() int { return g.n }

// appIndex is the app of pod i.
func appIndex(i int) int { return i / PodsPerApp }

// namespaceCount is the number of namespaces of n pods.
func (g *Generator) namespaceCount() int { return max(1, g.n/PodsPerNamespace) }

// nodeCount is the number of nodes of n pods.
func (g *Generator) nodeCount() int { return max(1, g.n/PodsPerNode) }

// TemplateOf names the template of pod i.
func (g *Generator) TemplateOf(i int) string {
	return templateCycle[appIndex(i)%len(templateCycle)]
}

// values are the placeholder values of pod i.
func (g *Generator) values(i int) map[string]string {
	app := appIndex(i)
	appRng := rand.New(rand.NewPCG(uint64(g.seed), uint64(app)<<32|0xa99))
	podRng := rand.New(rand.NewPCG(uint64(g.seed), uint64(i)))
	ns := (app * PodsPerApp / PodsPerNamespace) % g.namespaceCount()
	team := teams[ns%len(teams)]
	appName := appWords[app%len(appWords)] + "-" + strconv.Itoa(app)
	hash := Alnum(appRng, 10)
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
		"RS_UID":    uuid(appRng),
		"TAG":       "v1." + strconv.Itoa(app%40) + "." + strconv.Itoa(appRng.IntN(20)),
		"DIGEST1":   hexDigits(appRng, 64),
		"RESTARTED": appTime.Add(-24 * time.Hour).Format(time.RFC3339),
		"NAME":      appName + "-" + hash + "-" + Alnum(podRng, 5),
		"UID":       uuid(podRng),
		"RV":        strconv.Itoa(4_000_000 + 3*i + podRng.IntN(3)),
		"CREATED":   created.Format(time.RFC3339),
		"STARTED":   started.Format(time.RFC3339),
		"READY":     ready.Format(time.RFC3339),
		"NODE":      fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", 16+node>>16, (node>>8)&255, node&255),
		"HOST_IP":   fmt.Sprintf("10.%d.%d.%d", 16+node>>16, (node>>8)&255, node&255),
		"POD_IP":    fmt.Sprintf("100.%d.%d.%d", 64+(i>>16)&63, (i>>8)&255, i&255),
		"KAA":       "kube-api-access-" + Alnum(podRng, 5),
		"CID1":      hexDigits(podRng, 64),
		"CID2":      hexDigits(podRng, 64),
		"CID3":      hexDigits(podRng, 64),
	}
}

// AppendPod appends the JSON of pod i; withKind adds kind and apiVersion,
// as a watch event's object has them (list items do not).
func (g *Generator) AppendPod(dst []byte, i int, withKind bool) []byte {
	t := g.templates[g.TemplateOf(i)]
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

// AppendList appends a PodList page of pods [start, end) with the list's
// resource version and continue token, as the apiserver sends it.
func (g *Generator) AppendList(dst []byte, start, end int, rv, cont string) []byte {
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
		dst = g.AppendPod(dst, i, false)
	}
	return append(dst, "]}"...)
}

// ListResourceVersion is the resource version of the whole list.
func (g *Generator) ListResourceVersion() string { return strconv.Itoa(4_000_000 + 3*g.n + 3) }

// decoder decodes as client-go's typed clients do: the scheme's
// codecs, without conversion or defaulting.
var decoder = scheme.Codecs.UniversalDeserializer()

// DecodeList decodes one PodList page.
func DecodeList(data []byte) (*v1.PodList, error) { return decodeInto(data, &v1.PodList{}) }

// DecodePod decodes one pod (with kind and apiVersion).
func DecodePod(data []byte) (*v1.Pod, error) { return decodeInto(data, &v1.Pod{}) }

// decodeInto decodes data into into, which it must decode to (not to
// another kind).
func decodeInto[T runtime.Object](data []byte, into T) (T, error) {
	var none T
	obj, _, err := decoder.Decode(data, nil, into)
	if err != nil {
		return none, err
	}
	if obj != runtime.Object(into) {
		return none, fmt.Errorf("decoded %T, want %T", obj, into)
	}
	return into, nil
}

// Alnum is k characters of the alphabet Kubernetes uses for
// generated names.
func Alnum(rng *rand.Rand, k int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var sb strings.Builder
	sb.Grow(k)
	for j := 0; j < k; j++ {
		sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return sb.String()
}

// hexDigits is k lowercase hex digits.
func hexDigits(rng *rand.Rand, k int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, k)
	for j := range b {
		b[j] = digits[rng.IntN(16)]
	}
	return string(b)
}

// uuid is a version-4 UUID.
func uuid(rng *rand.Rand) string {
	h := hexDigits(rng, 32)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}
