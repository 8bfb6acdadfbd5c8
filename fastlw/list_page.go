package fastlw

import (
	"context"
	"mime"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// splitList is a list page cut at its items, without decoding: the rest of
// the page (the skeleton: kind, metadata, ...) and the items, each a
// decodable list holding a run of them.
type splitList interface {
	// skeleton returns the page without its items, decodable as the page.
	skeleton() []byte
	// len returns the number of items.
	len() int
	// appendChunk appends to dst a list of the page's kind holding items
	// [from, to).
	appendChunk(dst []byte, from, to int) []byte
}

// decodePage turns a list answer into what Result.Get returns: by the
// page's items decoded as it arrived (decodeStreamed), or else by its
// whole body (decodeWhole).
func (lw *ListerWatcher) decodePage(ctx context.Context, options metav1.ListOptions, answer fetched) (runtime.Object, error) {
	if answer.streamed != nil {
		return lw.decodeStreamed(ctx, options, answer)
	}
	return lw.decodeWhole(ctx, options, answer.result)
}

// decodeStreamed turns a list answer whose items decoded while it arrived
// into what Result.Get returns: once the page has arrived whole (a
// successful Result, its body cut whole) its skeleton decodes, the next
// page is requested when it carries a continue token, and the items join
// the list once the workers are done. A page that did not arrive whole,
// or whose skeleton does not decode to a list, is discarded and left to
// decodeWhole; one whose items fail to decode gets the plain path's
// answer.
func (lw *ListerWatcher) decodeStreamed(ctx context.Context, options metav1.ListOptions, answer fetched) (runtime.Object, error) {
	page := answer.streamed
	skeleton, whole := page.skeleton()
	if !whole || answer.result.Error() != nil {
		page.discard()
		return lw.decodeWhole(ctx, options, answer.result)
	}
	list, token, ok := lw.decodeSkeleton(ctx, options, page.decoder, skeleton)
	if !ok {
		page.discard()
		return lw.decodeWhole(ctx, options, answer.result)
	}
	body, _ := answer.result.Raw()
	if !page.assemble(list, body) {
		return lw.plainListAfterPrefetch(answer.result, token)
	}
	return list, nil
}

// decodeWhole turns a list response into what Result.Get returns. A page
// it can split (a 2xx body of a media type it knows, holding items, that
// the configured serializer reads) is decoded here: the skeleton first, so
// the next page is requested (for options, as the pager asks) before the
// items decode on the workers. Anything else, and any failure to decode a
// split page, is answered by Config.PlainList (result.Get() by default):
// the plain path, with its own object or error.
func (lw *ListerWatcher) decodeWhole(ctx context.Context, options metav1.ListOptions, result rest.Result) (runtime.Object, error) {
	page, decoder, ok := lw.split(result)
	if !ok {
		return lw.cfg.PlainList(result)
	}
	list, token, ok := lw.decodeSkeleton(ctx, options, decoder, page.skeleton())
	if !ok {
		return lw.cfg.PlainList(result)
	}
	if !lw.decodeItems(decoder, page, list) {
		return lw.plainListAfterPrefetch(result, token)
	}
	return list, nil
}

// decodeSkeleton decodes a page's skeleton into its list and returns the
// list's continue token ("" for none), having started the prefetch of the
// next page (for options, as the pager asks) when there is one; false when
// the skeleton does not decode to a list.
func (lw *ListerWatcher) decodeSkeleton(ctx context.Context, options metav1.ListOptions, decoder runtime.Decoder, skeleton []byte) (runtime.Object, string, bool) {
	list, err := runtime.Decode(decoder, skeleton)
	if err != nil {
		return nil, "", false
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, "", false
	}
	token := listMeta.GetContinue()
	if token != "" {
		lw.startPrefetch(ctx, options, token)
	}
	return list, token, true
}

// plainListAfterPrefetch answers, with Config.PlainList, a page whose
// items fastlw could not decode after its skeleton (continue token token,
// "" for none) started the prefetch of the next page. The page requested
// ahead is kept when the plain answer is a list continuing with the same
// token, the page the pager asks for next (takePrefetched still checks the
// options), and dropped otherwise: the plain path would not have sent it.
func (lw *ListerWatcher) plainListAfterPrefetch(result rest.Result, token string) (runtime.Object, error) {
	obj, err := lw.cfg.PlainList(result)
	if token == "" || err != nil || continueToken(obj) != token {
		lw.dropPrefetched()
	}
	return obj, err
}

// continueToken returns the continue token of list, "" when it is none.
func continueToken(list runtime.Object) string {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return ""
	}
	return listMeta.GetContinue()
}

