package matcher

import (
	"regexp"
	"strings"
	"testing"
)

// hostOf returns the host a browser would send a request for loc to, or
// "" for a Location on the current host: after a scheme, or a leading
// "//" or "/\", slashes and backslashes are skipped, the authority runs to
// the next '/', '?', '#' or '\', and the host follows its last '@'.
func hostOf(loc string) string {
	i := schemeEnd(loc)
	if i == 0 && !(len(loc) >= 2 && (loc[0] == '/' || loc[0] == '\\') && (loc[1] == '/' || loc[1] == '\\')) {
		return ""
	}
	for i < len(loc) && (loc[i] == '/' || loc[i] == '\\') {
		i++
	}
	auth := loc[i:]
	if j := strings.IndexAny(auth, "/?#\\"); j >= 0 {
		auth = auth[:j]
	}
	if j := strings.LastIndexByte(auth, '@'); j >= 0 {
		auth = auth[j+1:]
	}
	return auth
}

var refRE = regexp.MustCompile(`\$(\{[^}]*\}|[A-Za-z0-9_]+)`)

// FuzzLocationHost checks the open-redirect invariant: for
// any To and any text a prefix rule appends or a capture holds, the
// Location is sent to the host written in To, or stays on the request's
// host when To names none.
func FuzzLocationHost(f *testing.F) {
	for _, s := range [][2]string{
		{"https://new.example.com", ".evil.net"}, {"https://new.example.com", "@evil.net"},
		{"/", "/evil.net"}, {"/$1", "/evil.net"}, {"$1", "https://evil.net"}, {"https://a.example$1", ":80@evil.net"},
		{"//cdn.example/x", "/y"}, {"/a", "\\\\evil.net"}, {"https:new.example", "@evil.net"}, {"/x?y=$1", "//z"},
	} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, to, extra string, capture bool) {
		if strings.Contains(to, "$$") || strings.Contains(to, "host") || checkTo(to) != nil {
			t.Skip()
		}
		var names []string
		if capture {
			names = []string{"", ""}
		}
		tm, err := parseTemplate(to, names, QueryKeep)
		if err != nil {
			return // refused at load: a host taken from the request
		}
		in := []byte(extra)
		var loc string
		if capture {
			loc = string(tm.appendLocation(nil, in, []int{0, len(in), 0, len(in)}, nil, nil, nil))
		} else {
			loc = string(tm.appendLocation(nil, nil, nil, in, nil, nil))
		}
		// What To writes before its first reference names the host.
		written := to
		if loc := refRE.FindStringIndex(to); capture && loc != nil {
			written = to[:loc[0]]
		}
		if got, want := hostOf(loc), hostOf(written); got != want {
			t.Errorf("to %q with %q: Location %q goes to host %q, want %q", to, extra, loc, got, want)
		}
	})
}
