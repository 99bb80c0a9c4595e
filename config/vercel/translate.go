package vercel

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher"
)

// Load reads and translates a vercel.json: the candidates for
// importer.Order and the notes on what is not translated.
// opt is unused: Vercel has no country condition (its has on the
// x-vercel-ip-country header is a header that its own edge sets).
func Load(file string, data []byte, opt importer.Options) ([]importer.Candidate, []importer.Note, error) {
	rules, notes, err := Parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	cands, more := Translate(file, rules)
	return cands, append(notes, more...), nil
}

// Translate turns the redirects into candidates for importer.Order, in
// order, each with Vercel's reading of it (its source as a regex) for the
// order check, and notes what it does not translate.
func Translate(file string, rules []Redirect) ([]importer.Candidate, []importer.Note) {
	var cands []importer.Candidate
	var notes []importer.Note
	for i := range rules {
		r := &rules[i]
		c := importer.Candidate{File: file, Line: r.Line, Text: r.Text()}
		if msg := r.translate(&c); msg != "" {
			notes = append(notes, importer.Note{File: file, Line: r.Line, Kind: importer.LeftOut, Msg: r.Text() + ": " + msg + "; left out"})
		} else if c.When != nil {
			for _, h := range c.When.Header {
				if strings.HasPrefix(strings.ToLower(h.Name), "x-vercel-") {
					notes = append(notes, importer.Note{File: file, Line: r.Line, Kind: importer.Caveat, Msg: r.Text() + ": " + h.Name +
						" is a header Vercel's edge sets; written as when.header, it holds only where the client or a proxy in front of redirectd sends it " +
						"(for a country, write when.country with [geoip] instead)"})
				}
			}
		}
		cands = append(cands, c)
	}
	return cands, notes
}

// translate fills c, or says why the entry is not translated. A model
// (Matches) is set whenever the source reads, so that an entry left out
// still takes its requests in the order check.
func (r *Redirect) translate(c *importer.Candidate) string {
	if r.Source == "" || r.Destination == "" {
		return "an entry needs a source and a destination"
	}
	tokens, err := parse(r.Source)
	if err != nil {
		return fmt.Sprintf("the source %q does not parse as Vercel reads it: %v", r.Source, err)
	}
	expr := regex(tokens)
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Sprintf("the source's regex %s does not compile in Go's RE2 syntax (lookarounds such as (?!...) have no equivalent): %v", expr, err)
	}
	tmpl := matcher.Rule{Status: 308}
	if r.Permanent != nil && !*r.Permanent {
		tmpl.Status = 307
	}
	if r.StatusCode != 0 {
		tmpl.Status = r.StatusCode
	}
	var unsupported []string
	for _, h := range r.Has {
		if msg := h.apply(&tmpl); msg != "" {
			unsupported = append(unsupported, msg)
		}
	}
	for _, m := range r.Missing {
		if msg := m.applyMissing(&tmpl); msg != "" {
			unsupported = append(unsupported, msg)
		}
	}
	model := func(q importer.Request) bool {
		if tmpl.Host != "" && q.Host != tmpl.Host || !re.MatchString(q.Path) || !q.Client.Satisfies(tmpl.When) {
			return false
		}
		for _, cond := range tmpl.Query {
			if !hasParam(q.Query, cond) {
				return false
			}
		}
		if tmpl.When != nil && tmpl.When.Unless != nil {
			for _, cond := range tmpl.When.Unless.Query {
				if hasParam(q.Query, cond) {
					return false
				}
			}
		}
		return true
	}
	if !tokens[0].param {
		c.Prefix = tokens[0].text // every match starts with it
	}
	for _, p := range samples(tokens, re) {
		c.Samples = append(c.Samples, importer.Request{Host: tmpl.Host, Path: p, Query: sampleQuery(tmpl.Query)})
	}
	switch {
	case len(unsupported) > 0:
		return strings.Join(unsupported, "; ")
	case !matcher.ValidStatus(tmpl.Status) || !matcher.HasLocation(tmpl.Status): // a redirect's destination is a Location
		c.Matches, c.What = model, fmt.Sprintf("status %d", tmpl.Status)
		return fmt.Sprintf("statusCode %d is not a redirect status (301, 302, 303, 307, 308)", tmpl.Status)
	}
	c.Matches, c.When = model, tmpl.When
	for _, h := range r.Has {
		// Vercel lets the destination use a has key's value (:key), which
		// a path regex cannot capture.
		if h.Key != "" && groups(tokens)[h.Key] == 0 && usesName(r.Destination, h.Key) {
			c.What = "a redirect redirectd cannot write"
			return fmt.Sprintf("the destination uses :%s, the value of a has condition, which redirectd cannot put into a Location", h.Key)
		}
	}
	to := destination(r.Destination, groups(tokens))
	rx := tmpl
	rx.Kind, rx.From, rx.To = matcher.Regex, expr, to
	c.Regex = &rx
	if path, ok := literal(tokens); ok && strings.HasPrefix(path, "/") {
		nat := tmpl
		nat.From, nat.To = path, r.Destination
		c.Natural = &nat
	}
	return ""
}

