package admin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMapKey checks that a path is written as a map key that the map
// file reader gives back unchanged: quoted where it would end the word or
// start a comment, a leading ~ (a regex key) escaped.
func TestMapKey(t *testing.T) {
	got := map[string]string{}
	for _, p := range []string{"/a", "/a;b", "/a#b", `/a"b`, `/a\b`, "~/x", "/{x}", "/a'b"} {
		got[p] = mapKey(p)
	}
	want := map[string]string{
		"/a": "/a", "/a;b": `"/a;b"`, "/a#b": `"/a#b"`, `/a"b`: `"/a\"b"`, `/a\b`: `"/a\\b"`,
		"~/x": `\~/x`, "/{x}": `"/{x}"`, "/a'b": `"/a'b"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mapKey (-want +got):\n%s", d)
	}
}
