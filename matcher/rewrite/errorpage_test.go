package rewrite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pagesSite sends errors elsewhere in each way error_page can.
var pagesSite = Spec{
	Steps: []Text{{Src: "error_page 404 @notfound;\nerror_page 403 /landing;\nif ($arg_deny) { return 403; }", Line: 1}},
	Locations: []LocationSpec{
		{Match: Named, Path: "notfound", Steps: `return 301 /search?q=$uri;`},
		{Match: Named, Path: "up", Pass: true, Upstream: "app"},
		{Match: Prefix, Path: "/", Steps: `return 404;`},
		{Match: Prefix, Path: "/landing", Steps: `if ($request_method = POST) { return 200 "posted"; } return 200 "landing $uri $args";`},
		{Match: Prefix, Path: "/own/", Steps: "error_page 404 =200 /landing?from=own;\nerror_page 410 = /landing;\nif ($arg_gone) { return 410; }\nreturn 404;"},
		{Match: Prefix, Path: "/red/", Steps: `error_page 403 500 https://example.org/denied$uri; return 403;`},
		{Match: Prefix, Path: "/red301/", Steps: `error_page 403 =301 http://example.org/moved; error_page 404 =301 /moved; if ($arg_in) { return 404; } return 403;`},
		{Match: Prefix, Path: "/nested/", Steps: `error_page 404 /landing; return 200 outer;`, Locations: []LocationSpec{
			{Match: Prefix, Path: "/nested/inner/", Steps: `return 404;`},
		}},
		{Match: Prefix, Path: "/fwd/", Steps: `error_page 404 @up; return 404;`},
		{Match: Prefix, Path: "/nowhere/", Steps: `error_page 404 @nope; return 404;`},
	},
}

func TestErrorPage(t *testing.T) {
	p, err := Compile(pagesSite)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		target string
		want   answer
	}{
		{"/x", answer{Action: Redirect, Status: 301, Location: "/search?q=/x", Where: "@notfound"}},
		{"/text?deny=1", answer{Action: Answer, Status: 403, Body: "landing /landing ", Where: "/landing"}},
		{"/own/a", answer{Action: Answer, Status: 200, Body: "landing /landing from=own", Where: "/landing"}},
		{"/own/a?gone=1", answer{Action: Answer, Status: 200, Body: "landing /landing ", Where: "/landing"}},
		{"/red/a", answer{Action: Redirect, Status: 302, Location: "https://example.org/denied/red/a", Where: "/red/"}},
		{"/red301/a", answer{Action: Redirect, Status: 301, Location: "http://example.org/moved", Where: "/red301/"}},
		// A path is an internal redirect, whatever the =CODE; the 404
		// there is not sent elsewhere again.
		{"/red301/a?in=1", answer{Action: Answer, Status: 404, Where: "/"}},
		{"/nested/a", answer{Action: Answer, Status: 200, Body: "outer", Where: "/nested/"}},
		{"/nested/inner/a", answer{Action: Answer, Status: 404, Body: "landing /landing ", Where: "/landing"}},
		{"/fwd/a%20b?q", answer{Action: Forward, Status: 404, URI: "/fwd/a%20b?q", Where: "@up", Ups: "app"}},
		{"/nowhere/a", answer{Action: Answer, Status: 500, Where: "/nowhere/"}},
	}
	post := request("example.com", "/own/a", nil)
	post.Method = []byte("POST")
	if got := run(t, p, post); got.Body != "landing /landing from=own" {
		t.Errorf("POST /own/a: body %q, want the error page asked with GET", got.Body)
	}
	for _, tt := range tests {
		got := run(t, p, request("example.com", tt.target, nil))
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.target, d)
		}
		req := request("example.com", tt.target, nil)
		var s Scratch
		var res Result
		p.Run(&s, req, &res)
		if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("%s: %v allocations per Run", tt.target, n)
		}
	}
}

func TestErrorPageErrors(t *testing.T) {
	for _, tt := range []struct{ steps, want string }{
		{"error_page /x;", "line 1: error_page: takes one or more statuses and a URI, @name or URL"},
		{"error_page 200 /x;", `line 1: error_page: invalid status "200": from 300 to 599, not 499`},
		{"error_page 404 =abc /x;", `line 1: error_page: invalid response "=abc": =CODE with a status from 200 to 599, or a bare =`},
		{"error_page = /x;", "line 1: error_page: takes one or more statuses before the URI"},
		{"if ($uri) { error_page 404 /x; }", "line 1: error_page: not supported inside if"},
	} {
		_, err := Compile(Spec{Steps: []Text{{Src: tt.steps, Line: 1}}})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %s", tt.steps, err, tt.want)
		}
	}
}
