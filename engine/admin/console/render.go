package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// pageNames are the templates, each rendered inside layout.html.
var pageNames = []string{"signin", "overview", "rules", "explain", "misses", "versions", "diff", "drafts", "draft", "confirm", "operation", "edit", "hits", "error"}

// pages holds one parsed template per page.
type pages map[string]*template.Template

var funcs = template.FuncMap{
	// join writes a rule's conditions on one line.
	"join": func(list []string) string { return strings.Join(list, ", ") },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"num": func(n any) string {
		var s string
		switch v := n.(type) {
		case int:
			s = strconv.Itoa(v)
		case uint64:
			s = strconv.FormatUint(v, 10)
		default:
			s = fmt.Sprint(v)
		}
		return thousands(s)
	},
	// lastAnswered, hits, changed and headers write a rule's
	// (admin.RuleInfo's) as the rules pages show them.
	"lastAnswered": func(ri admin.RuleInfo) string { return lastAnswered(&ri) },
	"hits":         func(ri admin.RuleInfo) uint64 { return ri.Hits + ri.ShadowHits },
	"changed":      func(ri admin.RuleInfo) string { return changed(&ri) },
	"headers":      headerText,
	"rate":         func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	// list makes a template's own list of choices.
	"list":       func(s ...string) []string { return s },
	"statusText": func(n int) string { return strings.ToLower(http.StatusText(n)) },
}

// thousands groups a number's digits: 1000000 is "1,000,000".
func thousands(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b []byte
	pre := len(s) % 3
	if pre > 0 {
		b = append(b, s[:pre]...)
	}
	for i := pre; i < len(s); i += 3 {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, s[i:i+3]...)
	}
	return string(b)
}

// parsePages parses every page's templates. The console calls it at the
// first page asked for, not at New: a server whose console nobody opens
// never runs html/template's parser, so it neither keeps the trees
// (about 290 KB of heap) nor has the parser's code paged in.
func parsePages() pages {
	p := pages{}
	for _, name := range pageNames {
		p[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/entryform.html", "templates/"+name+".html"))
	}
	return p
}

// view is what the layout reads: the page's title and section, the
// user (nil on the sign-in page), the CSRF token every form carries,
// and the page's own data.
type view struct {
	Title   string
	Section string
	User    *edit.Identity
	Open    bool
	CSRF    string
	Notice  string
	Data    any
	// Refresh, when not 0, has the browser load the page again after
	// that many seconds (a page whose data is a refresher).
	Refresh int
}

// refresher is a page's data that asks to be looked at again.
type refresher interface{ refresh() int }

// render writes page name with data, status first. It renders into a
// buffer so that a template error becomes a 500, not half a page.
func (c *Console) render(w http.ResponseWriter, status int, name, title string, u *user, data any) {
	v := view{Title: title, Section: name, Open: c.srv.Open(), Data: data}
	if rf, ok := data.(refresher); ok {
		v.Refresh = rf.refresh()
	}
	if u != nil {
		v.User, v.CSRF = &u.who, u.sess.csrf
	}
	var buf bytes.Buffer
	if err := c.pages()[name].Execute(&buf, v); err != nil {
		http.Error(w, "cannot render the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail renders the error page with status and a message saying what to
// do.
func (c *Console) fail(w http.ResponseWriter, _ *http.Request, u *user, status int, msg string) {
	c.render(w, status, "error", http.StatusText(status), u, msg)
}

func assetHandler() http.Handler {
	sub, _ := fs.Sub(assetFS, "assets") // cannot fail: the folder is embedded
	return http.StripPrefix("/ui/assets/", http.FileServerFS(sub))
}
