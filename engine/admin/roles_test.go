package admin

import (
	"net/http/httptest"
	"testing"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestAllows checks a limited token's hosts against the rules' hosts: a
// wildcard reaches its subdomains and their wildcards, never the bare
// name, a look-alike or the rules of no host.
func TestAllows(t *testing.T) {
	t.Parallel()
	id := &edit.Identity{Name: "a", Role: edit.RoleEditor, Hosts: []string{"*.brand-a.com", "shop.example"}}
	for host, want := range map[string]bool{
		"www.brand-a.com": true, "a.b.brand-a.com": true, "*.brand-a.com": true, "*.x.brand-a.com": true, "WWW.Brand-A.com.": true,
		"shop.example": true, "brand-a.com": false, "evilbrand-a.com": false, "brand-a.com.evil": false, "": false,
		"www.shop.example": false, "*.shop.example": false,
	} {
		if got := id.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	if every := (&edit.Identity{Role: edit.RoleViewer}); !every.Allows("") || !every.Allows("x.com") {
		t.Errorf("a token of every host is refused a host")
	}
}

// TestFindToken checks that each token finds its own identity, the
// unnamed [admin] token an admin's, and that anything else finds none.
func TestFindToken(t *testing.T) {
	t.Parallel()
	table := *newTokenTable("root", []Token{{Name: "v", Role: edit.RoleViewer, Token: "vt"}, {Name: "e", Role: edit.RoleEditor, Token: "et", Hosts: []string{"a.com"}}})
	for auth, want := range map[string]string{
		"Bearer root": "admin", "bearer vt": "v", "Bearer  et": "e", "Bearer vt ": "", "Bearer v": "", "Basic vt": "", "": "", "Bearer": "",
	} {
		r := httptest.NewRequest("GET", "/rules", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		got := ""
		if id := findToken(r, table); id != nil {
			got = id.Name
		}
		if got != want {
			t.Errorf("%q: token of %q, want %q", auth, got, want)
		}
	}
	if id := findToken(httptest.NewRequest("GET", "/", nil), nil); id != nil {
		t.Errorf("no tokens found one")
	}
}
