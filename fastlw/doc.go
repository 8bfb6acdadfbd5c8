// Package fastlw is a kcache ListerWatcher that takes decoding off the
// critical path of an informer's sync.
//
// With cache.NewListWatchFromClient (and client-go's typed clients) a paged
// LIST decodes a page only once the whole page has arrived and asks for the
// next page only once it is decoded, and a watch or WatchList stream is
// decoded frame by frame on the one goroutine that reads it: the cache waits
// on the network and the network on the decoder. A fastlw.ListerWatcher
// issues the same requests through the caller's own REST client (so the
// same Accept header, rate limiter, retries and warning handler; it never
// asks the server for another format) and reads the raw responses:
//
//   - A list page is cut, without decoding, into its skeleton (the list
//     without its items: kind, resourceVersion, continue token) and its
//     items. A JSON page is cut while it arrives: the list request goes
//     through a sibling of the caller's client whose transport taps the
//     body Request.Do reads (the same bytes and errors, so the Result is
//     client-go's), and runs of items decode on up to Workers goroutines
//     as soon as they have arrived, so the decoding overlaps the transfer.
//     A protobuf page, and a JSON page the cut does not take (anything but
//     an object of plain, distinct keys with kind and apiVersion before a
//     non-empty items array), is cut once it has arrived whole and its
//     items decode in chunks. Either way the skeleton decodes once the
//     page is whole; when it carries a continue token, the page a pager
//     asks for next (the same options with that token and no resource
//     version) is requested at once, while this page's last items decode.
//     The next List call with exactly those options takes the prefetched
//     response; any other call, and any Watch, drops it (cancelling the
//     request and waiting for its goroutines). So a page whose items then
//     fail to decode, whose List fails as on the plain path, may have cost
//     one request the plain path does not send: the dropped prefetch.
//   - A watch stream (a WatchList too) is split into frames on one reader
//     goroutine: by the serializer's own framer, or for apimachinery's JSON
//     framer by one pass of fastlw's JSON scanner whose frames the workers check
//     (a frame that is not valid JSON ends the stream with the error the
//     JSON framer gives there; anything else unusual hands the rest of the
//     stream to the JSON framer itself); the frames decode on
//     up to Workers goroutines, each with client-go's exported watch event
//     decoder, and are handed out in stream order through apimachinery's
//     StreamWatcher, so Stop, the end of the stream, and decoding errors (an
//     Error event) behave as on the plain path.
//
// JSON of the typed clientset (the serializer's JSON is client-go's scheme
// codecs' own, checked by identity): apimachinery's JSON serializer finds
// an object's apiVersion and kind with a full encoding/json.Unmarshal of
// it, and client-go's watch decoder unmarshals the event envelope before
// the object, so each pod of a watch was parsed three times before its
// real decode. fastlw finds the envelope's type and object and the
// object's apiVersion and kind with one top-level scan, then decodes with
// the same scheme and options. Anything unusual (escapes or non-ASCII in
// keys, keys equal to those names only ignoring case, duplicates, values
// that are not plain strings, an ERROR or unknown event type, anything
// but a JSON object) and every decoding error go to the plain decoding,
// whose answer (error included) is returned; fuzz differentials pin that
// both decode alike.
//
// One JSON scanner (json_scan.go) serves every scan above, and the cutting
// of a JSON list page: it finds where values end (strings by their
// unescaped closing quote, brackets matched by kind, nesting up to
// maxScanDepth), over one buffer or incrementally over a stream's chunks,
// without allocating or validating what strings and numbers hold; every
// span it returns is validated by the serializer that decodes it.
//
// Transform (Config.Transform, opt-in): a transform declared safe for
// concurrent use runs on the decode workers right after an item or a
// watch event's object is decoded, before the Reflector sees it. It is an
// early pass: the informer keeps the same function as its transform, so
// what the cache stores, tombstones and errors stay the plain path's; the
// function must be idempotent (transform.Recommended is). It lowers the
// peak heap of a paged List (a page's items never coexist untransformed)
// and takes the transform's CPU off the Reflector's goroutine; on WatchList
// kcache's Reflector already transforms objects as they arrive.
// clientgo.WithConcurrentTransform turns it on for the typed factory.
//
// Order: list items land at their own index of the page's Items slice and
// a page is returned whole; watch frames are numbered by the reader and
// returned strictly in that order, whichever worker finishes first.
//
// Memory: a watch holds at most MaxInFlight frames between the reader and
// the consumer (a frame takes a slot before it is read and gives it back
// when the consumer takes its event), so a slow consumer stops the reading
// as on the plain path, MaxInFlight frames later. A list page is held raw
// as on the plain path (Request.Do reads it whole), plus, while it
// arrives, about MaxInFlight items in runs (the reading never waits for a
// worker: a run that finds Workers runs waiting keeps only its place in
// the page, and decodes once the page has arrived, so the request's
// deadlines cover the transfer only, as on the plain path) or, for a page
// decoded whole, one chunk per worker; and at most one prefetched page,
// whose items decode as it arrives too. A prefetch whose List call never
// comes (the consumer gave up paging) ends with its context, or completes
// and is held until the next call.
//
// Semantics: every answer is the plain path's. Errors (API errors, 410
// Gone for an expired continue token or a too old resource version, 406,
// a cut body) come from the same rest.Result as they would on the plain
// path, as the same *errors.StatusError; a Status in a watch stream is the
// same Error event; a Table (the media type has parameters that ListAccept
// did not ask for, or any Table, or the body has no items) is decoded by
// the plain path, so the Reflector refuses it as
// before; timeoutSeconds and the context go with the request. Anything
// fastlw cannot serve goes through the plain path: a list response it
// cannot cut or decode (Result.Get); a watch answer it does not read (not
// 200 OK, or, by its Content-Type, in a media type the serializer cannot
// stream), whose watch or error is Request.Watch's own (such as the
// NegotiateError of a proxy's HTML page) after one request; and the whole
// watch (Request.Watch) when the serializer has no stream serializers, or
// the response of a watch cannot be seen (the client is not a
// *rest.RESTClient, or client-go's ClientsAllowCBOR gate is on).
//
// Watch requests: every watch is opened by Request.Watch, so its attempts,
// retries (a connection that fails before the answer, a 429 or 5xx with
// Retry-After), pauses, rate-limiter waits (none before the first attempt,
// one before each retry), warnings and errors, and its answer once the
// retries run out, are client-go's. It is sent through a sibling of the
// caller's *rest.RESTClient (the same URL, content configuration, rate
// limiter, warning handler, backoff and HTTP client, over the caller's own
// transport, which it wraps): an answer fastlw reads is kept there and
// Request.Watch gets it with a stand-in body that yields nothing while
// fastlw decodes the real one.
//
// NewFromClient and NewFilteredFromClient are the drop-ins for
// cache.NewListWatchFromClient and cache.NewFilteredListWatchFromClient:
// the same arguments and the same requests, plus the serializer. The
// typed, dynamic and metadata factories of kcache's clientgo package use
// fastlw by default, configured as the clients they replace: the typed
// clients (PreferProtobuf, TimeoutFromOptions), the dynamic client (AbsPath,
// UnstructuredSerializer) and the metadata client (AbsPath, ListAccept and
// WatchAccept for PartialObjectMetadataList and PartialObjectMetadata,
// WatchTimeoutFromOptions, MetadataSerializer). Use it wherever a ListerWatcher goes, for example
// with an informer:
//
//	client := clientset.CoreV1().RESTClient()
//	lw := fastlw.NewFromClient(client, "pods", metav1.NamespaceAll, fields.Everything(), fastlw.ClientsetSerializer())
//	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
//
// or with fastlw.New(fastlw.Config{...}) for an options modifier (label
// selectors), the number of workers and the in-flight bound. The serializer
// must decode what the client decodes: ClientsetSerializer for the typed
// clientset.
package fastlw
