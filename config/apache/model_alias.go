package apache

// The model's mod_alias (alias_matches, try_alias_list, the Location
// of translate_alias_redir and fixup_redir) and the URL-path Apache's
// request processing makes of a target.

import (
	"regexp"
	"strconv"
	"strings"
)

// aliasAnswer is a Redirect's or RedirectMatch's answer to r; ok is
// false where it does not match. An answer of a form the model does not
// follow is unknown, with ok true: the directive matched.
// re is a RedirectMatch's regex, compiled once (nil where Go's syntax
// does not read it).
func aliasAnswer(d *Directive, re *regexp.Regexp, r *mReq) (mAnswer, bool) {
	status, args, ok := aliasArgs(d)
	if !ok {
		return unknown, false
	}
	wantURL := status >= 300 && status < 400
	var found string
	if d.Is("RedirectMatch") {
		if re == nil {
			return unknown, true
		}
		loc := re.FindStringSubmatchIndex(r.uri)
		if loc == nil {
			return unknown, false
		}
		if !wantURL {
			return mAnswer{status: status, by: d, known: true}, true
		}
		var ok bool
		if found, ok = redirectMatchURL(args[1], submatches(r.uri, loc)); !ok {
			return unknown, true
		}
	} else {
		n := aliasMatches(r.uri, args[0])
		if n < 0 {
			return unknown, false
		}
		if !wantURL {
			return mAnswer{status: status, by: d, known: true}, true
		}
		found = args[1] + apEscapeURI(r.uri[n:])
	}
	if status != 410 && (status < 300 || status > 399) {
		return unknown, true
	}
	if strings.HasPrefix(found, "/") {
		scheme := "http"
		if r.https {
			scheme = "https"
		}
		found = scheme + "://" + r.host + found
	} else if !strings.HasPrefix(found, "http://") && !strings.HasPrefix(found, "https://") {
		return unknown, true
	}
	if r.origHas && !strings.Contains(found, "?") {
		found += "?" + r.origArgs
	}
	return mAnswer{status: status, loc: found, by: d, known: true}, true
}

// aliasArgs reads a Redirect's status and its path and URL; ok is
// false for a line of other arguments, which Apache refuses.
func aliasArgs(d *Directive) (status int, args []string, ok bool) {
	args = d.Args
	status = 302
	switch {
	case d.Is("RedirectPermanent"):
		status = 301
	case d.Is("RedirectTemp"):
		status = 302
	case len(args) > 0:
		if s, ok := aliasStatusWord(args[0]); ok {
			status, args = s, args[1:]
		}
	}
	wantURL := status >= 300 && status < 400
	if len(args) == 0 || wantURL != (len(args) == 2) || len(args) > 2 {
		return 0, nil, false
	}
	return status, args, true
}

// aliasList is a context's Redirects in the order mod_alias tries them,
// the plain ones indexed by path: a .htaccess of 50,000 lines is not
// walked line by line for each request.
type aliasList struct {
	list  []*Directive
	plain map[string]int // a plain Redirect's path, slashes merged: its first line
	other []int          // the lines the index does not hold (RedirectMatch)
	res   map[int]*regexp.Regexp
}

func newAliasList(ds []*Directive) *aliasList {
	l := &aliasList{plain: map[string]int{}, res: map[int]*regexp.Regexp{}}
	for _, d := range ds {
		if !modelAlias(d) {
			continue
		}
		i := len(l.list)
		l.list = append(l.list, d)
		_, args, ok := aliasArgs(d)
		switch {
		case !ok:
		case d.Is("RedirectMatch"):
			l.other = append(l.other, i)
			l.res[i] = modelRegex(args[0], false)
		default:
			key := mergeRuns(args[0])
			if _, dup := l.plain[key]; !dup {
				l.plain[key] = i
			}
		}
	}
	return l
}

// mergeRuns merges runs of '/', as alias_matches compares them.
func mergeRuns(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p
}

