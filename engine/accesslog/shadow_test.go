package accesslog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShadowFields checks that a line with a shadow rule carries it and its
// would-be Location, escaped, after the rule in both formats, and that a
// line without one is unchanged.
func TestShadowFields(t *testing.T) {
	plain := redirect()
	e := redirect()
	e.ShadowRule, e.ShadowLocation = "new.map:7", []byte(`https://new.example/"x"`)
	for _, tc := range []struct {
		format Format
		suffix string
	}{
		{Combined, `"rules.toml:12" "Old.Example:8080" "new.map:7" "https://new.example/\x22x\x22"` + "\n"},
		{JSON, `"rule":"rules.toml:12","shadow_rule":"new.map:7","shadow_location":"https://new.example/\"x\""}` + "\n"},
	} {
		f := formatter{format: tc.format}
		base := string(f.appendLine(nil, &plain))
		got := string(f.appendLine(nil, &e))
		want := base[:len(base)-len(tailOf(tc.format))] + tc.suffix
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.format, diff)
		}
	}
}

// tailOf is how a line without a shadow rule ends after its rule.
func tailOf(f Format) string {
	if f == JSON {
		return `"rule":"rules.toml:12"}` + "\n"
	}
	return `"rules.toml:12" "Old.Example:8080"` + "\n"
}
