package debug

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/kcache-go/cache/status"
)

// pageData is what the HTML template renders.
type pageData struct {
	Snapshot
	// Refresh is the reload period in seconds; 0 means none.
	Refresh int
}

// pageTemplate renders the HTML page; it is self-contained.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"short":    shortName,
	"ago":      ago,
	"seconds":  formatSeconds,
	"resource": resourceOf,
	"barWidth": barWidth,
	"causes":   causes,
}).Parse(pageHTML))

// causes renders the non-zero relist counts as "cause: n, cause: n" in the
// order of status.RelistCauses.
func causes(byCause map[string]int64) string {
	var parts []string
	for _, c := range status.RelistCauses() {
		if n := byCause[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", c, n))
		}
	}
	return strings.Join(parts, ", ")
}

// shortName drops the import path of a handler or type name.
func shortName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

// ago renders a time as its clock time and age, or "never".
func ago(now time.Time, t *time.Time) string {
	if t == nil {
		return "never"
	}
	return fmt.Sprintf("%s (%s ago)", t.Format("15:04:05"), now.Sub(*t).Round(time.Millisecond))
}

// formatSeconds renders seconds as a rounded duration.
func formatSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d == 0:
		return "–"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}

// resourceOf renders resource.version.group, or "(no identifier)".
func resourceOf(inf Informer) string {
	if inf.Resource == "" {
		return "(no identifier)"
	}
	s := inf.Resource
	if inf.Version != "" {
		s += "." + inf.Version
	}
	if inf.Group != "" {
		s += "." + inf.Group
	}
	return s
}

// barWidth maps a backlog to a bar width in percent on a log-like scale.
func barWidth(backlog int) int {
	w := 0
	for n := backlog; n > 0; n /= 10 {
		w += 16
	}
	return min(w, 100)
}

const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
{{if .Refresh}}<meta http-equiv="refresh" content="{{.Refresh}}">{{end}}
<title>kcache informers</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{font-size:1.4em;margin:0 0 .2em} .meta{color:#666;margin-bottom:1em}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.8em 1em;margin-bottom:1em}
h2{font-size:1.15em;margin:0 0 .5em} h3{font-size:1em;margin:.8em 0 .3em}
table{border-collapse:collapse} td,th{padding:.15em .8em .15em 0;text-align:left;vertical-align:top}
th{color:#555;font-weight:600} td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#17803d;font-weight:600} .no{color:#b45309;font-weight:600} .err{color:#b91c1c}
.bar{display:inline-block;height:.7em;background:#f59e0b;border-radius:2px;vertical-align:middle}
code{font-size:.92em}
</style></head><body>
<h1>kcache informers</h1>
<div class="meta">{{len .Informers}} live informer(s) · snapshot {{.GeneratedAt.Format "15:04:05.000"}}{{if .Refresh}} · reloads every {{.Refresh}}s{{end}} · <a href="?format=json">JSON</a></div>
{{$now := .GeneratedAt}}
{{range .Informers}}
<section class="informer" data-id="{{.ID}}" data-name="{{.Name}}">
<h2>#{{.ID}} {{resource .}}{{if .Name}} · <code>{{.Name}}</code>{{end}} · <code>{{.ObjectType}}</code></h2>
<table>
<tr><th>HasSynced</th><td class="synced">{{if .HasSynced}}<span class="ok">yes</span>{{else}}<span class="no">no</span>{{end}}{{if not .Started}} (not started){{end}}</td></tr>
<tr><th>Objects cached</th><td class="objects">{{.Objects}}</td></tr>
<tr><th>Last synced RV</th><td class="rv"><code>{{.LastSyncResourceVersion}}</code></td></tr>
<tr><th>Indices</th><td class="indices">{{range .Indices}}<code>{{.Name}}</code>: {{.Values}} values<br>{{else}}none{{end}}</td></tr>
</table>
<h3>Reflector <code>{{.Reflector.Name}}</code></h3>
<table class="reflector">
<tr><th>Lists</th><th>WatchLists</th><th>Watches</th><th>Relists</th><th>Last sync</th></tr>
<tr><td class="num lists">{{.Reflector.Lists}}</td><td class="num">{{.Reflector.WatchLists}}</td><td class="num">{{.Reflector.Watches}}</td>
<td class="relists">{{.Reflector.Relists}}{{with causes .Reflector.RelistsByCause}} ({{.}}){{end}}</td>
<td>{{ago $now .Reflector.LastSyncTime}}</td></tr>
</table>
<p class="lasterror">Last error: {{if .Reflector.LastError}}<span class="err">{{.Reflector.LastError}}</span> at {{ago $now .Reflector.LastErrorTime}}{{else}}none{{end}}</p>
<h3>Handlers ({{len .Handlers}})</h3>
<table class="handlers">
<tr><th>Handler</th><th>Backlog</th><th></th><th>Delivered</th><th>Slowest delivery</th><th>Synced</th></tr>
{{range .Handlers}}<tr class="handler" data-handler="{{.Name}}">
<td title="{{.Name}}"><code>{{short .Name}}</code></td>
<td class="num backlog">{{.Backlog}}</td><td style="width:8em"><span class="bar" style="width:{{barWidth .Backlog}}%"></span></td>
<td class="num delivered">{{.Delivered}}</td><td class="num slowest">{{seconds .SlowestDeliverySeconds}}</td>
<td>{{if .HasSynced}}<span class="ok">yes</span>{{else}}<span class="no">no</span>{{end}}</td></tr>
{{else}}<tr><td colspan="6">no handlers</td></tr>{{end}}
</table>
</section>
{{else}}<p>No live shared informer in this process.</p>{{end}}
</body></html>
`
