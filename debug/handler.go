package debug

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// defaultRefreshSeconds is how often the HTML page reloads itself.
const defaultRefreshSeconds = 2

// Handler returns the http.Handler of the page: HTML by default, the
// Snapshot as JSON with ?format=json. It answers GET and HEAD only and
// never changes anything. Each request takes a new snapshot.
func Handler() http.Handler { return http.HandlerFunc(serve) }

// serve answers one request.
func serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: use GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	snap := Take()
	var body bytes.Buffer
	switch r.URL.Query().Get("format") {
	case "json":
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(&body)
		enc.SetIndent("", "  ")
		if err := enc.Encode(snap); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	case "", "html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// No page may load anything from elsewhere, nor run scripts.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		if err := pageTemplate.Execute(&body, pageData{Snapshot: snap, Refresh: refreshSeconds(r)}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	default:
		http.Error(w, "unknown format (want json or html)", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(body.Len()))
	_, _ = w.Write(body.Bytes())
}

// refreshSeconds is ?refresh=N when it is a number from 0 to 3600, else
// the default.
func refreshSeconds(r *http.Request) int {
	if n, err := strconv.Atoi(r.URL.Query().Get("refresh")); err == nil && n >= 0 && n <= 3600 {
		return n
	}
	return defaultRefreshSeconds
}
