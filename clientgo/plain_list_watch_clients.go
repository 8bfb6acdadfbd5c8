package clientgo

import (
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/watchlist"
)

// PlainDynamicClient returns client behind a dynamic.Interface that the
// dynamic factories of this package do not look into: their informers then
// list and watch through the client's own List and Watch (the plain path),
// as WithPlainListWatch does for the typed factory. Every call goes to
// client unchanged, and whether the client refuses WatchList semantics
// (client-go's fakes do) is client's answer.
func PlainDynamicClient(client dynamic.Interface) dynamic.Interface {
	return plainDynamicClient{client}
}

// plainDynamicClient hides its client's concrete type from the factories.
type plainDynamicClient struct{ dynamic.Interface }

// IsWatchListSemanticsUnSupported is the wrapped client's answer (see
// watchlist.DoesClientNotSupportWatchListSemantics).
func (c plainDynamicClient) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.Interface)
}

// PlainMetadataClient returns client behind a metadata.Interface that the
// metadata factories of this package do not look into: their informers then
// list and watch through the client's own List and Watch (the plain path).
// Every call goes to client unchanged, and whether the client refuses
// WatchList semantics is client's answer.
func PlainMetadataClient(client metadata.Interface) metadata.Interface {
	return plainMetadataClient{client}
}

// plainMetadataClient hides its client's concrete type from the factories.
type plainMetadataClient struct{ metadata.Interface }

// IsWatchListSemanticsUnSupported is the wrapped client's answer (see
// watchlist.DoesClientNotSupportWatchListSemantics).
func (c plainMetadataClient) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.Interface)
}
