package clientgo

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/watchlist"

	kcache "github.com/kcache-go/cache"
	"github.com/kcache-go/cache/fastlw"
	"github.com/kcache-go/cache/internal/privatefield"
)

// The Accept headers of the metadata client's list and watch requests, as
// it sends them (pinned by the request differential tests).
const (
	metadataListAccept  = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	metadataWatchAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

// resourceScope is what one informer of a dynamic or metadata factory lists
// and watches: the resource, the namespace (metav1.NamespaceAll for all)
// and the tweak (may be nil).
type resourceScope struct {
	gvr       schema.GroupVersionResource
	namespace string
	tweak     func(*metav1.ListOptions)
}

// dynamicListerWatcher returns the ListerWatcher of scope for client: a
// fastlw ListerWatcher sending the dynamic client's own requests (its REST
// client, the resource's path, its Accept header) and decoding as it does
// (UnstructuredSerializer) when client is a *dynamic.DynamicClient whose
// REST client can be read, fastlw is on, and plain does not refuse
// WatchList semantics; plain (client.Resource(gvr).Namespace(namespace)
// with the tweak) otherwise: a fake, any other dynamic.Interface, and any
// client while the ClientsAllowCBOR gate is on (the client then asks for
// CBOR first, which UnstructuredSerializer does not read: every CBOR watch
// would be opened twice, once to find that out, once on the plain path).
func dynamicListerWatcher(client dynamic.Interface, scope resourceScope, plain kcache.ListerWatcher) kcache.ListerWatcher {
	dc, ok := client.(*dynamic.DynamicClient)
	if !ok || clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsAllowCBOR) {
		return plain
	}
	rc, ok := privatefield.Read[rest.Interface](dc, "client")
	if !ok {
		return plain
	}
	return fastOrPlain(rc, scope, plain, fastlw.UnstructuredSerializer(), "", "", false, dynamicPlainList)
}

// dynamicPlainList is the dynamic client's List decoding of a response
// (fastlw.Config.PlainList): into an UnstructuredList, whatever the body's
// kind, so that an empty list is an UnstructuredList too.
func dynamicPlainList(result rest.Result) (runtime.Object, error) {
	var list unstructured.UnstructuredList
	if err := result.Into(&list); err != nil {
		return nil, err
	}
	return &list, nil
}

// metadataListerWatcher is dynamicListerWatcher for the metadata client: a
// *metadata.Client, its REST client, its Accept headers for
// PartialObjectMetadataList and PartialObjectMetadata, and its decoder
// (MetadataSerializer); its watches, not its lists, also take
// TimeoutSeconds as the request's Timeout.
func metadataListerWatcher(client metadata.Interface, scope resourceScope, plain kcache.ListerWatcher) kcache.ListerWatcher {
	mc, ok := client.(*metadata.Client)
	if !ok {
		return plain
	}
	rc, ok := privatefield.Read[*rest.RESTClient](mc, "client")
	if !ok || rc == nil {
		return plain
	}
	return fastOrPlain(rc, scope, plain, fastlw.MetadataSerializer(), metadataListAccept, metadataWatchAccept, true, metadataPlainList)
}

// metadataPlainList is the metadata client's List decoding of a response
// (fastlw.Config.PlainList): the response's error, else its object, which
// must be a *metav1.PartialObjectMetadataList; a list of a kind the meta
// scheme does not know (a server that ignored the Accept header answers a
// PodList, say) is read as JSON into a PartialObjectMetadataList with no
// type meta.
func metadataPlainList(result rest.Result) (runtime.Object, error) {
	if err := result.Error(); err != nil {
		return nil, err
	}
	obj, err := result.Get()
	if runtime.IsNotRegisteredError(err) {
		body, err := result.Raw()
		if err != nil {
			return nil, err
		}
		var list metav1.PartialObjectMetadataList
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, fmt.Errorf("unable to decode returned object as PartialObjectMetadataList: %v", err)
		}
		list.TypeMeta = metav1.TypeMeta{}
		return &list, nil
	}
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*metav1.PartialObjectMetadataList)
	if !ok {
		return nil, fmt.Errorf("unexpected object, expected PartialObjectMetadata but got %T", obj)
	}
	return list, nil
}

// fastOrPlain returns the fastlw ListerWatcher of scope through rc (none
// when rc is a nil pointer or plain refuses WatchList
// semantics: then plain), with serializer, the Accept headers (none: the
// client's), when watchTimeout, the watch's TimeoutSeconds as its Timeout,
// and the client's decoding of the list responses fastlw leaves to it
// (plainList).
func fastOrPlain(rc rest.Interface, scope resourceScope, plain kcache.ListerWatcher, serializer runtime.NegotiatedSerializer, listAccept, watchAccept string, watchTimeout bool, plainList func(rest.Result) (runtime.Object, error)) kcache.ListerWatcher {
	if rv := reflect.ValueOf(rc); !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) ||
		watchlist.DoesClientNotSupportWatchListSemantics(plain) {
		return plain
	}
	return fastlw.New(fastlw.Config{
		Client:          rc,
		Resource:        scope.gvr.Resource,
		Namespace:       scope.namespace,
		OptionsModifier: scope.tweak,
		Serializer:      serializer,
		AbsPath:         groupVersionPath(scope.gvr.GroupVersion()),
		ListAccept:      listAccept,
		WatchAccept:     watchAccept,

		WatchTimeoutFromOptions: watchTimeout,
		PlainList:               plainList,
	})
}

// groupVersionPath is the API path of gv: /api/v1 for the core group,
// /apis/<group>/<version> otherwise.
func groupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return path.Join("/api", gv.Version)
	}
	return path.Join("/apis", gv.Group, gv.Version)
}
