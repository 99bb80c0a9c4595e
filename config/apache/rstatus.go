package apache

import (
	"fmt"
	"strings"
)

// apacheStatuses are the statuses Apache 2.4 has a status line for
// (http_protocol.c's status_lines): mod_rewrite refuses [R=n] for any
// other n when it reads the config (checked against apache2 -t).
var apacheStatuses = map[int]bool{}

func init() {
	for _, r := range [][2]int{{100, 103}, {200, 208}, {226, 226}, {300, 305}, {307, 308}, {400, 417},
		{421, 424}, {426, 426}, {428, 429}, {431, 431}, {451, 451}, {500, 508}, {510, 511}} {
		for n := r[0]; n <= r[1]; n++ {
			apacheStatuses[n] = true
		}
	}
}

// rewriteStatus reads RewriteRule's [R=v] as mod_rewrite's
// cmd_rewriterule_setflag does, which is not mod_alias's reading:
// permanent, temp and seeother (any case) are its only words, and any
// other word ("gone" among them) is no status, which Apache answers as
// 302 (word says so, for a note); a value that starts with a digit is
// atoi's number, trailing text ignored, refused (err, Apache's own
// words) where Apache has no status line for it. A status outside
// 3xx is answered without a Location.
func rewriteStatus(v string) (code int, word bool, err error) {
	switch strings.ToLower(v) {
	case "":
		return 302, false, nil
	case "permanent":
		return 301, false, nil
	case "temp":
		return 302, false, nil
	case "seeother":
		return 303, false, nil
	}
	if v[0] < '0' || v[0] > '9' {
		return 302, true, nil
	}
	n, i := 0, 0
	for ; i < len(v) && i < 10 && v[i] >= '0' && v[i] <= '9'; i++ {
		n = n*10 + int(v[i]-'0')
	}
	if i == 10 || !apacheStatuses[n] {
		return 0, false, fmt.Errorf("invalid HTTP response code '%s' for flag 'R': Apache refuses the rule", v)
	}
	return n, false, nil
}
