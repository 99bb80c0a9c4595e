package promtext

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	helpLine = regexp.MustCompile(`^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$`)
	typeLine = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$`)
)

// Lint returns the families of a text exposition with their TYPE, and a
// problem for each family with no HELP text, no TYPE line right after its
// HELP line, or a second HELP line: the checks of `promtool check metrics`
// that a missing Help entry or a family split across two sets would fail,
// for tests where promtool is not installed.
func Lint(text string) (types map[string]string, problems []string) {
	types = map[string]string{}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		m := helpLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[2]) == "" {
			problems = append(problems, fmt.Sprintf("family %s has no HELP text", m[1]))
		}
		if _, dup := types[m[1]]; dup {
			problems = append(problems, fmt.Sprintf("family %s has a second HELP line: is it registered in two metrics.Sets?", m[1]))
		}
		var t []string
		if i+1 < len(lines) {
			t = typeLine.FindStringSubmatch(lines[i+1])
		}
		if t == nil || t[1] != m[1] {
			problems = append(problems, fmt.Sprintf("family %s has no TYPE line after its HELP", m[1]))
			types[m[1]] = ""
			continue
		}
		types[m[1]] = t[2]
	}
	return types, problems
}
