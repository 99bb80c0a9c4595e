package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestPages renders each page for the admin token and for a token
// limited to a.example, and checks what each shows and hides.
func TestPages(t *testing.T) {
	t.Parallel()
	opts := admin.Options{Token: token, Tokens: []admin.Token{{Name: "amy", Role: edit.RoleViewer, Token: "amy-token", Hosts: []string{"a.example"}}}}
	base, _ := serve(t, opts, newFake())
	root, amy := newBrowser(t, base), newBrowser(t, base)
	root.signIn(token)
	amy.signIn("amy-token")
	tests := []struct {
		who        *browser
		path       string
		status     int
		want, hide []string
	}{
		{root, "/", 200, []string{"bbbbbbbbbbbb", `id="rule-total">3<`, "/gone-a", "/gone-b"}, nil},
		{amy, "/", 200, []string{`id="rule-total">1<`, "/gone-a", "not kept per host"}, []string{"/gone-b", "redirect</td>"}},
		{root, "/ui/rules?q=OLD", 200, []string{"/old-a", "/old-b", "2 rules match"}, []string{"/docs/"}},
		{root, "/ui/rules?q=docs.example", 200, []string{"/docs/", "1 rule matches"}, nil},
		{amy, "/ui/rules", 200, []string{"/old-a", "1 rule matches among your hosts"}, []string{"/old-b", "/docs/"}},
		{amy, "/ui/rules?host=b.example", http.StatusForbidden, nil, []string{"/old-b"}},
		{root, "/ui/rules", 200, []string{`id="locations"`, "<code>^~ /shop/</code>", "rewrite ^/shop/(.*)$ /store/$1 permanent;", "r.toml:20", "<code>upstream default</code>"}, nil},
		{root, "/ui/rules?q=STORE", 200, []string{"^~ /shop/"}, []string{"/b-loc/"}},
		{amy, "/ui/rules?q=shop", 200, []string{"^~ /shop/", "r.toml:20"}, []string{"/b-loc/"}},
		{amy, "/ui/rules?q=nothing-here", 200, nil, []string{`id="locations"`}},
		{root, "/ui/explain?url=http://b.example/x&headers=Accept:+a%0AX-Y:+z&client=192.0.2.1", 200, []string{`headers [&#34;Accept: a&#34; &#34;X-Y: z&#34;] client &#34;192.0.2.1&#34;`}, nil},
		{root, "/ui/explain?url=%zz", 200, []string{"Explain a URL"}, nil},
		{amy, "/ui/explain?url=http://a.example/x", 200, []string{"host a.example path /x"}, nil},
		{amy, "/ui/explain?url=http://b.example/x", http.StatusForbidden, []string{"does not cover host"}, []string{"host b.example"}},
		{amy, "/ui/misses", 200, []string{"/gone-a"}, []string{"/gone-b"}},
		{amy, "/ui/misses?host=b.example", http.StatusForbidden, nil, []string{"/gone-b"}},
		{root, "/ui/versions/diff?from=aaaaaaaaaaaa", 200, []string{"/a-new", "/b-new", "2 added"}, nil},
		{amy, "/ui/versions/diff?from=aaaaaaaaaaaa", 200, []string{"/a-new", "1 added"}, []string{"/b-new"}},
		{root, "/ui/versions/diff?from=cccccccccccc", http.StatusNotFound, []string{"no such version"}, nil},
		{root, "/ui/versions", 200, []string{"Roll back"}, nil},
		{amy, "/ui/versions", 200, []string{"aaaaaaaaaaaa"}, []string{"Roll back"}},
		{root, "/ui/drafts", 200, []string{"not edited here"}, nil},
		{root, "/ui/nope", http.StatusNotFound, []string{"no such page"}, nil},
		{root, "/ui/assets/style.css", 200, []string{"outline: 3px solid"}, nil},
	}
	for _, tt := range tests {
		p := tt.who.get(tt.path)
		if p.Status != tt.status {
			t.Errorf("GET %s: %d, want %d\n%.1000s", tt.path, p.Status, tt.status, p.Body)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(p.Body, w) {
				t.Errorf("GET %s lacks %q:\n%.3000s", tt.path, w, p.Body)
			}
		}
		for _, h := range tt.hide {
			if strings.Contains(p.Body, h) {
				t.Errorf("GET %s shows %q", tt.path, h)
			}
		}
	}
}

// TestHostileText: a rule's text is escaped on every page it shows on.
func TestHostileText(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.rules = append(f.rules, admin.RuleInfo{Kind: "exact", From: `/<script>alert(1)</script>`, To: `"><img src=x onerror=alert(1)>`, Status: 301})
	base, _ := serve(t, admin.Options{}, f)
	b := newBrowser(t, base)
	p := b.get("/ui/rules?q=script")
	if strings.Contains(p.Body, "<script>") || strings.Contains(p.Body, "<img") || !strings.Contains(p.Body, "&lt;script&gt;") {
		t.Errorf("a hostile rule is not escaped:\n%.2000s", p.Body)
	}
}

// TestRulesShowConditions: the rules page shows each rule's conditions
// (an https-only rule of an nginx import looked like any other), and
// "none" for a rule without.
func TestRulesShowConditions(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.rules = append(f.rules, admin.RuleInfo{Kind: "exact", From: "/secure", To: "/s", Status: 301, Source: "r.toml:12",
		Conditions: []string{"scheme = https", `header X-Beta = "1"`}})
	base, _ := serve(t, admin.Options{}, f)
	b := newBrowser(t, base)
	p := b.get("/ui/rules?q=secure")
	if !strings.Contains(p.Body, `<th scope="col">Conditions</th>`) ||
		!strings.Contains(p.Body, `<td><code>scheme = https, header X-Beta = &#34;1&#34;</code></td>`) {
		t.Errorf("the rules page lacks the rule's conditions:\n%.3000s", p.Body)
	}
	p = b.get("/ui/rules?q=old-a")
	if !strings.Contains(p.Body, `<span class="dim">none</span>`) {
		t.Errorf("a rule without conditions is not shown as none:\n%.3000s", p.Body)
	}
}

// TestRulesShowLastEdit: a rule changed through a draft shows who
// promoted it and when; a rule of the config says so.
func TestRulesShowLastEdit(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.rules = append(f.rules, admin.RuleInfo{Kind: "exact", From: "/edited", To: "/e", Status: 301, Source: "admin:1",
		RuleChange: &admin.RuleChange{ChangedBy: "amy", Added: "2026-12-06T04:00:00Z", Message: "moved the blog"}})
	base, _ := serve(t, admin.Options{}, f)
	b := newBrowser(t, base)
	if p := b.get("/ui/rules?q=edited"); !strings.Contains(p.Body, "<td>amy, 2026-12-06T04:00:00Z: moved the blog</td>") {
		t.Errorf("the rules page lacks the rule's last edit:\n%.3000s", p.Body)
	}
	if p := b.get("/ui/rules?q=old-a"); !strings.Contains(p.Body, `<span class="dim">config</span>`) {
		t.Errorf("a config rule is not shown as the config's:\n%.3000s", p.Body)
	}
}
