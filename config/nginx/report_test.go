package nginx

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBlockingMaps: a map the location model refuses blocks the import
// only when a step deciding a redirect or a forward reads it, directly
// or through another map or a set; one that only logging or headers
// read is left out with a note Blocking does not count.
func TestBlockingMaps(t *testing.T) {
	const srv = " server { server_name a.test; location / { return 301 /x; } }"
	tests := []struct {
		name, conf string
		blocks     bool   // Blocking counts the map's note, and the steps left out with it
		note       string // part of the map's note
	}{
		{"a map only access_log if= reads", `log_format l '$request_uri'; map $host:$status $hits { ~:404$ 1; default 0; } access_log /dev/null l if=$hits;` + srv,
			false, "$hits is read only by access_log, so no redirect or forward depends on it"},
		{"a map only add_header reads", `map $status $h { 404 x; }` + " server { server_name a.test; add_header X-H $h; location / { return 301 /x; } }",
			false, "$h is read only by add_header"},
		{"a map nothing reads", `map $status $h { 404 x; }` + srv, false, "nothing reads $h"},
		{"a map a return reads", `map $status $m { 404 /b; }` + " server { server_name a.test; location / { return 301 $m; } }",
			true, "map $status $m: redirectd's location model refuses it"},
		{"a map chained into a map a return reads", `map $status $m { 404 1; } map $m $n { 1 /b; }` + " server { server_name a.test; location / { return 301 $n; } }",
			true, "map $status $m: redirectd's location model refuses it"},
		{"a map another map's value reads, that map logged", `map $status $m { 404 1; } map $host $lg { default $m; } log_format l '$x'; access_log /dev/null l if=$lg;` + srv,
			false, "$m is read only by map $lg, so no redirect"},
		{"a map key that looks like a variable reads nothing", `map $status $m { 404 1; } map $host $k { ~^$m 1; }` + srv,
			false, "nothing reads $m"},
		{"a map a set reads, its variable logged", `map $status $m { 404 1; } log_format l '$x'; access_log /dev/null l;` + " server { server_name a.test; set $x $m; location / { return 301 /x; } }",
			false, "$m is read only by set"},
		{"a map a set reads, its variable in an if", `map $status $m { 404 1; }` + " server { server_name a.test; set $x $m; location / { if ($x) { return 301 /y; } return 301 /x; } }",
			true, "map $status $m: redirectd's location model refuses it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dirs, err := Parse("t.conf", []byte(tt.conf))
			if err != nil {
				t.Fatal(err)
			}
			res := Translate(dirs)
			var notes []string
			for _, n := range res.Notes {
				notes = append(notes, n.String())
			}
			if got := res.Blocking(); (got > 0) != tt.blocks {
				t.Errorf("Blocking() = %d, want blocking %v; notes:\n%s", got, tt.blocks, strings.Join(notes, "\n"))
			}
			if !strings.Contains(strings.Join(notes, "\n"), tt.note) {
				t.Errorf("no note has %q; notes:\n%s", tt.note, strings.Join(notes, "\n"))
			}
		})
	}
}

// TestDecidingVars: the variables deciding steps read, through maps and
// sets, and no others.
func TestDecidingVars(t *testing.T) {
	conf := `map $status $logged { 404 1; } map $uri $a { /x $b; } map $host $b { h /y; } map $c $d { 1 2; }
server { set $s $a; set $t $logged; if ($s) { return 301 ${e}z; } access_log /dev/null if=$t; add_header X $d; }`
	dirs, err := Parse("t.conf", []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"s": true, "a": true, "b": true, "uri": true, "host": true, "e": true}
	if diff := cmp.Diff(want, decidingVars(dirs)); diff != "" {
		t.Errorf("decidingVars (-want +got):\n%s", diff)
	}
}
