package fastlw

import (
	"net/http"
	"net/url"
	"sync"
	"time"

	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"

	"github.com/kcache-go/cache/internal/privatefield"
)

// siblingClient is a REST client built from the parts of a caller's
// *rest.RESTClient, whose HTTP client differs from the caller's only by
// its transport: one over the caller's transport (a watch's
// responseRecorder, a list's pageTap). Its requests are the caller's (the
// same URL, Accept header, content configuration, rate limiter, backoff,
// timeout, cookie jar, redirect policy, authentication and TLS), and the
// answer of a watch that fastlw reads is kept for it (see
// responseRecorder), the body of a list page tapped as it arrives (see
// pageTap).
type siblingClient struct {
	client *rest.RESTClient
	// recorder is the transport of a watch's sibling (sibling); nil for
	// one built by over.
	recorder *responseRecorder
	// warnings is the caller's warning handler, nil for client-go's
	// default; rest.NewRESTClient has no parameter for it, so it is set on
	// each request (prepare).
	warnings rest.WarningHandlerWithContext
}

// restClientParts are the unexported parts of a *rest.RESTClient that
// rest.NewRESTClient takes and that have no exported accessor. client-go
// writes each of them once, while it builds the client, and never after,
// so reading them races with nothing.
type restClientParts struct {
	base             *url.URL
	versionedAPIPath string
	content          rest.ClientContentConfig
	warnings         rest.WarningHandlerWithContext
}

// siblingSource builds the siblings of one caller's *rest.RESTClient: the
// parts of the client are read once, on the first watch that asks, and
// each watch gets a sibling of its own (its own recorder, whose kept
// answer belongs to that watch alone, its own http.Client and
// rest.RESTClient). Safe for concurrent use.
type siblingSource struct {
	rc    *rest.RESTClient
	parts func() (restClientParts, bool) // readRESTClientParts(rc), once
}

// newSiblingSource returns the siblingSource of rc.
func newSiblingSource(rc *rest.RESTClient) *siblingSource {
	return &siblingSource{rc: rc, parts: sync.OnceValues(func() (restClientParts, bool) {
		return readRESTClientParts(rc)
	})}
}

// sibling returns a new sibling of the caller's client for one watch,
// opened with a context whose deadline is callerDeadline (zero for none),
// whose recorder keeps for fastlw the answers that serves accepts (see
// responseRecorder); false when it cannot be built exactly, and the
// caller's client is to be used as it is:
//   - client-go's ClientsAllowCBOR gate is on: a client then also keeps,
//     in an atomic flag, whether a server refused CBOR, which a sibling
//     would not share (and rest.NewRESTClient wraps its negotiator again);
//   - one of the parts is missing or of another type (a client-go release
//     that renamed it: the tests of this package then fail), or the client
//     has no base URL (a client not built by client-go's constructors).
//
// NB: a shallow copy of the client would also do, but it copies that
// atomic flag (go vet's copylocks refuses it) with a plain read that races
// with the flag's writes by the caller's other requests.
func (s *siblingSource) sibling(serves func(*http.Response) bool, callerDeadline time.Time) (*siblingClient, bool) {
	var recorder *responseRecorder
	sibling, ok := s.over(func(next http.RoundTripper, clientTimeout time.Duration) http.RoundTripper {
		recorder = &responseRecorder{next: next, serves: serves, clientTimeout: clientTimeout, callerDeadline: callerDeadline}
		return recorder
	})
	if ok {
		sibling.recorder = recorder
	}
	return sibling, ok
}

// over returns a new sibling of the caller's client whose transport is
// what transport makes of the caller's (next) and the Timeout of the
// caller's http.Client; false, with transport not called, when no sibling
// can be built exactly (see sibling). The returned sibling has no
// recorder.
func (s *siblingSource) over(transport func(next http.RoundTripper, clientTimeout time.Duration) http.RoundTripper) (*siblingClient, bool) {
	if clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsAllowCBOR) {
		return nil, false
	}
	parts, ok := s.parts()
	if !ok {
		return nil, false
	}
	httpClient := http.Client{}
	if s.rc.Client != nil {
		httpClient = *s.rc.Client
	}
	next := httpClient.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	httpClient.Transport = transport(next, httpClient.Timeout)
	client, err := rest.NewRESTClient(parts.base, parts.versionedAPIPath, parts.content, s.rc.GetRateLimiter(), &httpClient)
	if err != nil {
		return nil, false
	}
	return &siblingClient{client: client, warnings: parts.warnings}, true
}

// prepare gives req the caller's warning handler, when it has its own.
func (s *siblingClient) prepare(req *rest.Request) *rest.Request {
	if s.warnings != nil {
		req = req.WarningHandlerWithContext(s.warnings)
	}
	return req
}

// readRESTClientParts reads rc's parts; false when one is missing, of
// another type, or the base URL is nil.
func readRESTClientParts(rc *rest.RESTClient) (restClientParts, bool) {
	var parts restClientParts
	var ok [4]bool
	parts.base, ok[0] = privatefield.Read[*url.URL](rc, "base")
	parts.versionedAPIPath, ok[1] = privatefield.Read[string](rc, "versionedAPIPath")
	parts.content, ok[2] = privatefield.Read[rest.ClientContentConfig](rc, "content", "base")
	parts.warnings, ok[3] = privatefield.Read[rest.WarningHandlerWithContext](rc, "warningHandler")
	return parts, ok == [4]bool{true, true, true, true} && parts.base != nil
}
