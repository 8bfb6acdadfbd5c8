package e2e

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// watchCutter is an http.RoundTripper in front of a clientset that can cut
// the watches of one resource and then make the next resumed watch fail
// with 410 Expired, which forces every Reflector of that resource to relist
// (as after an etcd compaction). It counts initial syncs: collection GETs
// that are lists, or watches asking for initial events (WatchList).
//
// mu guards down, expire and open.
type watchCutter struct {
	base     http.RoundTripper
	resource string // path segment, e.g. "/configmaps"

	mu     sync.Mutex
	down   bool
	expire bool
	open   map[*cutBody]struct{}

	initialSyncs atomic.Int64
}

// cut closes every open watch of the resource and refuses new ones until
// heal.
func (c *watchCutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = true
	for b := range c.open {
		_ = b.ReadCloser.Close()
	}
	c.open = nil
}

// heal lets watches through again; resumed watches (with a resource
// version, without initial events) get 410 Expired until an initial sync
// of the resource passed.
func (c *watchCutter) heal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down, c.expire = false, true
}

func (c *watchCutter) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, c.resource) {
		return c.base.RoundTrip(req)
	}
	isWatch := q.Get("watch") == "true" || q.Get("watch") == "1"
	initial := !isWatch || q.Get("sendInitialEvents") == "true"
	c.mu.Lock()
	switch {
	case isWatch && c.down:
		c.mu.Unlock()
		return nil, errors.New("e2e: watch cut")
	case isWatch && c.expire && !initial:
		c.mu.Unlock()
		return expiredResponse(req), nil
	case initial:
		c.expire = false
		c.initialSyncs.Add(1)
	}
	c.mu.Unlock()
	resp, err := c.base.RoundTrip(req)
	if err != nil || !isWatch {
		return resp, err
	}
	body := &cutBody{ReadCloser: resp.Body}
	c.mu.Lock()
	if c.open == nil {
		c.open = map[*cutBody]struct{}{}
	}
	c.open[body] = struct{}{}
	c.mu.Unlock()
	resp.Body = body
	return resp, nil
}

// cutBody is a watch response body the cutter can close.
type cutBody struct{ io.ReadCloser }

// expiredResponse is the API server's answer to a watch from a compacted
// resource version.
func expiredResponse(req *http.Request) *http.Response {
	const status = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`
	return &http.Response{
		StatusCode: http.StatusGone, Status: "410 Gone", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    io.NopCloser(bytes.NewBufferString(status)),
		Request: req, ContentLength: int64(len(status)),
	}
}
