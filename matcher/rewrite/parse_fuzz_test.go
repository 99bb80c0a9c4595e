package rewrite

import "testing"

// FuzzCompileSteps feeds step text to the compiler and a request to what
// compiled: neither may panic, whatever the input.
func FuzzCompileSteps(f *testing.F) {
	f.Add("rewrite ^/(a)(?<n>b)?$ /x/$1$n?k=$arg_k last;", "/ab?k=1")
	f.Add(`if ($http_x ~* "^(on|yes)$") { set $v $1; return 200 "$v"; } return 301 $scheme://$host$uri;`, "/")
	f.Add("if ( $uri != '/x' ) { break; } rewrite ^ /y? break;", "/x%2Fy")
	f.Add("try_files $uri $uri/ /index.php?$args;", "/a?b=1")
	f.Add("error_page 404 @n; try_files $uri =404;", "/a")
	f.Fuzz(func(t *testing.T, steps, target string) {
		// Also in a location only, as try_files is taken there alone.
		for _, spec := range []Spec{
			{Steps: []Text{{steps, 1}}, Locations: []LocationSpec{{Path: "/", Steps: steps, Pass: true}}},
			{Locations: []LocationSpec{{Path: "/", Steps: steps}, {Match: Named, Path: "n", Steps: steps}}},
		} {
			p, err := Compile(spec)
			if err != nil {
				continue
			}
			var s Scratch
			var res Result
			p.Run(&s, request("h", target, fields{"X": "on"}), &res)
		}
	})
}

// FuzzCompileMap feeds a map's entries and a server name to the compiler
// and a request to what compiled, with error pages that send it around,
// and a map of a function (valid or not) of the request: nothing may
// panic, whatever the input.
func FuzzCompileMap(f *testing.F) {
	f.Add("/a /b;\n~^/c/(.*)$ /d/$1;\ndefault x;", "*.example.com", "error_page 404 = @n;", "/c/e", "tolower")
	f.Add("hostnames;\n.example.org org;\nwww.example.* w;\n\\default y;", `~^(?<s>.+)\.test$`, "error_page 404 /x?$m;", "/a", "unescape")
	f.Add("", "a.test", "set $k $request_uri;", "/%41%00%zz%4?x=%2", "escape")
	f.Add("", "a.test", "set $k $uri;", "/a%20b/%3F?c", "urlencode only=%20%3F ctls except=%2F noplus")
	f.Fuzz(func(t *testing.T, entries, host, steps, target, function string) {
		hosts, err := CompileHosts([]HostSpec{{Host: host, Default: true, Spec: Spec{
			Steps: []Text{{Src: "set $k $request_uri$args;\n" + steps, Line: 1}},
			Maps: []MapSpec{{Source: "$host$uri", Variable: "m", Entries: entries, EntriesLine: 1},
				{Source: "$k", Variable: "f", Function: function}},
			Locations: []LocationSpec{
				{Path: "/", Steps: "if ($m) { return 404; } if ($f ~ x) { return 302 /$f; } return 302 /$m;", Pass: true, InterceptErrors: true},
				{Match: Named, Path: "n", Steps: "return 200 $m;"},
			}}}})
		if err != nil {
			return
		}
		var s Scratch
		var res Result
		req := request("www.example.org", target, nil)
		p := hosts.Choose(&s, req.Host)
		p.Run(&s, req, &res)
		p.RunIntercepted(&s, req, &res, 404)
	})
}
