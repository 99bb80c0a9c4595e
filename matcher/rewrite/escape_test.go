package rewrite

import (
	"fmt"
	"testing"
)

// appendLocationSafe escapes exactly the bytes a Location cannot carry,
// alone and inside runs of bytes it keeps, and keeps the rest.
func TestAppendLocationSafe(t *testing.T) {
	unsafe := func(c byte) bool {
		return c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}'
	}
	for c := range 256 {
		b := byte(c)
		want := string([]byte{b})
		if unsafe(b) {
			want = fmt.Sprintf("%%%02X", b)
		}
		for _, tc := range []struct{ in, want string }{
			{string([]byte{b}), want},
			{"/a/" + string([]byte{b}) + "b/c", "/a/" + want + "b/c"},
			{string([]byte{b, b}) + "x", want + want + "x"},
		} {
			if got := string(appendLocationSafe([]byte("<"), []byte(tc.in))); got != "<"+tc.want {
				t.Errorf("appendLocationSafe(%q) = %q, want %q", tc.in, got[1:], tc.want)
			}
		}
	}
}

// A rewrite's redirect is written Location-safe as its parts are
// appended: byte for byte what escaping the whole value once built
// gives, for every byte in a literal, a capture (the path as sent with
// and without an escape) and a variable.
func TestScriptLocationOnePass(t *testing.T) {
	p, err := Compile(Spec{Locations: []LocationSpec{{Path: "/", Steps: `rewrite ^/(.*)$ "/l<|$1|$arg_v" redirect;`}}})
	if err != nil {
		t.Fatal(err)
	}
	st := &p.root.prefixes[0].steps[0]
	var s Scratch
	var res Result
	for c := range 256 {
		b := string([]byte{byte(c)})
		for _, target := range []string{
			"/a" + b + "b?v=x" + b,
			fmt.Sprintf("/a%%%02Xb?v=%%%02X", c, c),
			"/a+" + b + "?v=" + b + b,
		} {
			req := request("example.com", target, nil)
			p.Run(&s, req, &res)
			if res.Action != Redirect {
				continue // "." takes no '\n': no match
			}
			built := s.appendScript(nil, req, &st.uri, true)
			if args := s.bytes(s.args); len(args) > 0 {
				built = append(append(built, '?'), args...)
			}
			if got, want := string(res.Location), string(appendLocationSafe(nil, built)); got != want {
				t.Errorf("%q: Location %q, want %q", target, got, want)
			}
		}
	}
}