// apply turns a has condition into the rule's host, a query condition
// or a when condition (header, cookie), or says why it cannot.
func (h *Cond) apply(r *matcher.Rule) string {
	value, literal := "", true
	if h.Value != nil {
		value, literal = literalValue(*h.Value)
	}
	switch {
	case h.Type == "host" && h.Value == nil:
		return "a has condition on the host without a value"
	case h.Type == "host" && literal:
		r.Host = strings.ToLower(value)
		return ""
	case h.Type == "query" && h.Value == nil:
		r.Query = append(r.Query, matcher.QueryCond{Name: h.Key, Value: matcher.AnyValue})
		return ""
	case h.Type == "query" && literal:
		r.Query = append(r.Query, matcher.QueryCond{Name: h.Key, Value: value})
		return ""
	case h.Type == "host" || h.Type == "query":
		return fmt.Sprintf("a has condition on the %s with the regex %q (redirectd compares hosts and query values as written)", h.Type, *h.Value)
	case h.Type != "header" && h.Type != "cookie":
		return fmt.Sprintf("a has condition of type %q, which Vercel does not document (host, query, header, cookie)", h.Type)
	case h.Value == nil:
		value = matcher.AnyValue // present, with any value
	case value == matcher.AnyValue:
		return fmt.Sprintf("a has condition on the %s %s with the value \"*\", which redirectd's when reads as any value", h.Type, h.Key)
	case !literal:
		return fmt.Sprintf("a has condition on the %s %s with the regex %q; redirectd's when compares a value whole", h.Type, h.Key, *h.Value)
	}
	if h.Type == "header" && strings.TrimSpace(value) != value {
		// RFC 9110 section 5.5: the spaces around a field value are not
		// part of it, so such a value matches no request.
		return fmt.Sprintf("a has condition on the header %s with the value %q, which begins or ends with a space no field value holds", h.Key, value)
	}
	if r.When == nil {
		r.When = &matcher.When{}
	}
	list := &r.When.Header
	if h.Type == "cookie" {
		list = &r.When.Cookie
	}
	for _, kv := range *list {
		if h.Type == "header" && strings.EqualFold(kv.Name, h.Key) || kv.Name == h.Key {
			return fmt.Sprintf("two has conditions on the %s %s", h.Type, h.Key)
		}
	}
	*list = append(*list, matcher.KeyValue{Name: h.Key, Value: value})
	return ""
}

