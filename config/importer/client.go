package importer

import (
	"slices"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// Options are what an import is told besides its source files.
type Options struct {
	// GeoIP is the country database the written config names ([geoip]
	// database), as the user gave it to -geoip; "" for none, and then
	// rules with country conditions are left out, since the config would
	// not load.
	GeoIP string
}

// Client is who sends a request of the order check: what it sends that
// conditions (matcher.When) read. A nil *Client sends none of it, so
// every rule with conditions passes it by.
type Client struct {
	// Language is the one tag of its Accept-Language, "" for none.
	Language string
	// Country is its ISO 3166 code, "" when unknown.
	Country string
	// Header and Cookie are the fields and cookies it sends.
	Header, Cookie []matcher.KeyValue
	// HTTPS: it asks over TLS.
	HTTPS bool
}

// ClientFor returns a client that satisfies w: the first language and
// country listed, every header and cookie; nil when w is empty.
func ClientFor(w *matcher.When) *Client {
	if w.Empty() {
		return nil
	}
	c := &Client{Header: present(w.Header), Cookie: present(w.Cookie)}
	if len(w.Language) > 0 {
		c.Language = strings.TrimSuffix(w.Language[0], "-*")
		if c.Language == "*" {
			c.Language = "en" // any tag falls in *
		}
	}
	if len(w.Country) > 0 {
		c.Country = w.Country[0]
	}
	c.HTTPS = w.Scheme == "https"
	return c
}

// Satisfies reports whether c satisfies every condition of w and none
// of its unless (whose query conditions are the caller's), as the
// matcher reads them: it asks the matcher, with c as the request it
// makes (matcherRequest). An empty w holds for every client, nil
// included.
func (c *Client) Satisfies(w *matcher.When) bool {
	if w.Empty() {
		return true
	}
	return c != nil && w.Holds(matcherRequest(c))
}

// present gives each field or cookie asked for with any value one.
func present(kvs []matcher.KeyValue) []matcher.KeyValue {
	out := slices.Clone(kvs)
	for i := range out {
		if out[i].Value == matcher.AnyValue {
			out[i].Value = "present"
		}
	}
	return out
}

func (c *Client) header(name string) (string, bool) {
	for _, h := range c.Header {
		if strings.EqualFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}

// key identifies c among the clients of one import.
func (c *Client) key() string {
	var b strings.Builder
	b.WriteString(c.Language + "\x00" + c.Country + "\x00")
	for _, h := range c.Header {
		b.WriteString("h" + strings.ToLower(h.Name) + "\x00" + h.Value + "\x00")
	}
	for _, k := range c.Cookie {
		b.WriteString("k" + k.Name + "\x00" + k.Value + "\x00")
	}
	return b.String()
}

// String describes c in a note: "Accept-Language: de, country AT".
func (c *Client) String() string {
	var parts []string
	if c.Language != "" {
		parts = append(parts, "Accept-Language: "+c.Language)
	}
	if c.Country != "" {
		parts = append(parts, "country "+c.Country)
	}
	for _, h := range c.Header {
		parts = append(parts, h.Name+": "+h.Value)
	}
	if len(c.Cookie) > 0 {
		parts = append(parts, "Cookie: "+c.cookieLine())
	}
	return strings.Join(parts, ", ")
}

func (c *Client) cookieLine() string {
	kv := make([]string, len(c.Cookie))
	for i, k := range c.Cookie {
		kv[i] = k.Name + "=" + k.Value
	}
	return strings.Join(kv, "; ")
}

// matcherRequest returns what Lookup reads conditions from: c's language
// as Accept-Language, its cookies as one Cookie field, its header fields;
// nil for a client that sends nothing they read.
func matcherRequest(c *Client) matcher.Request {
	if c == nil {
		return nil
	}
	r := &matcher.FixedRequest{CountryCode: c.Country, TLS: c.HTTPS}
	if c.Language != "" {
		r.Fields = append(r.Fields, matcher.KeyValue{Name: "Accept-Language", Value: c.Language})
	}
	if len(c.Cookie) > 0 {
		r.Fields = append(r.Fields, matcher.KeyValue{Name: "Cookie", Value: c.cookieLine()})
	}
	// After the two above, which the first of a name wins over.
	r.Fields = append(r.Fields, c.Header...)
	return r
}

// maxClients bounds the kinds of client addClientSamples makes from pairs
// of rules' conditions.
const maxClients = 256

// merge returns a client who sends what a and b send, nil when no client
// can (two languages, two countries, one header or cookie with two
// values). Only a client's top language counts, so de and fr cannot meet;
// de and de-AT meet in de-AT.
func merge(a, b *Client) *Client {
	c := *a
	la, lb := strings.ToLower(c.Language), strings.ToLower(b.Language)
	switch {
	case la == "" || strings.HasPrefix(lb, la+"-"):
		c.Language = b.Language // de-AT falls in de too
	case lb == "" || lb == la || strings.HasPrefix(la, lb+"-"):
	default:
		return nil
	}
	switch {
	case c.Country == "":
		c.Country = b.Country
	case b.Country != "" && b.Country != c.Country:
		return nil
	}
	c.Header = slices.Clone(c.Header)
	for _, h := range b.Header {
		v, ok := c.header(h.Name)
		if ok && v != h.Value {
			return nil
		}
		if !ok {
			c.Header = append(c.Header, h)
		}
	}
	c.Cookie = slices.Clone(c.Cookie)
	for _, k := range b.Cookie {
		i := slices.IndexFunc(c.Cookie, func(x matcher.KeyValue) bool { return x.Name == k.Name })
		if i >= 0 && c.Cookie[i].Value != k.Value {
			return nil
		}
		if i < 0 {
			c.Cookie = append(c.Cookie, k)
		}
	}
	return &c
}

// maxClientSamples bounds the requests addClientSamples adds for the
// clients of other rules than a sample's own: each is asked of every rule
// in each round of Order, and a file of many splats under many different
// conditions would otherwise ask millions.
const maxClientSamples = 20000

// addClientSamples asks requests again as the clients who satisfy the
// rules' conditions. A rule with conditions has its own samples asked as
// a client who satisfies them (first, for the check that it ever
// applies) and as one who does not; and every sample of every rule that
// a rule with conditions takes for some client is asked as that client
// too: there, file order and redirectd's precedence (conditions first
// for one path, exact before prefix before regex whatever the
// conditions) can disagree, and nowhere else. It returns how many kinds
// of client it could not ask about in full (maxClientSamples).
func addClientSamples(cands []Candidate) (skipped int) {
	ps, own := personas(cands)
	if len(ps) == 0 {
		return 0
	}
	base := ownSamplesFirst(cands, own)
	added := 0
	for _, p := range ps {
		var more [][2]int // candidate, sample
		for j := range cands {
			if p.c == own[j] {
				continue
			}
			for k, s := range base[j] {
				s.Client = p.c
				for _, i := range p.by {
					if strings.HasPrefix(s.Path, cands[i].Prefix) && cands[i].Matches(s) {
						more = append(more, [2]int{j, k})
						break
					}
				}
			}
		}
		if added+len(more) > maxClientSamples {
			skipped++
			continue
		}
		added += len(more)
		for _, x := range more {
			s := base[x[0]][x[1]]
			s.Client = p.c
			cands[x[0]].Samples = append(cands[x[0]].Samples, s)
		}
	}
	return skipped
}

// persona is one kind of client addClientSamples asks as.
type persona struct {
	c  *Client
	by []int // the candidates whose conditions it satisfies
}

// personas lists the kinds of client the candidates' conditions make:
// one per set of conditions, and one per pair that a client can satisfy
// at once (up to maxClients). own holds, per candidate, the client of
// its own conditions (nil: it has none).
func personas(cands []Candidate) (ps []*persona, own []*Client) {
	byKey := map[string]*persona{}
	own = make([]*Client, len(cands))
	for j := range cands {
		c := ClientFor(cands[j].When)
		if c == nil {
			continue
		}
		p := byKey[c.key()]
		if p == nil {
			p = &persona{c: c}
			byKey[c.key()] = p
			ps = append(ps, p)
		}
		own[j] = p.c
	}
	if len(ps) == 0 {
		return nil, own
	}
	// A client who satisfies two rules' conditions at once (German and
	// in Austria) meets them in file order on the service, and in
	// redirectd's precedence here: ask as one for each pair of rules.
	n := len(ps)
	for a := 0; a < n && len(ps) < maxClients; a++ {
		for b := a + 1; b < n && len(ps) < maxClients; b++ {
			c := merge(ps[a].c, ps[b].c)
			if c == nil || byKey[c.key()] != nil {
				continue
			}
			p := &persona{c: c}
			byKey[c.key()] = p
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		for j := range cands {
			if cands[j].Matches != nil && !cands[j].When.Empty() && p.c.Satisfies(cands[j].When) {
				p.by = append(p.by, j)
			}
		}
	}
	return ps, own
}

// ownSamplesFirst puts before each candidate's samples the same asked as
// the client of its own conditions, and returns the samples as they
// were.
func ownSamplesFirst(cands []Candidate, own []*Client) (base [][]Request) {
	base = make([][]Request, len(cands))
	for j := range cands {
		base[j] = cands[j].Samples
		var out []Request
		if own[j] != nil {
			for _, s := range base[j] {
				s.Client = own[j]
				out = append(out, s)
			}
		}
		cands[j].Samples = append(out, base[j]...)
	}
	return base
}
