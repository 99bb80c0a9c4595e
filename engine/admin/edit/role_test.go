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
