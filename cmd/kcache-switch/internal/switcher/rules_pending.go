package switcher

import "regexp"

// PENDING rows: single-informer constructors whose clientgo counterparts
// another change adds (issue 31, item 1). Their kcache names and packages
// are this tool's expectation, not yet a fact: a row stays inactive, and
// each use is reported as not switched with the Pending reason, until the
// kcache the module resolves has the named function with the very
// signature of client-go's. Wiring a row is editing To (or the pattern's
// ToPath, ToPathRe and FromPathTmpl) to the names clientgo chose; nothing
// else changes.

const pendingSingleInformers = "clientgo has no single-informer constructor of this name (pending, issue 31)"

var pendingCallRules = []callRule{
	{From: ref{dynamicInformerPath, "NewFilteredDynamicInformer"}, To: ref{kcacheClientgoPath, "NewFilteredDynamicInformer"}, What: "dynamic informer", Aliases: []string{"dynamicinformer"}, Pending: pendingSingleInformers},
	{From: ref{metaInformerPath, "NewFilteredMetadataInformer"}, To: ref{kcacheClientgoPath, "NewFilteredMetadataInformer"}, What: "metadata informer", Aliases: []string{"metadatainformer"}, Pending: pendingSingleInformers},
	{From: ref{clientgoCachePath, "NewSharedInformer"}, To: ref{kcacheClientgoPath, "NewSharedInformer"}, What: "informer constructor", Aliases: clientgoCacheAliases, Pending: "clientgo has no NewSharedInformer (pending)"},
}

// patternRule is a family of callRules: every function of a package whose
// path FromPath matches and whose name Name matches (and Skip does not)
// maps to the same name in the package ToPath expands to ($1, $2 … are
// FromPath's groups). ToPathRe and FromPathTmpl are the way back.
type patternRule struct {
	FromPath     *regexp.Regexp
	ToPath       string
	ToPathRe     *regexp.Regexp
	FromPathTmpl string
	Name, Skip   *regexp.Regexp
	What         string
	Pending      string
}

// patternRules: the typed single-informer constructors of client-go's
// informers/<group>/<version> packages (NewPodInformer,
// NewFilteredPodInformer, NewPodInformerWithOptions, …), expected in
// clientgo/informers/<group>/<version> under the same names. client-go
// v0.37's NewTypedXInformer family returns v0.37-only types and is left to
// client-go (Skip).
var patternRules = []patternRule{{
	FromPath:     regexp.MustCompile(`^k8s\.io/client-go/informers/([a-z0-9]+)/(v[a-z0-9]+)$`),
	ToPath:       kcacheClientgoPath + "/informers/$1/$2",
	ToPathRe:     regexp.MustCompile(`^github\.com/kcache-go/cache/clientgo/informers/([a-z0-9]+)/(v[a-z0-9]+)$`),
	FromPathTmpl: "k8s.io/client-go/informers/$1/$2",
	Name:         regexp.MustCompile(`^New(Filtered)?[A-Z][A-Za-z0-9]*Informer(WithOptions)?$`),
	Skip:         regexp.MustCompile(`^New(Filtered)?Typed`),
	What:         "typed informer",
	Pending:      pendingSingleInformers,
}}

// expand returns the callRule of the pattern for the function path.name,
// read on client-go's side (forward) or on kcache's side (!forward), and
// whether the pattern covers it.
func (p patternRule) expand(path, name string, forward bool) (callRule, bool) {
	if !p.Name.MatchString(name) || p.Skip.MatchString(name) {
		return callRule{}, false
	}
	re, tmpl := p.FromPath, p.ToPath
	if !forward {
		re, tmpl = p.ToPathRe, p.FromPathTmpl
	}
	m := re.FindStringSubmatchIndex(path)
	if m == nil {
		return callRule{}, false
	}
	other := string(re.ExpandString(nil, tmpl, path, m))
	r := callRule{From: ref{path, name}, To: ref{other, name}, What: p.What, Pending: p.Pending}
	if !forward {
		r.From, r.To = r.To, r.From
	}
	group, version := lastElem(parentPath(r.From.Path)), lastElem(r.From.Path)
	r.Aliases = []string{group + version, group + "informers", group + version + "informers"}
	r.ToAliases = []string{"kcache" + group + version, "kcache" + group + version + "informers"}
	return r, true
}

func lastElem(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

func parentPath(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i]
		}
	}
	return ""
}
