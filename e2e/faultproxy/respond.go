package faultproxy

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// statusOf is the HTTP status a fault answers with, or 0 for faults that
// let the request through.
func statusOf(f Fault) int {
	switch f {
	case TooManyRequests:
		return http.StatusTooManyRequests
	case InternalError:
		return http.StatusInternalServerError
	case ServiceUnavailable:
		return http.StatusServiceUnavailable
	case GatewayTimeout:
		return http.StatusGatewayTimeout
	}
	return 0
}

// writeStatus answers with a metav1.Status in JSON, as the API server (or a
// gateway in front of it) does.
func (p *Proxy) writeStatus(w http.ResponseWriter, f Fault, code int) {
	reason := map[int]string{
		http.StatusTooManyRequests:     "TooManyRequests",
		http.StatusInternalServerError: "InternalError",
		http.StatusServiceUnavailable:  "ServiceUnavailable",
		http.StatusGatewayTimeout:      "Timeout",
	}[code]
	body, _ := json.Marshal(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": "faultproxy: injected " + f.String(),
		"reason": reason, "code": code,
	})
	if f == TooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(p.cfg.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// serveList copies a LIST response, cutting its body when pl says so. It
// reports whether the response failed.
func (p *Proxy) serveList(w http.ResponseWriter, resp *http.Response, pl plan) bool {
	if pl.fault != ResetListPage && pl.fault != TruncateList {
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		_, err := io.Copy(w, resp.Body)
		return err != nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, "faultproxy: upstream body: "+err.Error(), http.StatusBadGateway)
		return true
	}
	cut := len(body) * pl.at / 100
	if cut < 1 && len(body) > 1 {
		cut = 1
	}
	copyHeader(w.Header(), resp.Header)
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body[:cut])
	p.inject(pl)
	if pl.fault == ResetListPage {
		resetConn(w)
	}
	return true
}

// resetConn flushes what was written and resets the client's connection:
// an HTTP/1 connection is closed with SO_LINGER 0 (a TCP RST), an HTTP/2
// stream is reset. It never returns normally for HTTP/2.
func resetConn(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, buf, err := rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = buf.Flush()
	raw := conn
	if tc, ok := conn.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// goneStatus is the Status of a 410 watch event.
func goneStatus(rv string) map[string]any {
	return map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "reason": "Expired", "code": 410,
		"message": fmt.Sprintf("too old resource version: %s (faultproxy)", rv),
	}
}
