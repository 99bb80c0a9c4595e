package edit

import (
	"errors"
	"testing"
)

// TestMayExplain: a token of every host explains anything; one limited
// to some hosts only full URLs of its hosts, a path alone being every
// host's; each refusal is ErrForbidden.
func TestMayExplain(t *testing.T) {
	all := &Identity{Name: "a", Role: RoleViewer}
	scoped := &Identity{Name: "s", Role: RoleViewer, Hosts: []string{"*.a.example", "b.example"}}
	for _, tt := range []struct {
		who  *Identity
		raw  string
		want bool
	}{
		{all, "/x", true}, {all, "https://c.example/x", true},
		{scoped, "https://www.a.example/x", true}, {scoped, "http://B.example:8080/x", true},
		{scoped, "/x", false}, {scoped, "https://c.example/x", false}, {scoped, "https://a.example/x", false}, {scoped, "%zz", false},
	} {
		err := tt.who.MayExplain(tt.raw)
		if (err == nil) != tt.want || err != nil && !errors.Is(err, ErrForbidden) {
			t.Errorf("%s explains %q: %v, want allowed %v", tt.who.Name, tt.raw, err, tt.want)
		}
	}
}

// TestRefusalWords: a refusal names the token's role with its article
// and, for a rule of no host, says why a limited token may not add it
// and what to do instead.
func TestRefusalWords(t *testing.T) {
	s := NewService(&fakeBackend{})
	scoped := Identity{Name: "s", Role: RoleEditor, Hosts: []string{"*.a.com"}}
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"editor promotes", s.May(Identity{Name: "ed", Role: RoleEditor}, Promote),
			`forbidden: token "ed" is an editor; promoting a draft needs publisher or more`},
		{"admin's need", s.May(Identity{Name: "p", Role: RolePublisher}, Unpin),
			`forbidden: token "p" is a publisher; unpinning needs admin or more`},
		{"viewer edits", s.May(Identity{Name: "v", Role: RoleViewer}, AddEntry),
			`forbidden: token "v" is a viewer; editing a draft needs editor or more`},
		{"rule of no host", s.AddEntry(scoped, "d1", Entry{Op: "add", From: "/a"}),
			`forbidden: token "s" is limited to hosts [*.a.com]; a rule without a host applies to every host, which the token does not cover: give the rule a host the token covers`},
		{"another host", s.AddEntry(scoped, "d1", Entry{Op: "add", Host: "b.com", From: "/a"}),
			`the token may not edit the rules of this host: token "s" is limited to hosts [*.a.com], not "b.com"`},
	} {
		got := ""
		if tt.err != nil {
			got = tt.err.Error()
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
