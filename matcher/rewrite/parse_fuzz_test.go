package rewrite

import "testing"

// FuzzCompileSteps feeds step text to the compiler and a request to what
// compiled: neither may panic, whatever the input.
func FuzzCompileSteps(f *testing.F) {
	f.Add("rewrite ^/(a)(?<n>b)?$ /x/$1$n?k=$arg_k last;", "/ab?k=1")
	f.Add(`if ($http_x ~* "^(on|yes)$") { set $v $1; return 200 "$v"; } return 301 $scheme://$host$uri;`, "/")
	f.Add("if ( $uri != '/x' ) { break; } rewrite ^ /y? break;", "/x%2Fy")
	f.Fuzz(func(t *testing.T, steps, target string) {
		p, err := Compile(Spec{Steps: []Text{{steps, 1}}, Locations: []LocationSpec{{Path: "/", Steps: steps, Pass: true}}})
		if err != nil {
			return
		}
		var s Scratch
		var res Result
		p.Run(&s, request("h", target, fields{"X": "on"}), &res)
	})
}
