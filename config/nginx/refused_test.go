package nginx

import (
	"strings"
	"testing"
)

// TestRefusedRuleLeftOut checks that a rule nginx takes but redirectd
// refuses (here a map value "//" returned as a Location, which names no
// host) is left out with a note naming its line, and the other rules are
// still written, rather than the whole import failing to load.
func TestRefusedRuleLeftOut(t *testing.T) {
	conf := "map $uri $n {\n  /a //;\n  /b /new;\n}\nserver {\n  if ($n) { return 301 $n; }\n}\n"
	dirs, err := Parse("f.conf", []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	res := Translate(dirs)
	var notes []string
	for _, n := range res.Notes {
		notes = append(notes, n.String())
		if strings.Contains(n.Msg, "a bug in the import") {
			t.Errorf("note %s", n)
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), `f.conf:2: redirectd refuses the rule for "/a": to: "//" names no host`) {
		t.Errorf("no note of the refused rule:\n%s", strings.Join(notes, "\n"))
	}
	var froms []string
	for _, r := range res.Rules {
		froms = append(froms, r.From+" "+r.To)
	}
	if len(res.Rules) != 1 || res.Rules[0].From != "/b" {
		t.Errorf("rules %q, want only /b", froms)
	}
}
