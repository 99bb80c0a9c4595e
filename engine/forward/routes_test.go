package forward

import (
	"testing"
)

// TestRoutesPick: the most specific host first (exact, wildcards from the
// longest, any host), the longest prefix within a host, a host none of
// whose prefixes match leaving the choice to the next, then the default.
func TestRoutesPick(t *testing.T) {
	var r Routes[string]
	r.Default = "default"
	r.Add("shop.example.com", "/", "shop")
	r.Add("shop.example.com", "/api/", "shop-api")
	r.Add("*.example.com", "/static/", "static")
	r.Add("*.b.example.com", "/", "b")
	r.Add("", "/health", "any")
	r.Sort()
	for _, tc := range []struct{ host, path, want string }{
		{"shop.example.com", "/api/x", "shop-api"},
		{"SHOP.example.com.:8080", "/cart", "shop"},
		{"a.b.example.com", "/x", "b"},
		{"x.example.com", "/static/a.css", "static"},
		{"x.example.com", "/other", "default"},
		{"other.org", "/health", "any"},
		{"other.org", "/x", "default"},
	} {
		if got := r.Pick([]byte(tc.host), []byte(tc.path)); got != tc.want {
			t.Errorf("%s%s: %q, want %q", tc.host, tc.path, got, tc.want)
		}
	}
}

func TestRoutesPickAllocs(t *testing.T) {
	var r Routes[*int]
	n := 1
	r.Add("*.example.com", "/a/", &n)
	r.Add("shop.example.com", "/", &n)
	r.Sort()
	host, path := []byte("Deep.Sub.Example.com:443"), []byte("/a/b")
	if a := testing.AllocsPerRun(100, func() { r.Pick(host, path) }); a != 0 {
		t.Errorf("Pick allocates %v times", a)
	}
}
