package fastlw

import (
	"runtime"

	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Config says what a ListerWatcher lists and watches and how it decodes.
type Config struct {
	// Client is the caller's own REST client (for example
	// clientset.CoreV1().RESTClient()). Every request goes through it, with
	// its Accept header, rate limiter, retries and warning handler; the
	// ListerWatcher never asks for another format. Required.
	Client rest.Interface
	// Resource is the plural resource name, e.g. "pods". Required.
	Resource string
	// Namespace scopes the requests; metav1.NamespaceAll for every namespace.
	Namespace string
	// OptionsModifier, when set, adjusts the options of every request (set
	// selectors here), as NewFilteredListWatchFromClient's does.
	OptionsModifier func(options *metav1.ListOptions)
	// Serializer decodes the responses; it must decode what Client decodes
	// (ClientsetSerializer for a typed clientset). A media type it has no
	// serializer (or, for watches, no stream serializer) for is served by
	// the plain path. Nil means ClientsetSerializer().
	Serializer k8sruntime.NegotiatedSerializer
	// Workers is the number of goroutines that decode one page or one
	// stream. Zero means GOMAXPROCS.
	Workers int
	// MaxInFlight bounds the watch frames read but not yet handed to the
	// consumer, and the list items decoding at once. Zero means 64 per
	// worker.
	MaxInFlight int
	// Transform, when set, is applied to every object of a list page and to
	// the object of every ADDED, MODIFIED and DELETED watch event right
	// after it is decoded, on the decode workers, before the Reflector sees
	// it (bookmarks and ERROR events are left alone). It is called
	// concurrently from the decode workers (never twice at once on one
	// object) and must be safe for concurrent use. It is an early pass, not
	// the informer's TransformFunc: keep the same function as the
	// informer's (or queue's) transform, which still runs on every object
	// the queue stores, so the function must be idempotent, and cheap on an
	// object it already transformed. Then every object the informer stores
	// is transformed exactly as on the plain path (tombstones and relists
	// included), and an error surfaces where it does on the plain path: the
	// early pass ignores errors and passes the object on as the transform
	// left it, so the transform must return its error again on the second
	// pass. A result that is not a runtime.Object of the decoded object's
	// type is dropped (the decoded object, as the transform left it, goes
	// on). transform.Recommended and the other transforms of
	// github.com/kcache-go/cache/transform qualify; the gain is the peak
	// heap of a WatchList or a list, whose untransformed objects are no
	// longer all live at once, and the transform's CPU moved off the
	// Reflector's goroutine.
	Transform func(obj interface{}) (interface{}, error)
	// PreferProtobuf asks for protobuf when Client's configuration names no
	// content type, as client-go's typed clients of built-in types do
	// (Request.UseProtobufAsDefaultIfPreferred); false leaves the Accept
	// header to Client, as cache.NewListWatchFromClient does.
	PreferProtobuf bool
	// TimeoutFromOptions also sets the options' TimeoutSeconds as the
	// request's Timeout (its client-side deadline and "timeout" parameter),
	// as client-go's typed clients do; false sends TimeoutSeconds only as a
	// parameter, as cache.NewListWatchFromClient does.
	TimeoutFromOptions bool
	// WatchTimeoutFromOptions is TimeoutFromOptions for watch requests
	// only, as the metadata client does (its lists send TimeoutSeconds as
	// a parameter only).
	WatchTimeoutFromOptions bool
	// AbsPath, when set, is the group version's path ("/api/v1",
	// "/apis/apps/v1") that replaces Client's own API path, as the dynamic
	// and metadata clients address a resource (their REST clients have no
	// group version of their own); the namespace and resource follow it
	// as path segments, as those clients add them (the request names no
	// resource, so errors read as theirs).
	AbsPath string
	// ListAccept and WatchAccept, when set, are the Accept header of the
	// list requests and of the watch requests, replacing Client's, as the
	// metadata client asks for PartialObjectMetadataList and
	// PartialObjectMetadata. A list response whose media type carries
	// parameters is cut only when the media type, with exactly those
	// parameters, is one ListAccept names and is not a Table; any other
	// goes to the plain path, as before.
	ListAccept, WatchAccept string
	// PlainList, when set, is how the plain path turns a list response into
	// its list object or error; nil is Result.Get, as cache.ListWatch and
	// the typed clients do. fastlw answers with it every list response it
	// does not decode itself (an empty list, a media type it does not cut,
	// a body its serializer does not read), so that those answers are the
	// client's own: the dynamic client decodes into an UnstructuredList
	// (Result.Into), the metadata client checks the type and reads a list
	// its scheme does not know as JSON PartialObjectMetadataList.
	PlainList func(result rest.Result) (k8sruntime.Object, error)
}

// ClientsetSerializer returns the serializer of the typed clientset
// (k8s.io/client-go/kubernetes): client-go's scheme codecs without
// conversion, which read JSON, protobuf and CBOR, with stream serializers for
// watches.
func ClientsetSerializer() k8sruntime.NegotiatedSerializer {
	return scheme.Codecs.WithoutConversion()
}

// UnstructuredSerializer returns a serializer that decodes JSON (lists,
// objects, watch streams) into *unstructured.Unstructured and
// *unstructured.UnstructuredList with apimachinery's UnstructuredJSONScheme,
// as the dynamic client does. It has no CBOR or protobuf: a response in
// those goes to the plain path (the client's own decoder).
func UnstructuredSerializer() k8sruntime.NegotiatedSerializer {
	return unstructuredSerializer{}
}

// MetadataSerializer returns the serializer of the metadata client
// (k8s.io/client-go/metadata): apimachinery's meta internal version scheme
// without conversion, which decodes PartialObjectMetadata and
// PartialObjectMetadataList from protobuf and JSON.
func MetadataSerializer() k8sruntime.NegotiatedSerializer {
	return metainternalversionscheme.Codecs.WithoutConversion()
}

// NewFromClient is the drop-in for cache.NewListWatchFromClient (kcache's
// or client-go's): the same arguments, the same requests, plus the
// serializer that decodes what c decodes (nil: ClientsetSerializer()). It
// lists and watches resource in namespace through c, restricted by
// fieldSelector, which replaces any field selector of the caller's options.
// Like NewListWatchFromClient, a nil fieldSelector panics on the first
// request.
func NewFromClient(c rest.Interface, resource, namespace string, fieldSelector fields.Selector, serializer k8sruntime.NegotiatedSerializer) *ListerWatcher {
	return NewFilteredFromClient(c, resource, namespace, func(options *metav1.ListOptions) {
		options.FieldSelector = fieldSelector.String()
	}, serializer)
}

// NewFilteredFromClient is the drop-in for
// cache.NewFilteredListWatchFromClient (kcache's or client-go's): the same
// arguments, the same requests, plus the serializer (nil:
// ClientsetSerializer()). optionsModifier, which may be nil, adjusts the
// options of every request.
func NewFilteredFromClient(c rest.Interface, resource, namespace string, optionsModifier func(options *metav1.ListOptions), serializer k8sruntime.NegotiatedSerializer) *ListerWatcher {
	return New(Config{
		Client:          c,
		Resource:        resource,
		Namespace:       namespace,
		Serializer:      serializer,
		OptionsModifier: optionsModifier,
	})
}

// New returns a ListerWatcher for cfg. It panics when cfg has no Client or
// no Resource, or a negative Workers or MaxInFlight.
func New(cfg Config) *ListerWatcher {
	if cfg.Client == nil || cfg.Resource == "" {
		panic("fastlw.New: Config.Client and Config.Resource are required")
	}
	if cfg.Workers < 0 || cfg.MaxInFlight < 0 {
		panic("fastlw.New: Config.Workers and Config.MaxInFlight must not be negative")
	}
	if cfg.Serializer == nil {
		cfg.Serializer = ClientsetSerializer()
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = 64 * cfg.Workers
	}
	if cfg.OptionsModifier == nil {
		cfg.OptionsModifier = func(*metav1.ListOptions) {}
	}
	if cfg.PlainList == nil {
		cfg.PlainList = rest.Result.Get
	}
	lw := &ListerWatcher{cfg: cfg}
	if rc, ok := cfg.Client.(*rest.RESTClient); ok {
		lw.siblings = newSiblingSource(rc)
	}
	return lw
}
