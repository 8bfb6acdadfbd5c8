package switcher

// The rewrite rules, as data. Every row reads from client-go's side to
// kcache's; -revert applies the same rows the other way. A call row whose
// kcache side does not exist in the kcache the module resolves (or exists
// with another signature than client-go's) is inactive: its uses are
// reported as not switched, with the reason, and left as they are.

// Import paths of the packages the rules name.
const (
	clientgoCachePath   = "k8s.io/client-go/tools/cache"
	informersPath       = "k8s.io/client-go/informers"
	dynamicInformerPath = "k8s.io/client-go/dynamic/dynamicinformer"
	metaInformerPath    = "k8s.io/client-go/metadata/metadatainformer"
	kcachePath          = "github.com/kcache-go/cache"
	kcacheClientgoPath  = "github.com/kcache-go/cache/clientgo"
	crCachePath         = "sigs.k8s.io/controller-runtime/pkg/cache"
	crManagerPath       = "sigs.k8s.io/controller-runtime/pkg/manager"
	crClusterPath       = "sigs.k8s.io/controller-runtime/pkg/cluster"
	crRootPath          = "sigs.k8s.io/controller-runtime"
)

// importRule moves a whole import from client-go's package to kcache's
// package of the same API. It is applied to a hand-written file only when
// the file type-checks with it and no tombstone hazard follows (hazard.go).
type importRule struct {
	From, To string
}

var importRules = []importRule{
	{From: clientgoCachePath, To: kcachePath},
	{From: clientgoCachePath + "/testing", To: kcachePath + "/testing"},
	{From: clientgoCachePath + "/synctrack", To: kcachePath + "/synctrack"},
}

// ref names a package-level function.
type ref struct{ Path, Name string }

// callRule turns every reference to From into a reference to To, in
// hand-written files whose import of From's package is not switched as a
// whole, and in informer-gen output. From and To have the same signature
// (checked against the module's build), so the code around a rewritten
// reference is untouched.
type callRule struct {
	From, To ref
	// What names the kind of constructor in the report.
	What string
	// Aliases are the import names tried, in order, when -revert has to
	// import From's package again (the first one free in the file wins).
	Aliases []string
	// ToAliases are the import names tried for To's package; empty means
	// clientgoAliases.
	ToAliases []string
	// Pending is set on rows whose kcache side another change adds; it is
	// the reason reported while that side does not exist.
	Pending string
}

var (
	informersAliases     = []string{"informers", "kubeinformers", "clientgoinformers"}
	clientgoCacheAliases = []string{"cache", "toolscache", "clientgocache"}
	// clientgoAliases are the import names tried for kcache's clientgo package.
	clientgoAliases = []string{"clientgo", "kcacheclientgo"}
	// crAliases are the import names tried for controller-runtime's cache
	// package when a Cache field has to be written.
	crAliases = []string{"cache", "crcache", "ctrlcache"}
)

// callRules: the factory constructors (README, "Switching a project") and
// the informer constructors informer-gen output calls (code-generator and
// client-go v0.36–v0.37: NewSharedIndexInformerWithOptions; older output:
// NewSharedIndexInformer). v0.37 output wraps the result in
// cache.NewTypedSharedIndexInformer, which takes any client-go
// SharedIndexInformer and so needs no row.
var callRules = append([]callRule{
	{From: ref{informersPath, "NewSharedInformerFactory"}, To: ref{kcacheClientgoPath, "NewSharedInformerFactory"}, What: "typed factory", Aliases: informersAliases},
	{From: ref{informersPath, "NewSharedInformerFactoryWithOptions"}, To: ref{kcacheClientgoPath, "NewSharedInformerFactoryWithOptions"}, What: "typed factory", Aliases: informersAliases},
	{From: ref{informersPath, "NewFilteredSharedInformerFactory"}, To: ref{kcacheClientgoPath, "NewFilteredSharedInformerFactory"}, What: "typed factory", Aliases: informersAliases},
	{From: ref{dynamicInformerPath, "NewDynamicSharedInformerFactory"}, To: ref{kcacheClientgoPath, "NewDynamicSharedInformerFactory"}, What: "dynamic factory", Aliases: []string{"dynamicinformer"}},
	{From: ref{dynamicInformerPath, "NewFilteredDynamicSharedInformerFactory"}, To: ref{kcacheClientgoPath, "NewFilteredDynamicSharedInformerFactory"}, What: "dynamic factory", Aliases: []string{"dynamicinformer"}},
	{From: ref{metaInformerPath, "NewSharedInformerFactory"}, To: ref{kcacheClientgoPath, "NewMetadataSharedInformerFactory"}, What: "metadata factory", Aliases: []string{"metadatainformer"}},
	{From: ref{metaInformerPath, "NewSharedInformerFactoryWithOptions"}, To: ref{kcacheClientgoPath, "NewMetadataSharedInformerFactoryWithOptions"}, What: "metadata factory", Aliases: []string{"metadatainformer"}},
	{From: ref{metaInformerPath, "NewFilteredSharedInformerFactory"}, To: ref{kcacheClientgoPath, "NewFilteredMetadataSharedInformerFactory"}, What: "metadata factory", Aliases: []string{"metadatainformer"}},
	{From: ref{clientgoCachePath, "NewSharedIndexInformer"}, To: ref{kcacheClientgoPath, "NewSharedIndexInformer"}, What: "informer constructor", Aliases: clientgoCacheAliases},
	{From: ref{clientgoCachePath, "NewSharedIndexInformerWithOptions"}, To: ref{kcacheClientgoPath, "NewSharedIndexInformerWithOptions"}, What: "informer constructor", Aliases: clientgoCacheAliases},
}, pendingCallRules...)

// keptConstructors are client-go tools/cache constructors that have no
// clientgo counterpart: in a file whose import stays client-go's, each use
// is reported as not switched.
var keptConstructors = map[string]bool{
	"NewInformer": true, "NewIndexerInformer": true, "NewInformerWithOptions": true,
	"NewTransformingInformer": true, "NewTransformingIndexerInformer": true,
	"NewReflector": true, "NewReflectorWithOptions": true, "NewNamedReflector": true,
	"New": true,
}

// optionRule gives composite literals of controller-runtime's option types
// the field that puts their informers on kcache. Value is set on literals
// of Type that lack Field; Nested, when set, is the literal type Field
// holds (manager.Options.Cache is a cache.Options), written with Value's
// rule inside.
type optionRule struct {
	Type   ref
	Field  string
	Value  ref
	Nested *ref
}

var crCacheOptions = ref{crCachePath, "Options"}

var crNewInformer = ref{kcacheClientgoPath, "NewSharedIndexInformer"}

var optionRules = []optionRule{
	{Type: crCacheOptions, Field: "NewInformer", Value: crNewInformer},
	{Type: ref{crManagerPath, "Options"}, Field: "Cache", Nested: &crCacheOptions},
	{Type: ref{crClusterPath, "Options"}, Field: "Cache", Nested: &crCacheOptions},
}

// crConstructors take controller-runtime options; where one is called
// with options that are not a literal, and its package has no literal the
// optionRules completed, the report prints the line to add.
var crConstructors = []ref{
	{crRootPath, "NewManager"},
	{crManagerPath, "New"},
	{crClusterPath, "New"},
	{crCachePath, "New"},
}
