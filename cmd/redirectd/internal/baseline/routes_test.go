package baseline

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config"
)

// TestSettingChangesRoutes: routes moved to another group, or added, are
// named among the settings that change answers; the same routes written
// in another order are not.
func TestSettingChangesRoutes(t *testing.T) {
	r := func(host, prefix, up string, line int) config.Route {
		return config.Route{Host: host, Prefix: prefix, Upstream: up, Line: line}
	}
	old := &config.Config{Routes: []config.Route{r("a.example", "/blog/", "blog", 3), r("", "/api/", "api", 8)}}
	same := &config.Config{Routes: []config.Route{r("", "/api/", "api", 3), r("a.example", "/blog/", "blog", 9)}}
	moved := &config.Config{Routes: []config.Route{r("a.example", "/blog/", "default", 3), r("", "/api/", "api", 8)}}
	if got := settingChanges(old, same); len(got) != 0 {
		t.Errorf("reordered routes: %v", got)
	}
	if got := settingChanges(old, moved); len(got) != 1 || !strings.HasPrefix(got[0], "[[route]] 2 -> 2 routes") {
		t.Errorf("a route moved to another group: %v", got)
	}
}