// applyMissing turns a missing condition into a condition of the rule's
// when.unless (header, cookie, query; without a value: present with any),
// or says why it cannot.
func (m *Cond) applyMissing(r *matcher.Rule) string {
	value, literal := matcher.AnyValue, true
	if m.Value != nil {
		value, literal = literalValue(*m.Value)
	}
	switch {
	case m.Type == "host":
		return "a missing condition on the host: redirectd's rules name the hosts they answer, not hosts to leave out"
	case m.Type != "header" && m.Type != "cookie" && m.Type != "query":
		return fmt.Sprintf("a missing condition of type %q, which Vercel does not document (host, query, header, cookie)", m.Type)
	case !literal:
		return fmt.Sprintf("a missing condition on the %s %s with the regex %q; redirectd's when compares a value whole", m.Type, m.Key, *m.Value)
	case m.Value != nil && value == matcher.AnyValue:
		return fmt.Sprintf("a missing condition on the %s %s with the value \"*\", which redirectd's when reads as any value", m.Type, m.Key)
	case m.Type == "header" && strings.TrimSpace(value) != value:
		// No field value holds it (RFC 9110 section 5.5), so the header
		// is always "missing": the condition always holds.
		return ""
	}
	if r.When == nil {
		r.When = &matcher.When{}
	}
	if r.When.Unless == nil {
		r.When.Unless = &matcher.When{}
	}
	u := r.When.Unless
	switch m.Type {
	case "header":
		u.Header = append(u.Header, matcher.KeyValue{Name: m.Key, Value: value})
	case "cookie":
		u.Cookie = append(u.Cookie, matcher.KeyValue{Name: m.Key, Value: value})
	default:
		u.Query = append(u.Query, matcher.QueryCond{Name: m.Key, Value: value})
	}
	return ""
}

// destination writes a destination as a regex rule's to: :name (with
// any modifier, *, + or ?) and :n of an unnamed group become ${name} and
// ${group}, $n becomes ${n}, and another $ is doubled.
func destination(dst string, groups map[string]int) string {
	var b strings.Builder
	for i := 0; i < len(dst); i++ {
		c := dst[i]
		n := 0
		for i+1+n < len(dst) && isWord(dst[i+1+n]) {
			n++
		}
		word := dst[i+1 : i+1+n]
		switch {
		case c == ':' && n > 0 && groups[word] > 0:
			if g := groups[word]; word[0] >= '0' && word[0] <= '9' {
				fmt.Fprintf(&b, "${%d}", g)
			} else {
				b.WriteString("${" + word + "}")
			}
			i += n
			if i+1 < len(dst) && strings.IndexByte("*+?", dst[i+1]) >= 0 && (i+2 == len(dst) || dst[i+2] == '/' || dst[i+2] == '?' || dst[i+2] == '#' || dst[i+2] == '&') {
				i++ // a modifier of the name, not a character of the URL
			}
			continue
		case c == '$' && n > 0 && allDigits(word):
			b.WriteString("${" + word + "}")
			i += n
			continue
		case c == '$':
			b.WriteString("$$")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// usesName reports whether dst refers to :name.
func usesName(dst, name string) bool {
	for i := 0; i+1+len(name) <= len(dst); i++ {
		if dst[i] == ':' && dst[i+1:i+1+len(name)] == name && (i+1+len(name) == len(dst) || !isWord(dst[i+1+len(name)])) {
			return true
		}
	}
	return false
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// hasParam reports whether query holds the parameter cond asks for.
func hasParam(query string, cond matcher.QueryCond) bool {
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == cond.Name && (cond.Value == matcher.AnyValue || v == cond.Value) {
			return true
		}
	}
	return false
}

func sampleQuery(conds []matcher.QueryCond) string {
	var q []string
	for _, c := range conds {
		v := c.Value
		if v == matcher.AnyValue {
			v = "q1"
		}
		q = append(q, c.Name+"="+v)
	}
	return strings.Join(q, "&")
}

// literalValue reads a has value (a regex, matched whole) as the one
// string it matches, if it does: "shop.example.com" and
// "shop\\.example\\.com" are both taken as the host shop.example.com,
// the unescaped dot being how people write a host.
func literalValue(v string) (string, bool) {
	v = strings.ReplaceAll(v, `\.`, ".")
	return v, regexp.QuoteMeta(strings.ReplaceAll(v, ".", "")) == strings.ReplaceAll(v, ".", "")
}