// split cuts a successful response's body by its media type and returns
// the configured serializer's decoder for it (pageDecoder); false when the
// response is an error, its media type is not one pageDecoder takes, or
// the body is no list with items of a known shape.
func (lw *ListerWatcher) split(result rest.Result) (splitList, runtime.Decoder, bool) {
	body, err := result.Raw()
	if err != nil || len(body) == 0 {
		return nil, nil, false
	}
	var contentType string
	result.ContentType(&contentType)
	decoder, mediaType, ok := lw.pageDecoder(contentType)
	if !ok {
		return nil, nil, false
	}
	var page splitList
	switch mediaType {
	case runtime.ContentTypeJSON:
		page, ok = splitJSONList(body)
	case runtime.ContentTypeProtobuf:
		page, ok = splitProtobufList(body)
	default:
		ok = false
	}
	if !ok {
		return nil, nil, false
	}
	return page, decoder, true
}

// pageDecoder returns the configured serializer's decoder for a list page
// of the Content-Type contentType, and its media type; false when the
// media type has parameters other than charset=utf-8 (a Table, say; see
// cuttableMediaType) or the serializer does not read it. For the scheme
// codecs' JSON the decoder finds kinds by a scan (fastJSONDecoder): every
// error of it already goes to the plain path.
func (lw *ListerWatcher) pageDecoder(contentType string) (runtime.Decoder, string, bool) {
	mediaType, ok := lw.cuttableMediaType(contentType)
	if !ok {
		return nil, "", false
	}
	info, ok := runtime.SerializerInfoForMediaType(lw.cfg.Serializer.SupportedMediaTypes(), mediaType)
	if !ok || info.Serializer == nil {
		return nil, "", false
	}
	var decoder runtime.Decoder = info.Serializer
	if fast, ok := fastJSONDecoder(info); ok {
		decoder = fast
	}
	return lw.cfg.Serializer.DecoderToVersion(decoder, lw.cfg.Client.APIVersion()), mediaType, true
}

// cuttableMediaType returns the media type of a list response's
// Content-Type header when fastlw may cut it: it has no parameter but
// charset=utf-8, or its parameters are exactly those of a media range of
// the configured ListAccept (PartialObjectMetadataList for the metadata
// client) other than a Table.
func (lw *ListerWatcher) cuttableMediaType(contentType string) (string, bool) {
	if mediaType, ok := plainMediaType(contentType); ok {
		return mediaType, true
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || strings.EqualFold(params["as"], "Table") {
		return "", false
	}
	for _, asked := range strings.Split(lw.cfg.ListAccept, ",") {
		askedType, askedParams, err := mime.ParseMediaType(strings.TrimSpace(asked))
		if err == nil && askedType == mediaType && sameParameters(askedParams, params) {
			return mediaType, true
		}
	}
	return "", false
}

// sameParameters reports whether a and b hold the same media type
// parameters, values compared ignoring case.
func sameParameters(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for name, value := range a {
		if !strings.EqualFold(b[name], value) {
			return false
		}
	}
	return true
}

// plainMediaType returns the media type of a Content-Type header when it
// has no parameter but charset=utf-8.
func plainMediaType(contentType string) (string, bool) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", false
	}
	for name, value := range params {
		if name != "charset" || !strings.EqualFold(value, "utf-8") {
			return "", false
		}
	}
	return mediaType, true
}
