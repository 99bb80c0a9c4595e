package rewrite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapFixture is a set of maps of each kind of key, read by TestMaps and
// the "maps" fixture of TestAgainstNginx.
var mapFixture = []MapSpec{
	{Source: "$uri", Variable: "moved", Entries: `
/old /new;
/OLD2 /new2;
~^/docs/(?<rest>.*)/b$ /documentation/$rest;
~*^/shop/item-(\d+)$ /products/$1;
~^/blog/(\d+)/ /archive/$1$is_args$args;`},
	{Source: "$uri", Variable: "section", Entries: `
default /fallback;
~^/go/(.*)$ /went/$1;
/go/old /went-exact;`},
	{Source: "$arg_lang$uri", Variable: "lang", Default: "en", Entries: `
/lang/de de;
"" empty;`},
	{Source: "$uri", Variable: "kept", Entries: "/go/x kept-x;\n/go/y kept-y;"},
	{Source: "$uri", Variable: "vol", Entries: "volatile;\n/go/x vol-x;\n/go/y vol-y;"},
	{Source: "$host", Variable: "by_host", Entries: `
hostnames;
*.example.com sub;
.example.org org;
example.com apex;
www.example.* www;`},
}

func TestMaps(t *testing.T) {
	p, err := Compile(Spec{Maps: mapFixture, Locations: []LocationSpec{
		{Match: Prefix, Path: "/", Steps: `if ($moved) { return 301 $moved; } return 200 "$section|$lang|$by_host|$rest";`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, target string
		want         answer
	}{
		{"example.com", "/old", answer{Action: Redirect, Status: 301, Location: "/new", Where: "/"}},
		{"example.com", "/Old", answer{Action: Redirect, Status: 301, Location: "/new", Where: "/"}},
		{"example.com", "/old2", answer{Action: Redirect, Status: 301, Location: "/new2", Where: "/"}},
		{"example.com", "/docs/x/y/b", answer{Action: Redirect, Status: 301, Location: "/documentation/x/y", Where: "/"}},
		{"example.com", "/Shop/Item-12", answer{Action: Redirect, Status: 301, Location: "/products/12", Where: "/"}},
		{"example.com", "/blog/2020/x?p=1", answer{Action: Redirect, Status: 301, Location: "/archive/2020?p=1", Where: "/"}},
		{"example.com", "/go/old", answer{Action: Answer, Status: 200, Body: "/went-exact|en|apex|", Where: "/"}},
		{"example.com", "/go/x", answer{Action: Answer, Status: 200, Body: "/went/x|en|apex|", Where: "/"}},
		{"a.b.example.com", "/x?lang=q", answer{Action: Answer, Status: 200, Body: "/fallback|en|sub|", Where: "/"}},
		{"example.org", "/lang/de", answer{Action: Answer, Status: 200, Body: "/fallback|de|org|", Where: "/"}},
		{"x.example.org", "/x", answer{Action: Answer, Status: 200, Body: "/fallback|en|org|", Where: "/"}},
		{"www.example.co.uk", "/x", answer{Action: Answer, Status: 200, Body: "/fallback|en|www|", Where: "/"}},
		{"other.net", "/x", answer{Action: Answer, Status: 200, Body: "/fallback|en||", Where: "/"}},
	}
	for _, tt := range tests {
		got := run(t, p, request(tt.host, tt.target, nil))
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s%s: (-want +got)\n%s", tt.host, tt.target, d)
		}
	}
}

// TestMapLarge checks that a map of many literal keys is a hash: its
// last key costs what its first does, and nothing is allocated.
func TestMapLarge(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "/page/%d /new/%d;\n", i, i)
	}
	b.WriteString("~^/re/(.*)$ /rx/$1;\n")
	p, err := Compile(Spec{Maps: []MapSpec{{Source: "$uri", Variable: "to", Entries: b.String()}},
		Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: `if ($to) { return 301 $to; } return 404;`}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ target, want string }{{"/page/0", "/new/0"}, {"/page/39999", "/new/39999"}, {"/re/a", "/rx/a"}} {
		req := request("example.com", tt.target, nil)
		if got := run(t, p, req); got.Location != tt.want {
			t.Errorf("%s: Location %q, want %q", tt.target, got.Location, tt.want)
		}
		var s Scratch
		var res Result
		p.Run(&s, req, &res)
		if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("%s: %v allocations per Run", tt.target, n)
		}
	}
}