// answer is the first line's answer that matches r, as try_alias_list
// finds it; ok is false where none does.
func (l *aliasList) answer(m *apModel, r *mReq) (mAnswer, bool) {
	best := -1
	found := func(key string) {
		if j, ok := l.plain[key]; ok && (best < 0 || j < best) {
			best = j
		}
	}
	for i := 0; i <= len(r.uri); i++ {
		if i == len(r.uri) || r.uri[i] == '/' {
			if i > 0 {
				found(r.uri[:i])
			}
			if i < len(r.uri) {
				found(r.uri[:i+1])
			}
		}
	}
	for _, j := range l.other {
		if best >= 0 && j > best {
			break
		}
		m.work++
		if a, ok := aliasAnswer(l.list[j], l.res[j], r); ok {
			return a, true
		}
	}
	if best >= 0 {
		return aliasAnswer(l.list[best], nil, r)
	}
	return unknown, false
}

// aliasStatusWord reads Redirect's optional status argument.
func aliasStatusWord(a string) (int, bool) {
	switch strings.ToLower(a) {
	case "permanent":
		return 301, true
	case "temp":
		return 302, true
	case "seeother":
		return 303, true
	case "gone":
		return 410, true
	}
	if n, err := strconv.Atoi(a); err == nil && len(a) == 3 {
		return n, true
	}
	return 0, false
}

// aliasMatches is mod_alias's alias_matches: the length of uri the
// fake path covers, any run of '/' in one matching any run in the
// other, ending at a segment's end; -1 where it does not.
func aliasMatches(uri, fake string) int {
	a, u := 0, 0
	for a < len(fake) {
		if fake[a] == '/' {
			if u >= len(uri) || uri[u] != '/' {
				return -1
			}
			for a < len(fake) && fake[a] == '/' {
				a++
			}
			for u < len(uri) && uri[u] == '/' {
				u++
			}
			continue
		}
		if u >= len(uri) || uri[u] != fake[a] {
			return -1
		}
		a, u = a+1, u+1
	}
	if fake != "" && fake[len(fake)-1] != '/' && u < len(uri) && uri[u] != '/' {
		return -1
	}
	return u
}

// redirectMatchURL is RedirectMatch's target: ap_pregsub's $N filled
// in, then the URL without its query escaped (ap_escape_uri), the query
// as it is. A '#' is not the model's to follow.
func redirectMatchURL(tmpl string, groups []string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '$' && i+1 < len(tmpl) && tmpl[i+1] >= '0' && tmpl[i+1] <= '9':
			if n := int(tmpl[i+1] - '0'); n < len(groups) {
				b.WriteString(groups[n])
			}
			i++
		case c == '\\' && i+1 < len(tmpl):
			i++
			b.WriteByte(tmpl[i])
		default:
			b.WriteByte(c)
		}
	}
	s := b.String()
	if strings.ContainsAny(s, "#\r\n") {
		return "", false
	}
	path, q, hasQ := strings.Cut(s, "?")
	s = apEscapeURI(path)
	if hasQ {
		s += "?" + q
	}
	return s, true
}

// apacheURI is the URL-path Apache's modules read for a raw path: the
// unreserved escapes decoded and dot segments and slashes normalised
// (ap_normalize_path), then every escape decoded (ap_unescape_url). ""
// with ok is Apache's 404 for an encoded '/'; !ok is a path the model
// does not follow (a bad escape, %00, a path above the root).
func apacheURI(raw string) (string, bool) {
	if !strings.HasPrefix(raw, "/") {
		return "", false
	}
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") {
		return "", true
	}
	if strings.Contains(lower, "%00") || strings.Contains(lower, "%2e") {
		return "", false
	}
	var segs []string
	for _, s := range strings.Split(raw[1:], "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segs) == 0 {
				return "", false
			}
			segs = segs[:len(segs)-1]
		default:
			segs = append(segs, s)
		}
	}
	p := "/" + strings.Join(segs, "/")
	if len(segs) > 0 && (strings.HasSuffix(raw, "/") || strings.HasSuffix(raw, "/.") || strings.HasSuffix(raw, "/..")) {
		p += "/"
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' {
			b.WriteByte(p[i])
			continue
		}
		if i+2 >= len(p) || unhex(p[i+1]) < 0 || unhex(p[i+2]) < 0 {
			return "", false
		}
		b.WriteByte(byte(unhex(p[i+1])<<4 | unhex(p[i+2])))
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
