package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config/geoip/geoiptest"
)

// TestExplainConditions checks that explain answers for a request with
// the -H fields and -client address given, as the server would: the rule
// whose when conditions hold, with the Vary line, and the fallback
// without them.
func TestExplainConditions(t *testing.T) {
	dir := t.TempDir()
	db := geoiptest.Write(t, map[string]string{"203.0.113.0/24": "AT"})
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf(`[geoip]
database = %q

[[rule]]
from = "/home"
to = "/en/"

[[rule]]
from = "/home"
to = "/de/"
when = { language = "de" }

[[rule]]
from = "/home"
to = "/at/"
when = { country = "AT", cookie = { region = "1" } }
`, db)), 0o644)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"location: /en/", "header:   Vary: Accept-Language, Cookie"}},
		{[]string{"-H", "Accept-Language: de-AT, en;q=0.5"}, []string{"location: /de/", "header:   Vary: Accept-Language\n"}},
		{[]string{"-H", "Accept-Language: en", "-H", "cookie: a=b; region=1", "-client", "203.0.113.7"}, []string{"location: /at/"}},
		{[]string{"-H", "Cookie: region=1", "-client", "198.51.100.7"}, []string{"location: /en/"}},
	} {
		args := append(append([]string{"explain", "-config", file}, tc.args...), "/home")
		code, out, errs := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("explain %v:\n%s\nlacks %q", tc.args, out, w)
			}
		}
	}
	for _, bad := range [][]string{{"-H", "no colon"}, {"-client", "not-an-ip"}} {
		code, _, errs := runCmd(append(append([]string{"explain", "-config", file}, bad...), "/home")...)
		if code != 2 || errs == "" {
			t.Errorf("explain %v: exit %d, stderr %q; want 2 and a message", bad, code, errs)
		}
	}
}

// TestExplainClientConditions checks explain's -client and -X against
// when.ip, when.method and when.sample, and what it says a request lacks.
func TestExplainClientConditions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte(`[[rule]]
from = "/home"
to = "/everyone/"

[[rule]]
from = "/home"
to = "/office/"
when = { ip = ["203.0.113.0/24", "2001:db8::/32"] }

[[rule]]
from = "/home"
to = "/post/"
status = 307
when = { method = "POST" }

[[rule]]
from = "/all"
to = "/sampled/"
when = { sample = 1 }
`), 0o644)
	for _, tc := range []struct {
		args []string
		url  string
		want string
	}{
		{nil, "/home", "location: /everyone/"},
		{[]string{"-client", "203.0.113.7"}, "/home", "location: /office/"},
		{[]string{"-client", "2001:db8::1"}, "/home", "location: /office/"},
		{[]string{"-X", "POST"}, "/home", "location: /post/"},
		{[]string{"-client", "192.0.2.1"}, "/all", "location: /sampled/"},
		{nil, "/all", "requires sample = 1; the client's address is unknown"},
	} {
		args := append(append([]string{"explain", "-config", file}, tc.args...), tc.url)
		code, out, errs := runCmd(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("explain %v %s:\n%s\nlacks %q", tc.args, tc.url, out, tc.want)
		}
	}
}