func TestMapErrors(t *testing.T) {
	loc := []LocationSpec{{Match: Prefix, Path: "/", Steps: `return 200 $m;`}}
	tests := []struct {
		m    MapSpec
		want string
	}{
		{MapSpec{Source: "$uri", Variable: "uri"}, `map $uri: cannot set "$uri": it is the request's`},
		{MapSpec{Variable: "m"}, `map $m: missing; a map looks up a value with variables, such as "$uri"`},
		{MapSpec{Source: "$uri", Variable: "m", Entries: "/a /b", EntriesLine: 7}, `map $m: line 7: "/a": missing ';' at the end`},
		{MapSpec{Source: "$uri", Variable: "m", Entries: "/a /b;\n/A /c;", EntriesLine: 7}, `map $m: line 8: "/A": duplicate key`},
		{MapSpec{Source: "$uri", Variable: "m", Entries: "~^(/a /b;", EntriesLine: 1}, "map $m: line 1: \"~^(/a\": invalid regex \"^(/a\": error parsing regexp: missing closing ): `^(/a`"},
		{MapSpec{Source: "$uri", Variable: "m", Entries: "/a $nope;", EntriesLine: 2}, `map $m: line 2: unknown variable $nope: not the request's, and no set or named capture defines it`},
		{MapSpec{Source: "$uri", Variable: "m", Default: "x", Entries: "default y;", EntriesLine: 2}, `map $m: line 2: a second default: the map's default is also set outside its entries`},
		{MapSpec{Source: "$uri", Variable: "m", Entries: "/a b c;", EntriesLine: 2}, `map $m: line 2: "/a": a map's line is a key and a value`},
		{MapSpec{Source: "$uri", Variable: "m", Entries: "hostnames;\nw*w.x y;", EntriesLine: 2}, `map $m: line 3: "w*w.x": invalid wildcard: '*' only as the first or the last label`},
	}
	for _, tt := range tests {
		_, err := Compile(Spec{Maps: []MapSpec{tt.m}, Locations: loc})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%+v: %v, want %s", tt.m, err, tt.want)
		}
	}
}

// TestMapShared: hosts given the same maps compile a map that reads no
// variable slot once, and one that does once per state of the slots it
// meets: the hosts whose slots stand the same share it, a host whose
// regex name defined a slot first has its own.
func TestMapShared(t *testing.T) {
	maps := []MapSpec{
		{Source: "$uri", Variable: "plain", Entries: "/a /b;\n~^/c/(.*)$ /d/$1$is_args$args;"},
		{Source: "$uri", Variable: "reads", Entries: "/a $plain;\n~^/(?<x>e)$ $x;"},
	}
	loc := []LocationSpec{{Path: "/", Steps: `return 200 "$plain $reads";`}}
	hosts, err := CompileHosts([]HostSpec{
		{Host: "a.test", Spec: Spec{Maps: maps, Locations: loc}},
		{Host: `~^(?<sub>b)\.test$`, Spec: Spec{Maps: maps, Locations: loc}},
		{Host: "c.test", Spec: Spec{Maps: maps, Locations: []LocationSpec{{Path: "/", Steps: `set $late "l"; return 200 "$plain $reads$late";`}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := hosts.Lookup([]byte("a.test"), false), hosts.Lookup([]byte("b.test"), false), hosts.Lookup([]byte("c.test"), false)
	if a.maps[0] != b.maps[0] {
		t.Error("the map that reads no variable is compiled twice")
	}
	if a.maps[1] == b.maps[1] {
		t.Error("the map that reads a variable is shared with a host whose slots differ")
	}
	if a.maps[1] != c.maps[1] {
		t.Error("the map that reads a variable is compiled again for a host whose slots stand the same")
	}
	if got := run(t, c, request("x", "/e", nil)); got.Body != " el" {
		t.Errorf("c.test: body %q, want %q", got.Body, " el")
	}
	for _, p := range []*Program{a, b} {
		if got := run(t, p, request("x", "/a", nil)); got.Body != "/b /b" {
			t.Errorf("body %q, want %q", got.Body, "/b /b")
		}
		if got := run(t, p, request("x", "/e", nil)); got.Body != " e" {
			t.Errorf("body %q, want %q", got.Body, " e")
		}
	}
}

// TestMapKeyCaseASCII: a map's string keys fold ASCII case only, as
// nginx's hash does: "/CAFÉ" answers "/CAFÉ" and "/cafÉ", not "/café".
func TestMapKeyCaseASCII(t *testing.T) {
	hosts, err := CompileHosts([]HostSpec{{Spec: Spec{
		Maps:      []MapSpec{{Source: "$uri", Variable: "m", Entries: "/CAFÉ /upper;", EntriesLine: 1}},
		Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: `if ($m) { return 301 $m; }`}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/CAFÉ": "/upper", "/cafÉ": "/upper", "/café": ""} {
		var s Scratch
		var res Result
		req := request("a.test", path, nil)
		hosts.Lookup(req.Host, false).Run(&s, req, &res)
		if string(res.Location) != want {
			t.Errorf("%s: Location %q, want %q", path, res.Location, want)
		}
	}
}

// TestMapSharedUndefined: a map taken from an earlier host still has
// its variables checked against the host that takes it: one that this
// host's steps do not set is the error it would be compiled anew.
func TestMapSharedUndefined(t *testing.T) {
	maps := []MapSpec{{Source: "$uri", Variable: "m", Entries: "/a $late;", EntriesLine: 2}}
	_, err := CompileHosts([]HostSpec{
		{Host: "a.test", Spec: Spec{Maps: maps, Steps: []Text{{Src: `set $late "x"; return 200 $m;`}}}},
		{Host: "b.test", Spec: Spec{Maps: maps, Steps: []Text{{Src: `return 200 $m;`}}}},
	})
	want := `map $m: line 2: unknown variable $late`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}
