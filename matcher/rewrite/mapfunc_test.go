package rewrite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMapFunctions: a map of a function answers the function of its
// source, computed at every read (after a set changed the source), as
// Apache's int: maps do, and allocates nothing.
func TestMapFunctions(t *testing.T) {
	var maps []MapSpec
	for _, f := range []string{"tolower", "toupper", "escape", "unescape", "urlencode"} {
		maps = append(maps, MapSpec{Source: "$k", Variable: f, Function: f})
	}
	p, err := Compile(Spec{Maps: maps, Locations: []LocationSpec{
		{Match: Prefix, Path: "/", Steps: `set $k $arg_k; set $a $tolower; set $k "$arg_k!"; return 200 "$a|$tolower|$toupper|$escape|$unescape|$urlencode";`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ k, want string }{
		{"", "|!|!|!|!|%21"},
		{"AbC/d%C3%a9", "abc/d%c3%a9|abc/d%c3%a9!|ABC/D%C3%A9!|AbC/d%25C3%25a9!|AbC/d\xc3\xa9!|AbC%2fd%25C3%25a9%21"},
		{"a%20b+c%2F%zz%4", "a%20b+c%2f%zz%4|a%20b+c%2f%zz%4!|A%20B+C%2F%ZZ%4!|a%2520b+c%252F%25zz%254!|a b+c/%zz%4!|a%2520b%2bc%252F%25zz%254%21"},
		{"x%00y", "x%00y|x%00y!|X%00Y!|x%2500y!|x|x%2500y%21"},
		{"q?#<>\"'[]", "q?#<>\"'[]|q?#<>\"'[]!|Q?#<>\"'[]!|q%3f%23%3c%3e%22'%5b%5d!|q?#<>\"'[]!|q%3f%23%3c%3e%22%27%5b%5d%21"},
	}
	for _, tt := range tests {
		req := request("example.com", "/x?k="+tt.k, nil)
		got := run(t, p, req)
		if d := cmp.Diff(tt.want, got.Body); d != "" {
			t.Errorf("k=%q: (-want +got)\n%s", tt.k, d)
		}
		var s Scratch
		var res Result
		p.Run(&s, req, &res)
		if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("k=%q: %v allocations per Run", tt.k, n)
		}
	}
	for _, bad := range []MapSpec{
		{Source: "$uri", Variable: "m", Function: "lower"},
		{Source: "$uri", Variable: "m", Function: "tolower", Entries: "/a /b;"},
		{Source: "$uri", Variable: "m", Function: "tolower", Default: "x"},
	} {
		if _, err := Compile(Spec{Maps: []MapSpec{bad}}); err == nil {
			t.Errorf("%+v: compiled", bad)
		}
	}
}

// TestURLEncodeOptions: urlencode's options are mod_rewrite's [B]
// variants: only some bytes escaped ([B=chars]), the controls and space
// ([BCTLS]), some never ([BNE=chars]), a space as %20 ([BNP]).
func TestURLEncodeOptions(t *testing.T) {
	tests := []struct{ fn, k, want string }{
		{"urlencode", "a b/c?d", "a+b%2fc%3fd"},
		{"urlencode only=%20%3F", "a b/c?d", "a+b/c%3fd"},
		{"urlencode only=%20%3F noplus", "a b/c?d", "a%20b/c%3fd"},
		{"urlencode only=ab%26", "ab&c", "ab%26c"},
		{"urlencode ctls", "a b/c?d\x01\x7f\xc3", "a+b/c?d%01%7f\xc3"},
		{"urlencode ctls noplus only=%2F", "a b/c", "a%20b%2fc"},
		{"urlencode except=%2F%20", "a b/c?d", "a b/c%3fd"},
		{"urlencode noplus", "a b", "a%20b"},
	}
	for _, tt := range tests {
		p, err := Compile(Spec{Maps: []MapSpec{{Source: "$k", Variable: "e", Function: tt.fn}},
			Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: `if ($uri ~ ^/x/(.*)$) { set $k $1; } return 200 "$e";`}}})
		if err != nil {
			t.Fatalf("%s: %v", tt.fn, err)
		}
		// The key goes in escaped, and $uri decodes it.
		var b []byte
		for _, c := range []byte(tt.k) {
			b = append(b, '%', lowerHex[c>>4], lowerHex[c&15])
		}
		req := request("example.com", "/x/"+string(b), nil)
		if got := run(t, p, req); got.Body != tt.want {
			t.Errorf("%s of %q: %q, want %q", tt.fn, tt.k, got.Body, tt.want)
		}
		var s Scratch
		var res Result
		p.Run(&s, req, &res)
		if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("%s: %v allocations per Run", tt.fn, n)
		}
	}
	for _, bad := range []string{"urlencode only", "urlencode only=%zz", "urlencode other", "tolower ctls", "urlencode ctls=1"} {
		if _, err := Compile(Spec{Maps: []MapSpec{{Source: "$k", Variable: "e", Function: bad}}}); err == nil {
			t.Errorf("%q: compiled", bad)
		}
	}
}
